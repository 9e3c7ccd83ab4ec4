import * as assert from 'node:assert/strict';
import { maxToolTextChars } from '../../../src/session/blockView';
import type { ToolEntry } from '../../../src/session/sessionState';
import { toolView } from '../../../src/session/toolView';
import type { ToolContentView } from '../../../src/protocol/sessionView';

const ctx = { agentName: 'Hermes', readOnly: false, acceptsImages: false, pendingPermissions: 0, now: 0, relativePath: (p: string) => p };
const deps = { permissionTimeoutMs: undefined, diffStats: () => ({ added: 0, removed: 0 }) };

function shown(text: string): Extract<ToolContentView, { type: 'text' }> {
  const entry: ToolEntry = {
    kind: 'tool',
    id: 't1',
    toolCallId: 'c1',
    title: 'terminal: cat big.log',
    toolKind: 'execute',
    status: 'completed',
    locations: [],
    content: [{ type: 'content', content: { type: 'text', text } }],
    at: 0,
  };
  const view = toolView(entry, ctx, deps);
  const c = view.kind === 'tool' ? view.content[0] : undefined;
  assert.ok(c?.type === 'text');
  return c;
}

/** `sizedText` of the scripted agent's `[big-output]` (R8): numbered log lines. */
function log(chars: number): string {
  const lines: string[] = [];
  let size = 0;
  for (let i = 1; size < chars; i++) {
    const line = `output line ${String(i).padStart(6, '0')}: lorem ipsum dolor sit amet, consectetur adipiscing elit\n`;
    lines.push(line);
    size += line.length;
  }
  return lines.join('');
}

suite('session / tool output in the view', () => {
  test('a shortened output (head and tail) is preformatted text, not Markdown; its full length is kept', () => {
    const text = log(2 * 1024 * 1024);
    const c = shown(text);
    assert.equal(c.markdown, false);
    assert.equal(c.fullLength, text.length);
    assert.ok(c.text.length <= maxToolTextChars + 100, `${c.text.length}`);
    assert.ok(c.text.startsWith('output line 000001:') && c.text.endsWith(text.slice(-200)));
  });

  test('an output sent whole stays Markdown; one with ANSI escapes stays plain', () => {
    assert.equal(shown('**3 passed**\n\n| a | b |\n| - | - |\n| 1 | 2 |\n').markdown, true);
    assert.equal(shown(log(maxToolTextChars - 200)).markdown, true, 'just under the limit: whole, Markdown');
    assert.equal(shown('\u001b[32mok\u001b[0m').markdown, false);
  });
});
