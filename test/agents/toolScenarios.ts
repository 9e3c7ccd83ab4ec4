/**
 * Tool-call scenarios that need no client capability: every tool kind, the status lifecycle,
 * the three diff shapes seen in the wild (whole files, snippets as Claude sends them, hunks as opencode
 * does; test/fixtures/agents)
 * and oversized outputs.
 */
import type { ToolCallContent, ToolKind } from '@agentclientprotocol/sdk';
import { existsSync, readFileSync } from 'node:fs';
import { intArg, strArg, type Marker } from './markers';
import type { Turn } from './turn';

function text(t: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text: t } };
}

interface ToolSpec {
  readonly kind: ToolKind;
  readonly name: string;
  readonly title: string;
  readonly path: string;
  readonly line: number;
  readonly output: string;
}

const toolSpecs: readonly ToolSpec[] = [
  { kind: 'read', name: 'read_file', title: 'read: src/app.ts', path: 'src/app.ts', line: 1, output: '```ts\nexport const answer = 42;\n```' },
  { kind: 'edit', name: 'patch', title: 'patch (replace): src/app.ts', path: 'src/app.ts', line: 1, output: '✅ patch completed for `src/app.ts`' },
  { kind: 'delete', name: 'delete_file', title: 'delete: build/old.log', path: 'build/old.log', line: 1, output: 'Deleted build/old.log' },
  { kind: 'move', name: 'move_file', title: 'move: notes.txt → docs/notes.txt', path: 'docs/notes.txt', line: 1, output: 'Moved notes.txt to docs/notes.txt' },
  { kind: 'search', name: 'search_files', title: 'search: TODO', path: 'src/app.ts', line: 7, output: 'Found 2 matches:\n- src/app.ts:7\n- src/util.ts:12' },
  { kind: 'execute', name: 'terminal', title: 'terminal: npm test', path: 'package.json', line: 5, output: 'terminal result\n- **exit_code:** 0\n\n```\n12 passing\n```' },
  { kind: 'think', name: '_thinking', title: 'think', path: 'src/app.ts', line: 3, output: 'Considered two approaches; the smaller one wins.' },
  { kind: 'fetch', name: 'web_extract', title: 'extract: https://agentclientprotocol.com/', path: 'README.md', line: 1, output: 'Fetched 1 page (4.2 KB).' },
  { kind: 'switch_mode', name: 'switch_mode', title: 'switch mode: accept_edits', path: 'README.md', line: 1, output: 'Mode switch proposed.' },
  { kind: 'other', name: 'todo', title: 'todo (3 items)', path: 'TODO.md', line: 2, output: '- [x] read\n- [ ] edit\n- [ ] test' },
];

/** One tool call per ACP kind, each pending → in_progress → completed, then one that fails. */
export async function tools(turn: Turn): Promise<void> {
  for (const spec of toolSpecs) {
    const toolCallId = turn.newToolCallId();
    const locations = [{ path: turn.resolvePath(spec.path), line: spec.line }];
    await turn.send({
      sessionUpdate: 'tool_call',
      toolCallId,
      title: spec.title,
      name: spec.name,
      kind: spec.kind,
      status: 'pending',
      locations,
      rawInput: { path: spec.path },
    });
    await turn.sleep(turn.chunkDelayMs);
    await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
    await turn.sleep(turn.chunkDelayMs);
    await turn.send({
      sessionUpdate: 'tool_call_update',
      toolCallId,
      status: 'completed',
      content: [text(spec.output)],
      locations,
    });
  }
  const failedId = turn.newToolCallId();
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId: failedId,
    title: 'terminal: npm run lint',
    name: 'terminal',
    kind: 'execute',
    status: 'pending',
    content: [text('$ npm run lint')],
    locations: [{ path: turn.resolvePath('package.json'), line: 8 }],
    rawInput: { command: 'npm run lint' },
  });
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId: failedId, status: 'in_progress' });
  await turn.sleep(turn.chunkDelayMs);
  await turn.send({
    sessionUpdate: 'tool_call_update',
    toolCallId: failedId,
    status: 'failed',
    content: [text('terminal result\n- **exit_code:** 1\n\n```\nsrc/app.ts:3:7 error  no-unused-vars\n```')],
  });
  await turn.say(`Ran ${toolSpecs.length + 1} tool calls; the last one failed.`);
}

/** A single tool call that dwells in each status for `ms`, for UI tests that watch the lifecycle. */
export async function toolSteps(turn: Turn, marker: Marker): Promise<void> {
  const ms = intArg(marker, 'ms', 500);
  const toolCallId = turn.newToolCallId();
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `terminal: sleep ${ms / 1000}`,
    kind: 'execute',
    status: 'pending',
    content: [text(`$ sleep ${ms / 1000}`)],
  });
  await turn.sleep(ms);
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'in_progress' });
  await turn.sleep(ms);
  await turn.send({ sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', content: [text('terminal result\n- **exit_code:** 0')] });
  await turn.say('The slow tool finished.');
}

const sampleFile = Array.from({ length: 10 }, (_v, i) => `line ${i + 1}: the quick brown fox`).join('\n') + '\n';

/** Old text for a diff: the file on disk when it exists, else a 10-line sample. */
function currentText(absPath: string): string {
  try {
    return existsSync(absPath) ? readFileSync(absPath, 'utf8') : sampleFile;
  } catch {
    return sampleFile;
  }
}

/**
 * Builds a diff of the requested shape for a one-line change in the middle of the file:
 * whole = full old and new text (Hermes, Codex, Gemini); snippet = only the changed line (Claude's
 * first stage, opencode); hunk = the change with up to two context lines (Claude after the edit);
 * new = a new file, `oldText` omitted (Codex).
 */
export function buildDiff(shape: string, absPath: string): { path: string; oldText?: string; newText: string } {
  const old = currentText(absPath);
  const lines = old.split('\n');
  const hasFinalNewline = old.endsWith('\n');
  const body = hasFinalNewline ? lines.slice(0, -1) : lines;
  const index = Math.floor((body.length - 1) / 2);
  const changed = `${body[index] ?? ''} // edited by the scripted agent`;
  const newBody = body.map((l, i) => (i === index ? changed : l));
  const join = (ls: string[]): string => ls.join('\n') + (hasFinalNewline ? '\n' : '');
  switch (shape) {
    case 'snippet':
      return { path: absPath, oldText: body[index] ?? '', newText: changed };
    case 'hunk': {
      const from = Math.max(0, index - 2);
      const to = Math.min(body.length, index + 3);
      return { path: absPath, oldText: body.slice(from, to).join('\n'), newText: newBody.slice(from, to).join('\n') };
    }
    case 'new':
      return { path: absPath, newText: join(newBody) };
    default:
      return { path: absPath, oldText: old, newText: join(newBody) };
  }
}

/** A completed edit tool call carrying a diff of the chosen shape. The file on disk is not touched. */
export async function diff(turn: Turn, marker: Marker): Promise<void> {
  const shape = strArg(marker, 'shape', 'whole');
  const absPath = turn.resolvePath(strArg(marker, 'path', 'src/example.ts'));
  const d = buildDiff(shape, absPath);
  const toolCallId = turn.newToolCallId();
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `patch (replace): ${absPath}`,
    kind: 'edit',
    status: 'in_progress',
    locations: [{ path: absPath }],
  });
  await turn.send({
    sessionUpdate: 'tool_call_update',
    toolCallId,
    status: 'completed',
    content: [{ type: 'diff', ...d }],
  });
  await turn.say(`Proposed a ${shape} diff for ${absPath}.`);
}

function sizedText(bytes: number, label: string): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 1; size < bytes; i++) {
    const line = `${label} ${String(i).padStart(6, '0')}: lorem ipsum dolor sit amet, consectetur adipiscing elit\n`;
    parts.push(line);
    size += line.length;
  }
  return parts.join('');
}

export async function bigOutput(turn: Turn, marker: Marker): Promise<void> {
  const kb = intArg(marker, 'kb', 64, 1, 512 * 1024);
  const toolCallId = turn.newToolCallId();
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: 'terminal: cat big.log',
    kind: 'execute',
    status: 'in_progress',
    content: [text('$ cat big.log')],
  });
  await turn.send({
    sessionUpdate: 'tool_call_update',
    toolCallId,
    status: 'completed',
    content: [text(sizedText(kb * 1024, 'output line'))],
  });
  await turn.say(`The tool printed ${kb} KB.`);
}

export async function bigDiff(turn: Turn, marker: Marker): Promise<void> {
  const kb = intArg(marker, 'kb', 64, 1, 512 * 1024);
  const absPath = turn.resolvePath('big-file.txt');
  const oldText = sizedText(kb * 1024, 'row');
  const newText = oldText
    .split('\n')
    .map((l, i) => (i % 10 === 4 && l !== '' ? `${l} (changed)` : l))
    .join('\n');
  const toolCallId = turn.newToolCallId();
  await turn.send({
    sessionUpdate: 'tool_call',
    toolCallId,
    title: `patch (replace): ${absPath}`,
    kind: 'edit',
    status: 'in_progress',
    locations: [{ path: absPath }],
  });
  await turn.send({
    sessionUpdate: 'tool_call_update',
    toolCallId,
    status: 'completed',
    content: [{ type: 'diff', path: absPath, oldText, newText }],
  });
  await turn.say(`Proposed a ${kb} KB diff.`);
}
