import * as acp from '@agentclientprotocol/sdk';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fixturePath, ProcessPool, RawPeer, replayAgentJs, TestClient, withTimeout } from './agentHarness';

const hermesSessionId = '8be82f21-d9fd-429c-a878-1b6526473740';

/** The raw `msg` text of fixture line `n` (1-based), cut the same way a reader of the file would. */
function recordedMsg(file: string, n: number): string {
  const line = readFileSync(file, 'utf8').split('\n')[n - 1] ?? '';
  const start = line.indexOf('"msg": ') + '"msg": '.length;
  return line.slice(start, line.length - 1);
}

suite('replay agent', () => {
  const pool = new ProcessPool();
  teardown(() => pool.killAll());

  test('replays hermes/main.jsonl initialize, session/new and the first prompt with live ids', async () => {
    const proc = pool.spawn(replayAgentJs, [fixturePath('hermes', 'main.jsonl'), '--lab', '/tmp/lab']);
    const client = new TestClient(proc);
    // The SDK client numbers its requests from 0; the recording used 1, 2, 3, 4.
    const init = await client.initialize({ fs: { readTextFile: true, writeTextFile: true }, terminal: true });
    assert.equal(init.protocolVersion, 1);
    assert.deepEqual(init.agentInfo, { name: 'hermes-agent', version: '0.19.0' });
    const session = await client.agent.request('session/new', { cwd: '/tmp/lab/ws', mcpServers: [] });
    assert.equal(session.sessionId, hermesSessionId);
    assert.equal(session.modes?.currentModeId, 'default');
    assert.deepEqual(await client.agent.request('authenticate', { methodId: 'custom' }), {});
    const r = await client.agent.request('session/prompt', { sessionId: hermesSessionId, prompt: [{ type: 'text', text: '[plain] Say hello.' }] });
    assert.equal(r.stopReason, 'end_turn');
    assert.deepEqual((r as Record<string, unknown>).usage, {
      cachedReadTokens: 0,
      inputTokens: 1234,
      outputTokens: 56,
      thoughtTokens: 0,
      totalTokens: 1290,
    });
    assert.equal(client.messageText(hermesSessionId), 'Hello from the fake model!');
    const kinds = client.updates(hermesSessionId).map((u) => u.sessionUpdate);
    assert.deepEqual(kinds.slice(0, 3), ['available_commands_update', 'usage_update', 'agent_thought_chunk']);
    await proc.waitForStderr(/\[replay-agent\] line 22: send response to recorded id 4 as live id 3/);
  });

  test('sends recorded frames byte for byte, maps <LAB> and keeps agent request ids', async () => {
    const file = fixturePath('hermes', 'main.jsonl');
    const proc = pool.spawn(replayAgentJs, [file, '--lab', '/work/lab']);
    const peer = new RawPeer(proc);
    peer.send({ jsonrpc: '2.0', id: 'init-A', method: 'initialize', params: { protocolVersion: 1 } });
    const initLine = await peer.waitForLine((l) => l.includes('"init-A"'));
    assert.equal(initLine, recordedMsg(file, 3).replace('"id": 1,', '"id": "init-A",'));

    peer.send({ jsonrpc: '2.0', id: 7, method: 'session/new', params: { cwd: '/work/lab/ws', mcpServers: [] } });
    peer.send({ jsonrpc: '2.0', id: 8, method: 'authenticate', params: { methodId: 'custom' } });
    peer.send({ jsonrpc: '2.0', id: 9, method: 'session/prompt', params: { sessionId: hermesSessionId, prompt: [] } });
    await peer.waitForLine((l) => l.startsWith('{"jsonrpc": "2.0", "id": 9, "result"'));
    // Prompt 2 (edit): the permission request keeps its recorded id 0 and gets the lab path.
    peer.send({ jsonrpc: '2.0', id: 10, method: 'session/prompt', params: { sessionId: hermesSessionId, prompt: [] } });
    const permission = await peer.waitForLine((l) => l.includes('"method": "session/request_permission"'));
    assert.ok(permission.startsWith('{"jsonrpc": "2.0", "id": 0, "method": "session/request_permission"'));
    assert.ok(permission.includes('"path": "/work/lab/ws/hello.txt"'));
    assert.ok(!permission.includes('<LAB>'));
    // The replay waits for the client's answer before the rest of the turn.
    await new Promise((r) => setTimeout(r, 100));
    assert.ok(!peer.lines.some((l) => l.includes('"id": 10, "result"')));
    peer.send({ jsonrpc: '2.0', id: 0, result: { outcome: { outcome: 'selected', optionId: 'allow_once' } } });
    const done = await peer.waitForLine((l) => l.includes('"id": 10, "result"'));
    assert.ok(done.includes('"stopReason": "end_turn"'));
  });

  test('answers requests that do not follow the recording with -32601', async () => {
    const proc = pool.spawn(replayAgentJs, [fixturePath('hermes', 'nocreds.jsonl')]);
    const client = new TestClient(proc);
    await client.initialize();
    await assert.rejects(
      client.agent.request('session/list', {}),
      (err: unknown) => err instanceof acp.RequestError && err.code === -32601,
    );
    await proc.waitForStderr(/live session\/list id=1 does not match the recording/);
  });

  test('--segment 2 plays the second agent process of claude-main (session/load replay)', async () => {
    const proc = pool.spawn(replayAgentJs, [fixturePath('agents', 'claude-main.jsonl'), '--segment', '2', '--map', '/tmp/ws/claude=/srv/ws']);
    const client = new TestClient(proc);
    const init = await client.initialize();
    assert.equal(init.agentInfo?.name, '@zed-industries/claude-agent-acp');
    const sessionId = 'a020c1a3-0514-4b6d-a6cb-430f565e4d15';
    await client.agent.request('session/load', { sessionId, cwd: '/srv/ws', mcpServers: [] });
    client.mark('response');
    const before = client.events.slice(0, client.events.findIndex((e) => e.kind === 'mark'));
    assert.ok(before.length > 20, `only ${before.length} updates replayed before the load response`);
    const paths = JSON.stringify(client.updates(sessionId));
    assert.ok(!paths.includes('/tmp/ws/claude') && paths.includes('/srv/ws/hello.txt'));
    const exit = await withTimeout(proc.exited, 5000, 'replay agent exit');
    assert.equal(exit.code, 0);
  });

  test('plays the SDK example agent permission round trip and exits 0 when the recording ends', async () => {
    const proc = pool.spawn(replayAgentJs, [fixturePath('agents', 'sdk-example-agent.jsonl')]);
    const client = new TestClient(proc);
    await client.initialize();
    const { sessionId } = await client.agent.request('session/new', { cwd: '/tmp/ws/sdk-example', mcpServers: [] });
    const turn = client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Hi' }] });
    const perm = await client.nextPermission();
    perm.answer({ outcome: { outcome: 'selected', optionId: 'allow' } });
    assert.equal((await turn).stopReason, 'end_turn');
    assert.equal((await withTimeout(proc.exited, 5000, 'exit')).code, 0);
  });

  test('waits for the recorded session/cancel before answering the prompt cancelled', async () => {
    const proc = pool.spawn(replayAgentJs, [fixturePath('agents', 'claude-cancel-error.jsonl')]);
    const client = new TestClient(proc);
    await client.initialize();
    const { sessionId } = await client.agent.request('session/new', { cwd: '/tmp/ws/claude', mcpServers: [] });
    const turn = client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'Stream slowly.' }] });
    await proc.waitForStderr(/waiting up to 5 s for a live session\/cancel notification/);
    let settled = false;
    void turn.finally(() => (settled = true));
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(settled, false, 'the prompt must not end before the cancel');
    await client.agent.notify('session/cancel', { sessionId });
    assert.equal((await withTimeout(turn, 2000, 'cancelled prompt')).stopReason, 'cancelled');
  });
});
