import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { parseSessionNotification } from '../../../src/acp/updateValidation';
import type { SessionChange } from '../../../src/session/sessionController';
import type { Entry } from '../../../src/session/sessionState';
import { ViewProjector, type ViewContext } from '../../../src/session/viewProjection';
import { scriptedAgentCommand, startStack, tempWorkspace, type AgentStack } from '../../support/agentStack';
import { fixturesDir } from '../../support/paths';

interface Corpus {
  readonly cases: readonly { id: string; expect: 'rejected' | 'salvaged'; reason: string; update: unknown; benign: unknown }[];
  readonly lenient: readonly { id: string; update: unknown }[];
}

const ctx: ViewContext = {
  agentName: 'scripted',
  readOnly: false,
  acceptsImages: true,
  pendingPermissions: 0,
  now: 0,
  relativePath: (p) => p,
};

const alive = (id: string): unknown => ({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `alive ${id}. ` } });

function assistantText(entries: readonly Entry[]): string {
  return entries
    .flatMap((e) => (e.kind === 'assistant' ? e.parts : []))
    .map((p) => (p.kind === 'block' ? '' : p.text))
    .join('');
}

suite('hostile session/updates from a real agent process', () => {
  let stack: AgentStack | undefined;

  teardown(async () => {
    await stack?.dispose();
    stack = undefined;
  });

  test('each hostile update is one notice and one traffic entry; the session goes on (later updates, the view, the next turn)', async function () {
    this.timeout(60_000);
    // Each hostile update, then its valid twin, then a marker chunk (JSON.stringify keeps own __proto__ keys).
    const corpus = JSON.parse(readFileSync(path.join(fixturesDir, 'hostile', 'updates.json'), 'utf8')) as Corpus;
    const cwd = tempWorkspace();
    const lines: string[] = [];
    for (const c of corpus.cases) {
      lines.push(JSON.stringify(c.update), JSON.stringify(c.benign), JSON.stringify(alive(c.id)));
    }
    for (const c of corpus.lenient) {
      lines.push(JSON.stringify(c.update), JSON.stringify(alive(c.id)));
    }
    writeFileSync(path.join(cwd, 'hostile.jsonl'), `${lines.join('\n')}\n`);

    stack = await startStack(scriptedAgentCommand(cwd));
    const projector = new ViewProjector();
    const projectionErrors: unknown[] = [];
    stack.controller.onDidChange((change: SessionChange) => {
      // What the webview channel does on every change; options: null once broke it for good.
      try {
        projector.patch(change.prev, change.next, ctx);
      } catch (e) {
        projectionErrors.push(e);
      }
    });
    await stack.controller.start();
    const result = await stack.controller.prompt([{ type: 'text', text: '[replay-file path=hostile.jsonl raw=yes]' }]);
    assert.equal(result.kind === 'ended' ? result.stopReason : result.kind, 'end_turn');
    assert.deepEqual(projectionErrors, []);

    const state = stack.controller.state;
    const problemTitles = /^(Ignored an update from the agent|Part of an update from the agent)/;
    const notices = state.entries.flatMap((e) => (e.kind === 'notice' && problemTitles.test(e.title) ? [e.detail ?? ''] : []));
    // One notice per distinct mistake: "1 of 2 items" and "1 of 1 items" of configOptions are one.
    const sameMistake = (s: string): string => s.replace(/\d+/g, '#');
    const distinct = new Set(
      corpus.cases.map((c) => {
        const r = parseSessionNotification({ sessionId: 's', update: c.update });
        return r.ok ? `salvaged ${sameMistake(r.salvaged?.droppedItems.join() ?? '')}` : `rejected ${sameMistake(r.reason)}`;
      }),
    );
    assert.equal(notices.length, distinct.size, notices.join('\n'));
    for (const c of corpus.cases) {
      assert.ok(
        notices.some((detail) => sameMistake(detail).includes(sameMistake(c.reason))),
        `a notice names ${c.id}: ${c.reason}`,
      );
    }
    assert.ok(state.entries.some((e) => e.kind === 'notice' && e.title === 'Heads up'), 'the valid notice update is shown too');
    const text = assistantText(state.entries);
    const markers = [...corpus.cases, ...corpus.lenient].map((c) => `alive ${c.id}.`);
    let from = 0;
    for (const m of markers) {
      const at = text.indexOf(m, from);
      assert.ok(at >= 0, `${m} arrived after the hostile update before it`);
      from = at;
    }

    const traffic = stack.log.snapshot().filter((e) => e.dir === 'in' && e.method === 'session/update');
    const rejected = corpus.cases.filter((c) => c.expect === 'rejected').length;
    assert.equal(traffic.filter((e) => e.kind === 'ignored').length, rejected);
    const salvaged = corpus.cases.length - rejected + corpus.lenient.length;
    assert.equal(traffic.filter((e) => e.note?.includes('left out by the ACP schema') === true).length, salvaged);
    assert.equal(({} as Record<string, unknown>).polluted, undefined);

    // Config updates kept applying after the one with options: null; the last valid one set the list.
    assert.deepEqual(
      projector.snapshot(state, ctx).header.configOptions.map((o) => o.id),
      ['fast'],
    );

    const next = await stack.controller.prompt([{ type: 'text', text: '[plain]' }]);
    assert.equal(next.kind === 'ended' ? next.stopReason : next.kind, 'end_turn');
    assert.match(assistantText(stack.controller.state.entries), /plain reply/);
  });
});
