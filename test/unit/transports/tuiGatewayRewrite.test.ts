/**
 * TUI Gateway history rewrite and per-session model against the fake gateway (stdio): a rewrite of
 * the second-to-last user message asks before archiving more than one user turn and sends
 * `confirm_deep_truncate` only then; a busy session (4009) is interrupted and the same submit
 * retried (and a cut that became deep meanwhile is refused, 4033, and confirmed); row ids are rebound from `survivor_user_row_ids` and a stale one is refused (4018); a
 * model/provider mismatch comes back as a typed error carrying the suggestions.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ModelMismatchError, TransportRpcError } from '../../../src/agentPort/transportErrors';
import { canRewrite, type DeepCutQuestion, type RewriteResult } from '../../../src/agentPort/transport';
import { connectTuiGateway } from '../../../src/transports/tuiGateway/connectTuiGateway';
import type { TuiGatewayConnection, TuiGatewayOptions } from '../../../src/transports/tuiGateway/tuiGatewayConnection';
import { until } from '../../support/wait';
import { assistantText, clientPorts, fakeTuiGatewayJs, makeClient, newLog, repoRoot, type Client } from './transportRig';

interface Recorded {
  readonly dir: 'in' | 'out';
  readonly frame: { readonly method?: string; readonly params?: Record<string, unknown>; readonly error?: { code: number } };
}

suite('transports / TUI Gateway: rewrite and per-session model', () => {
  let dir: string;
  let recordFile: string;
  let client: Client<TuiGatewayConnection>;

  async function open(extra: Partial<TuiGatewayOptions> = {}): Promise<Client<TuiGatewayConnection>> {
    const log = newLog();
    const wiring = clientPorts();
    const connection = await connectTuiGateway(
      { kind: 'stdio', command: { command: process.execPath, args: [fakeTuiGatewayJs, '--stdio', '--generation', 'next'], cwd: repoRoot, env: { FAKE_GATEWAY_RECORD: recordFile } } },
      { log, ports: wiring.ports, ...extra },
    );
    return makeClient(connection, log, wiring);
  }

  function submits(): Record<string, unknown>[] {
    return readFileSync(recordFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Recorded)
      .filter((r) => r.dir === 'in' && r.frame.method === 'prompt.submit')
      .map((r) => r.frame.params ?? {});
  }

  /** Rewrites from the user turn at `userOrdinal`; `confirm` answers the deep-cut question. */
  function rewrite(text: string, userOrdinal: number, confirm: (q: DeepCutQuestion) => boolean = () => true, rowId?: number): Promise<RewriteResult> {
    return client.connection.rewrite({
      sessionId: client.controller.sessionId ?? '',
      prompt: [{ type: 'text', text }],
      target: { userOrdinal, ...(rowId !== undefined ? { rowId } : {}) },
      confirmDeepCut: (q) => Promise.resolve(confirm(q)),
    });
  }

  async function threeTurns(): Promise<void> {
    await client.controller.start();
    for (const text of ['one', 'two', 'three']) {
      assert.equal((await client.controller.prompt([{ type: 'text', text }])).kind, 'ended');
    }
  }

  setup(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'gateway-rewrite-'));
    recordFile = path.join(dir, 'record.jsonl');
    client = await open();
  });

  teardown(async () => {
    client.controller.dispose();
    await client.connection.dispose();
    rmSync(dir, { recursive: true, force: true });
  });

  test('rewriting the second-to-last user message asks first, then cuts by row id with confirm_deep_truncate', async () => {
    await threeTurns();
    assert.ok(canRewrite(client.connection));
    const asked: DeepCutQuestion[] = [];
    const result = await rewrite('two, edited', 1, (q) => asked.push(q) > 0);
    assert.equal(result.kind, 'rewritten');
    assert.deepEqual(asked.map((q) => q.userTurnsCut), [2], 'two user turns are archived: the user was asked once');
    const history = submits();
    const sent = history[history.length - 1] ?? {};
    assert.equal(sent.confirm_truncate, true);
    assert.equal(sent.confirm_deep_truncate, true);
    assert.equal(typeof sent.truncate_before_row_id, 'number', 'the durable row id is preferred');
    assert.equal(sent.truncate_before_user_ordinal, undefined, 'never both (4030 when they disagree)');
    assert.equal(sent.confirm_empty_truncate, undefined, 'one user turn survives');
    await until('the rewritten reply', () => assistantText(client.controller.state.entries).includes('Echo: two, edited') || undefined);
  });

  test('a deep cut the user declines sends nothing and leaves the history alone', async () => {
    await threeTurns();
    const before = submits().length;
    const result = await rewrite('one, edited', 0, () => false);
    assert.equal(result.kind, 'declined');
    assert.equal(submits().length, before);
    assert.equal(client.connection.userRowIds(client.controller.sessionId ?? '').length, 3);
  });

  test('regenerating the last turn needs no deep confirmation', async () => {
    await threeTurns();
    let asked = false;
    const result = await rewrite('three', 2, () => (asked = true));
    assert.equal(result.kind, 'rewritten');
    assert.equal(asked, false);
    assert.equal(submits().at(-1)?.confirm_deep_truncate, undefined, 'confirm_deep_truncate only after asking');
  });

  test('a busy session (4009) is interrupted and the same submit retried; the cut it then needs is confirmed first', async () => {
    await threeTurns();
    const running = client.controller.prompt([{ type: 'text', text: 'a long one [slow]' }]);
    await until('the slow turn to stream', () => assistantText(client.controller.state.entries).includes('tick 2') || undefined);
    // Regenerating "three" while "a long one" runs: only one user turn is cut, so nobody is asked yet.
    const asked: DeepCutQuestion[] = [];
    const result = await rewrite('three, edited', 2, (q) => asked.push(q) > 0);
    assert.equal(result.kind, 'rewritten');
    assert.equal(result.kind === 'rewritten' ? result.interrupts : -1, 1);
    const turn = await running;
    assert.equal(turn.kind === 'ended' ? turn.stopReason : turn.kind, 'cancelled', 'the busy turn ended interrupted');
    const truncating = submits().filter((p) => p.confirm_truncate === true);
    assert.equal(truncating.length, 3, 'busy (4009), then deep (4033), then landed');
    assert.deepEqual(truncating[0], truncating[1], 'after the interrupt the very same submit was retried');
    // The interrupted turn joined the history, so the same cut now archives two user turns: the
    // gateway refused it unconfirmed (4033) and the user was asked with the gateway's count.
    assert.deepEqual(asked.map((q) => q.userTurnsCut), [2]);
    assert.equal(truncating[1]?.confirm_deep_truncate, undefined);
    assert.deepEqual(truncating[2], { ...truncating[1], confirm_deep_truncate: true });
    await until('the rewritten reply', () => assistantText(client.controller.state.entries).includes('Echo: three, edited') || undefined);
  });

  test('row ids are rebound from survivor_user_row_ids; a stale id is refused with 4018', async () => {
    await threeTurns();
    const sessionId = client.controller.sessionId ?? '';
    const first = await rewrite('three again', 2);
    assert.equal(first.kind, 'rewritten');
    const oldIds = submits().at(-1);
    const survivors = first.kind === 'rewritten' ? first.survivorRowIds : [];
    assert.equal(survivors.length, 2);
    assert.ok(survivors.every((id) => typeof id === 'number'));
    const book = client.connection.userRowIds(sessionId);
    assert.deepEqual(book.slice(0, 2), survivors, 'the cached ids are the survivors’ new ones');
    assert.equal(book[2], null, 'the rewritten turn has no durable id yet');
    // The id the first rewrite targeted belonged to the old rows: reusing it is refused, not re-aimed.
    const stale = Number(oldIds?.truncate_before_row_id);
    await assert.rejects(rewrite('x', 2, () => true, stale), (e: unknown) => TransportRpcError.hasCode(e, 4018));
    await until('the turn to end', () => assistantText(client.controller.state.entries).includes('Echo: three again') || undefined);
    // The rebound id of an older surviving turn works.
    const again = await rewrite('two, second edit', 1);
    assert.equal(again.kind, 'rewritten');
    assert.equal(submits().at(-1)?.truncate_before_row_id, survivors[1]);
  });

  test('a model the provider cannot serve is refused with the suggestions as a typed error', async () => {
    client.controller.dispose();
    await client.connection.dispose();
    client = await open({ model: 'gpt-5.5', provider: 'anthropic' });
    await assert.rejects(client.controller.start(), (e: unknown) => {
      assert.ok(ModelMismatchError.is(e));
      assert.equal(e.model, 'gpt-5.5');
      assert.equal(e.provider, 'anthropic');
      assert.equal(e.suggestions.length, 5);
      assert.ok(e.suggestions.includes('claude-sonnet-4.6'));
      return true;
    });
    const create = readFileSync(recordFile, 'utf8').split('\n').find((l) => l.includes('"session.create"'));
    assert.match(create ?? '', /"model":"gpt-5\.5","provider":"anthropic"/);
  });
});
