/**
 * API Server adapter against Hermes v0.19.0's API Server as recorded (test/fixtures/hermes-api-server/,
 * replayed by fakeApiServer.js): chat completions whose `hermes.tool.progress` frames become
 * tool-call entries and never text, with their arguments and results read from the stored session
 * (a dangerous command parked, not run); usage from the last chunk and `run.completed`; failures,
 * cancel and a lost connection; the key sent but never logged; the runs API with approvals answered
 * through the permission port. `resolve-unknown` is the documented newer API (`--generation next`).
 */
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ApiServerConnection, type ApiServerOptions } from '../../../src/transports/apiServer/apiServerConnection';
import { HttpStatusError, NotSupportedError, TransportClosedError } from '../../../src/agentPort/transportErrors';
import { canRecoverRuns, describeTransport } from '../../../src/agentPort/transport';
import { until } from '../../support/wait';
import { assistantText, clientPorts, FakeProcess, fakeApiServerJs, makeClient, newLog, tools, type Client } from './transportRig';

const key = 'sk-fake-api-server-key-5678';

suite('transports / API Server, Hermes v0.19.0 (replayed recordings)', function () {
  this.timeout(30_000);
  let dir: string;
  let recordFile: string;
  let server: FakeProcess;
  let baseUrl: string;
  const clients: Client<ApiServerConnection>[] = [];

  async function open(extra: Partial<ApiServerOptions> = {}): Promise<Client<ApiServerConnection>> {
    const log = newLog();
    const wiring = clientPorts();
    const connection = new ApiServerConnection({ target: { baseUrl, apiKey: key }, log, ports: wiring.ports, ...extra });
    await connection.connect();
    const client = makeClient(connection, log, wiring);
    clients.push(client);
    await client.controller.start();
    return client;
  }

  function recorded(): { method: string; path: string; authorized: boolean; sessionHeader?: string; body?: Record<string, unknown>; event?: string }[] {
    return readFileSync(recordFile, 'utf8')
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as never);
  }

  function footerUsage(client: Client<ApiServerConnection>): unknown {
    const footer = client.controller.state.entries.filter((e) => e.kind === 'turnEnd').at(-1);
    return footer?.kind === 'turnEnd' ? footer.usage : undefined;
  }

  suiteSetup(async () => {
    dir = realpathSync(mkdtempSync(path.join(tmpdir(), 'api-server-')));
    recordFile = path.join(dir, 'record.jsonl');
    server = new FakeProcess(fakeApiServerJs, ['--key', key], { FAKE_API_RECORD: recordFile });
    baseUrl = `http://127.0.0.1:${(await server.ready).port}`;
  });

  teardown(() => {
    for (const c of clients.splice(0)) {
      c.controller.dispose();
      c.connection.dispose();
    }
  });

  suiteTeardown(async () => {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  test('a streamed chat turn: the text, this request’s tokens, Hermes’ version and model', async () => {
    const client = await open();
    assert.equal(client.connection.agent?.agentInfo?.version, '0.19.0');
    assert.equal(client.controller.state.models?.currentModelId, 'hermes-agent');
    const turn = await client.controller.prompt([{ type: 'text', text: '[plain] Say hello.' }]);
    assert.equal(turn.kind, 'ended');
    assert.equal(assistantText(client.controller.state.entries), 'Hello from the fake model!');
    assert.deepEqual(footerUsage(client), { inputTokens: 1234, outputTokens: 56, totalTokens: 1290 });
  });

  test('the key is sent as a bearer token but never logged; the session id rides in X-Hermes-Session-Id', async () => {
    const client = await open();
    await client.controller.prompt([{ type: 'text', text: '[plain] hello' }]);
    await client.controller.prompt([{ type: 'text', text: '[plain] again' }]);
    const chats = recorded().filter((r) => r.path === '/v1/chat/completions' && r.sessionHeader === client.controller.sessionId);
    assert.equal(chats.length, 2);
    assert.ok(chats.every((r) => r.authorized));
    assert.deepEqual(chats[1]?.body?.messages, [
      { role: 'user', content: '[plain] hello' },
      { role: 'assistant', content: 'Hello from the fake model!' },
      { role: 'user', content: '[plain] again' },
    ]);
    assert.ok(!client.log.toJsonl().includes(key));
  });

  test('a wrong key fails at connect with Hermes’ answer and what to check', async () => {
    const connection = new ApiServerConnection({ target: { baseUrl, apiKey: 'wrong' }, log: newLog(), ports: clientPorts().ports });
    await assert.rejects(connection.connect(), (e: unknown) => HttpStatusError.is(e) && e.status === 401 && e.message.includes('Invalid API key') && e.message.includes('API_SERVER_KEY'));
  });

  test('a dangerous command over chat completions is parked, not run: the card fails with Hermes’ reason and the command as its input', async () => {
    const client = await open();
    const victim = path.join(dir, 'victim');
    mkdirSync(path.join(victim, 'sub'), { recursive: true });
    const turn = await client.controller.prompt([{ type: 'text', text: `[terminal cmd=rm -r ${victim}] Clean up.` }]);
    assert.equal(turn.kind, 'ended');
    const [card] = tools(client.controller.state.entries);
    assert.equal(card?.status, 'failed');
    assert.deepEqual(card?.rawInput, { command: `rm -r ${victim}` });
    assert.equal(card?.progress?.emoji, '💻', 'emoji and label come from the progress frames');
    assert.match(JSON.stringify(card?.content), /Not run: Hermes holds it for approval \(delete in root path\)/);
    assert.ok(existsSync(victim));
    assert.ok(recorded().some((r) => r.path?.startsWith('/api/sessions/') && r.path.endsWith('/messages')));
  });

  test('tool progress becomes a tool card with its arguments from the stored session, never assistant text', async () => {
    const client = await open();
    const file = path.join(dir, 'hello.txt');
    await client.controller.prompt([{ type: 'text', text: `[edit path=${file}] Replace world.` }]);
    const [card] = tools(client.controller.state.entries);
    assert.deepEqual([card?.name, card?.toolKind, card?.status], ['patch', 'edit', 'completed']);
    assert.deepEqual(card?.rawInput, { mode: 'replace', path: file, old_string: 'world', new_string: 'ACP' });
    assert.ok(!assistantText(client.controller.state.entries).includes('patch'));
    assert.deepEqual(client.controller.state.entries.map((e) => e.kind).slice(0, 3), ['user', 'tool', 'assistant']);
  });

  test('a provider rate limit ends the turn failed with Hermes’ message (HTTP 200 with finish_reason error)', async () => {
    const client = await open();
    const turn = await client.controller.prompt([{ type: 'text', text: '[ratelimit] hi' }]);
    assert.equal(turn.kind, 'failed');
    assert.match(String(turn.kind === 'failed' ? turn.error : ''), /HTTP 429: Rate limit reached/);
  });

  test('cancel drops the stream; the server sees the disconnect and the turn ends cancelled', async () => {
    const client = await open();
    const turn = client.controller.prompt([{ type: 'text', text: '[slow] count' }]);
    await until('streaming', () => assistantText(client.controller.state.entries).includes('tick 1') || undefined);
    assert.ok(await client.controller.cancel());
    const ended = await turn;
    assert.equal(ended.kind === 'ended' ? ended.stopReason : ended.kind, 'cancelled');
    await until('the server to notice', () => recorded().some((r) => r.event === 'client disconnected') || undefined);
  });

  test('a server that goes away mid-stream: the turn fails and says which server was lost', async () => {
    const client = await open();
    const turn = await client.controller.prompt([{ type: 'text', text: '[plain] [cut] hi' }]);
    assert.ok(turn.kind === 'failed' || turn.kind === 'interrupted', turn.kind);
    const error = turn.kind === 'failed' || turn.kind === 'interrupted' ? turn.error : undefined;
    assert.ok(TransportClosedError.is(error), String(error));
    assert.match(error.message, new RegExp(`Lost the connection to the API server at ${baseUrl.replace(/[.]/g, '\\.')}`));
  });

  for (const [choice, removed] of [
    ['once', true],
    ['deny', false],
  ] as const) {
    test(`runs mode: an approval answered "${choice}" through the permission port; the call’s input from the stored session`, async () => {
      const client = await open({ mode: 'runs' });
      const victim = path.join(dir, `victim-${choice}`);
      mkdirSync(path.join(victim, 'sub'), { recursive: true });
      const turn = client.controller.prompt([{ type: 'text', text: `[terminal cmd=rm -r ${victim}] Clean up.` }]);
      await until('the permission card', () => client.permissions.length > 0 || undefined);
      const card = client.permissions[0];
      assert.deepEqual(card?.request.options.map((o) => o.optionId), ['once', 'session', 'always', 'deny']);
      assert.ok(client.controller.choosePermission(card?.requestId ?? '', choice));
      const ended = await turn;
      assert.equal(ended.kind, 'ended');
      assert.match(assistantText(client.controller.state.entries), /The command finished\./);
      const [tool] = tools(client.controller.state.entries);
      assert.equal(tool?.status, choice === 'once' ? 'completed' : 'failed', 'run tool events say whether the tool failed');
      assert.deepEqual(tool?.rawInput, { command: `rm -r ${victim}` });
      assert.equal(existsSync(victim), !removed);
      const approval = recorded().filter((r) => r.path?.endsWith('/approval')).at(-1);
      assert.deepEqual(approval?.body, { choice });
      assert.deepEqual(footerUsage(client), { inputTokens: 2468, outputTokens: 112, totalTokens: 2580 });
    });
  }

  test('runs mode: cancel stops the run', async () => {
    const client = await open({ mode: 'runs' });
    const turn = client.controller.prompt([{ type: 'text', text: '[slow] count' }]);
    await until('streaming', () => assistantText(client.controller.state.entries).includes('tick 2') || undefined);
    await client.controller.cancel();
    const ended = await turn;
    assert.equal(ended.kind === 'ended' ? ended.stopReason : ended.kind, 'cancelled');
    assert.ok(recorded().some((r) => r.path?.endsWith('/stop')));
  });

  test('runs mode: a provider rate limit fails the run with Hermes’ message', async () => {
    const client = await open({ mode: 'runs' });
    const turn = await client.controller.prompt([{ type: 'text', text: '[ratelimit] hi' }]);
    assert.equal(turn.kind, 'failed');
    assert.match(String(turn.kind === 'failed' ? turn.error : ''), /HTTP 429: Rate limit reached/);
  });

  test('v0.19.0 has no run_unknown_resolution: the recovery is not offered', async () => {
    const client = await open({ mode: 'runs' });
    assert.equal(describeTransport(client.connection).capabilities.runRecovery, false);
    assert.equal(canRecoverRuns(client.connection), false);
    await assert.rejects(client.connection.resolveUnknownRun('run_lost'), (e: unknown) => NotSupportedError.is(e));
  });
});

suite('transports / API Server, the documented newer API (no recording)', () => {
  test('a run whose state was lost is settled with resolve-unknown, exactly once', async () => {
    const dir = mkdtempSync(path.join(tmpdir(), 'api-next-'));
    const recordFile = path.join(dir, 'record.jsonl');
    const next = new FakeProcess(fakeApiServerJs, ['--generation', 'next'], { FAKE_API_RECORD: recordFile });
    try {
      const connection = new ApiServerConnection({ target: { baseUrl: `http://127.0.0.1:${(await next.ready).port}/v1` }, log: newLog(), ports: clientPorts().ports, mode: 'runs' });
      await connection.connect();
      assert.ok(canRecoverRuns(connection));
      assert.equal(describeTransport(connection).capabilities.toolProgress, true);
      const settled = await connection.resolveUnknownRun('run_lost');
      assert.deepEqual(settled, { runId: 'run_lost', admissionId: 'adm-7', status: 'terminal', outcome: 'interrupted' });
      const sent = readFileSync(recordFile, 'utf8')
        .split('\n')
        .filter((l) => l !== '')
        .map((l) => JSON.parse(l) as { path?: string; body?: unknown })
        .find((r) => r.path === '/v1/runs/run_lost/resolve-unknown');
      assert.deepEqual(sent?.body, { admission_id: 'adm-7', execution_generation: 3 }, 'exactly as the status gave them');
      await assert.rejects(connection.resolveUnknownRun('run_lost'), (e: unknown) => HttpStatusError.is(e) && e.status === 409 && e.code === 'stale_generation');
      connection.dispose();
    } finally {
      await next.stop();
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
