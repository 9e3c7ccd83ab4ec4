/**
 * API Server adapter against the fake API Server process: a chat-completions stream whose
 * `hermes.tool.progress` frames become tool-call entries and never text; failures, cancel and a
 * cut stream; the key is sent but never logged; the runs API with an approval answered through the
 * permission port, and `resolve-unknown` behind `features.run_unknown_resolution`.
 */
import * as assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ApiServerConnection, type ApiServerOptions } from '../../../src/transports/apiServer/apiServerConnection';
import { HttpStatusError, NotSupportedError } from '../../../src/agentPort/transportErrors';
import { canRecoverRuns, describeTransport } from '../../../src/agentPort/transport';
import { until } from '../../support/wait';
import { assistantText, clientPorts, FakeProcess, fakeApiServerJs, makeClient, newLog, tools, type Client } from './transportRig';

const key = 'sk-fake-api-server-key-5678';

suite('transports / API Server', () => {
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

  suiteSetup(async () => {
    dir = mkdtempSync(path.join(tmpdir(), 'api-server-'));
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

  test('tool progress becomes tool-call entries with emoji and label, never assistant text', async () => {
    const client = await open();
    const turn = await client.controller.prompt([{ type: 'text', text: 'find the sources [tools]' }]);
    assert.equal(turn.kind, 'ended');
    const entries = client.controller.state.entries;
    assert.equal(assistantText(entries), 'Let me look. Found 3 files.', 'the text is only the chat deltas');
    const calls = tools(entries);
    assert.deepEqual(
      calls.map((t) => [t.toolCallId, t.title, t.name, t.toolKind, t.rawInput]),
      [
        ['call_1', '*.ts', 'search_files', 'search', { tool: 'search_files', emoji: '🔎', label: '*.ts' }],
        ['call_2', 'ls -F', 'terminal', 'execute', { tool: 'terminal', emoji: '💻', label: 'ls -F' }],
      ],
    );
    // `completed` is a lifecycle marker: no call is claimed successful; the turn's end closes them.
    assert.deepEqual(calls.map((t) => t.status), ['ended', 'ended']);
    const kinds = entries.map((e) => e.kind);
    assert.deepEqual(kinds.slice(0, 5), ['user', 'assistant', 'tool', 'tool', 'assistant'], 'the cards sit between the text they interrupted');
    assert.ok(!JSON.stringify(entries.filter((e) => e.kind === 'assistant')).includes('search_files'));
  });

  test('the key is sent as a bearer token but never logged; the session id rides in X-Hermes-Session-Id', async () => {
    const client = await open();
    await client.controller.prompt([{ type: 'text', text: 'hello' }]);
    await client.controller.prompt([{ type: 'text', text: 'again' }]);
    assert.equal(assistantText(client.controller.state.entries), 'Echo: helloEcho: again');
    const chats = recorded().filter((r) => r.path === '/v1/chat/completions' && r.sessionHeader === client.controller.sessionId);
    assert.equal(chats.length, 2);
    assert.ok(chats.every((r) => r.authorized));
    assert.deepEqual(chats[1]?.body?.messages, [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'Echo: hello' },
      { role: 'user', content: 'again' },
    ]);
    assert.ok(!client.log.toJsonl().includes(key));
    assert.ok(!client.log.snapshot().some((e) => e.text.includes(key)));
  });

  test('a wrong key fails at connect with what to check', async () => {
    const connection = new ApiServerConnection({ target: { baseUrl, apiKey: 'wrong' }, log: newLog(), ports: clientPorts().ports });
    await assert.rejects(connection.connect(), (e: unknown) => HttpStatusError.is(e) && e.status === 401 && e.message.includes('API key'));
  });

  test('a failed run ends the turn with the server’s error; a stream cut short is an error too', async () => {
    const client = await open();
    const failed = await client.controller.prompt([{ type: 'text', text: '[fail]' }]);
    assert.equal(failed.kind, 'failed');
    assert.ok(client.controller.state.entries.some((e) => e.kind === 'turnEnd' && e.error === 'provider exploded'));
    const cut = await client.controller.prompt([{ type: 'text', text: '[cut]' }]);
    assert.equal(cut.kind, 'failed');
  });

  test('cancel drops the stream; the server sees the disconnect and the turn ends cancelled', async () => {
    const client = await open();
    const turn = client.controller.prompt([{ type: 'text', text: 'go on [slow]' }]);
    await until('streaming', () => assistantText(client.controller.state.entries).includes('tick 3') || undefined);
    assert.ok(await client.controller.cancel());
    const ended = await turn;
    assert.equal(ended.kind === 'ended' ? ended.stopReason : ended.kind, 'cancelled');
    await until('the server to notice', () => recorded().some((r) => r.event === 'client disconnected') || undefined);
  });

  test('runs mode: an approval is answered through the permission port and tool events carry outcomes', async () => {
    const client = await open({ mode: 'runs' });
    const turn = client.controller.prompt([{ type: 'text', text: 'clean [approval]' }]);
    await until('the permission card', () => client.permissions.length > 0 || undefined);
    const card = client.permissions[0];
    assert.deepEqual(card?.request.options.map((o) => o.optionId), ['once', 'session', 'always', 'deny']);
    assert.ok(client.controller.choosePermission(card?.requestId ?? '', 'deny'));
    const ended = await turn;
    assert.equal(ended.kind, 'ended');
    assert.equal(assistantText(client.controller.state.entries), 'approval: deny');
    const [tool] = tools(client.controller.state.entries);
    assert.equal(tool?.title, 'rm -rf build');
    assert.equal(tool?.status, 'failed', 'run tool events say whether the tool failed');
    assert.equal(tool?.permission?.optionId, 'deny');
    const approval = recorded().find((r) => r.path?.endsWith('/approval'));
    assert.deepEqual(approval?.body, { choice: 'deny', request_id: 'appr-1' });
  });

  test('runs mode: cancel stops the run', async () => {
    const client = await open({ mode: 'runs' });
    const turn = client.controller.prompt([{ type: 'text', text: '[slow]' }]);
    await until('streaming', () => assistantText(client.controller.state.entries).includes('tick 2') || undefined);
    await client.controller.cancel();
    const ended = await turn;
    assert.equal(ended.kind === 'ended' ? ended.stopReason : ended.kind, 'cancelled');
    assert.ok(recorded().some((r) => r.path?.endsWith('/stop')));
  });

  test('a run whose state was lost is settled with resolve-unknown, exactly once', async () => {
    const client = await open({ mode: 'runs' });
    assert.ok(canRecoverRuns(client.connection));
    assert.equal(describeTransport(client.connection).capabilities.toolProgress, true);
    const settled = await client.connection.resolveUnknownRun('run_lost');
    assert.deepEqual(settled, { runId: 'run_lost', admissionId: 'adm-7', status: 'terminal', outcome: 'interrupted' });
    const sent = recorded().find((r) => r.path === '/v1/runs/run_lost/resolve-unknown');
    assert.deepEqual(sent?.body, { admission_id: 'adm-7', execution_generation: 3 }, 'exactly as the status gave them');
    // Settled: the compare-and-set refuses a second settlement (the status moved on).
    await assert.rejects(client.connection.resolveUnknownRun('run_lost'), (e: unknown) => HttpStatusError.is(e) && e.status === 409 && e.code === 'stale_generation');
  });

  test('without features.run_unknown_resolution the recovery is not offered', async () => {
    const other = new FakeProcess(fakeApiServerJs, ['--no-resolve']);
    try {
      const connection = new ApiServerConnection({ target: { baseUrl: `http://127.0.0.1:${(await other.ready).port}/v1` }, log: newLog(), ports: clientPorts().ports });
      await connection.connect();
      assert.equal(describeTransport(connection).capabilities.runRecovery, false);
      assert.equal(canRecoverRuns(connection), false);
      await assert.rejects(connection.resolveUnknownRun('run_lost'), (e: unknown) => NotSupportedError.is(e));
      connection.dispose();
    } finally {
      await other.stop();
    }
  });
});
