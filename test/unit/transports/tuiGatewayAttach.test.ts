/**
 * TUI Gateway over WebSocket against one fake gateway process serving several clients: two clients
 * attached to one live session both see the stream; either can answer an approval and the other's
 * card clears on `request.cancel`; a client attaching while a question is open re-renders it from
 * `open_requests` and can answer it; disconnecting one client does not end the session.
 */
import * as assert from 'node:assert/strict';
import { canAttach } from '../../../src/agentPort/transport';
import { connectTuiGateway } from '../../../src/transports/tuiGateway/connectTuiGateway';
import type { TuiGatewayConnection } from '../../../src/transports/tuiGateway/tuiGatewayConnection';
import { until } from '../../support/wait';
import { assistantText, clientPorts, FakeProcess, fakeTuiGatewayJs, makeClient, newLog, tools, userTexts, waitForText, type Client } from './transportRig';

const token = 'fake-dashboard-token-1234';

suite('transports / TUI Gateway: attached clients over WebSocket', () => {
  let gateway: FakeProcess;
  let url: string;
  const clients: Client<TuiGatewayConnection>[] = [];

  async function connect(): Promise<Client<TuiGatewayConnection>> {
    const log = newLog();
    const wiring = clientPorts();
    const connection = await connectTuiGateway({ kind: 'websocket', url, token }, { log, ports: wiring.ports });
    const client = makeClient(connection, log, wiring);
    clients.push(client);
    return client;
  }

  /** A second client attached to `owner`'s live session, as "Attach to a running Hermes session…" will. */
  async function attachTo(owner: Client<TuiGatewayConnection>): Promise<Client<TuiGatewayConnection>> {
    const client = await connect();
    assert.ok(canAttach(client.connection));
    const live = await client.connection.listLiveSessions();
    const target = live.find((s) => s.sessionId === owner.controller.sessionId);
    assert.ok(target !== undefined, 'the live session is listed');
    assert.ok(target.storedSessionId !== undefined && target.storedSessionId !== target.sessionId, 'with its stored id (session_key), which session.list uses');
    assert.ok((await client.connection.listSessions({ cwd: '/' })).sessions.some((p) => p.sessionId === target.storedSessionId));
    await client.controller.load(target.sessionId);
    return client;
  }

  suiteSetup(async () => {
    gateway = new FakeProcess(fakeTuiGatewayJs, ['--ws', '--token', token, '--generation', 'next'], { FAKE_GATEWAY_DELAY_MS: '2' });
    url = `ws://127.0.0.1:${(await gateway.ready).port}/api/ws`;
  });

  teardown(async () => {
    for (const c of clients.splice(0)) {
      c.controller.dispose();
      await c.connection.dispose();
    }
  });

  suiteTeardown(async () => {
    await gateway.stop();
  });

  test('declares server requests after gateway.ready; a wrong token is refused with a clear error', async () => {
    const a = await connect();
    const frames = a.log.snapshot().filter((e) => e.dir === 'in' || e.dir === 'out');
    assert.match(frames[0]?.text ?? '', /gateway\.ready/);
    assert.equal(frames[1]?.method, 'client.capabilities');
    assert.deepEqual((JSON.parse(frames[1]?.text ?? '{}') as { params: unknown }).params, { server_requests: true });
    assert.ok(!a.log.snapshot().some((e) => e.text.includes(token)), 'the token is not logged');
    await assert.rejects(connectTuiGateway({ kind: 'websocket', url, token: 'wrong' }, { log: newLog(), ports: clientPorts().ports }), /HTTP 403.*token/);
  });

  test('two clients attached to one live session both see the stream, including each other’s prompts', async () => {
    const a = await connect();
    await a.controller.start();
    const b = await attachTo(a);
    await a.controller.prompt([{ type: 'text', text: 'hello from A' }]);
    await waitForText(b, 'Echo: hello from A');
    assert.deepEqual(userTexts(b.controller.state.entries), ['hello from A'], 'B shows the prompt A sent');
    assert.equal(assistantText(a.controller.state.entries), 'Echo: hello from A');
    // B steers the same session; A sees it.
    await b.controller.prompt([{ type: 'text', text: 'and from B' }]);
    await waitForText(a, 'Echo: and from B');
    assert.deepEqual(userTexts(a.controller.state.entries), ['hello from A', 'and from B']);
    assert.deepEqual(userTexts(b.controller.state.entries), ['hello from A', 'and from B'], 'no prompt is shown twice');
  });

  for (const answerer of ['B', 'A'] as const) {
    test(`either client can answer an approval — ${answerer} answers, the other’s card clears on request.cancel`, async () => {
      const a = await connect();
      await a.controller.start();
      const b = await attachTo(a);
      const turn = a.controller.prompt([{ type: 'text', text: 'clean up [approval]' }]);
      await until('both permission cards', () => (a.permissions.length > 0 && b.permissions.length > 0) || undefined);
      const [winner, other] = answerer === 'B' ? [b, a] : [a, b];
      const request = winner.permissions[0];
      assert.ok(request !== undefined);
      assert.deepEqual(
        request.request.options.map((o) => o.optionId),
        ['once', 'session', 'always', 'deny'],
      );
      assert.equal(request.request.toolCall.toolCallId, 'tool-rm', 'the card sits on the announced tool call');
      assert.ok(winner.controller.choosePermission(request.requestId, 'once'));
      assert.equal((await turn).kind, 'ended');
      await waitForText(other, 'approval: once');
      await until('the other card to clear', () => other.controller.pendingPermissions.length === 0 || undefined);
      const otherCard = tools(other.controller.state.entries).find((t) => t.toolCallId === 'tool-rm')?.permission;
      assert.equal(otherCard?.status, 'expired');
      assert.equal(otherCard?.answeredBy, 'the agent withdrew the request');
      assert.equal(tools(winner.controller.state.entries).find((t) => t.toolCallId === 'tool-rm')?.permission?.optionId, 'once');
      assert.ok(!other.log.snapshot().some((e) => e.dir === 'out' && e.method === 'approval'), 'the other client sent no answer');
    });
  }

  test('a client attaching while a question is open re-renders it from open_requests and can answer it', async () => {
    const a = await connect();
    await a.controller.start();
    const turn = a.controller.prompt([{ type: 'text', text: 'clean up [approval]' }]);
    await until('A’s card', () => a.permissions.length > 0 || undefined);
    const b = await attachTo(a);
    await until('B’s re-rendered card', () => b.permissions.length > 0 || undefined);
    assert.ok(b.controller.choosePermission(b.permissions[0]?.requestId ?? '', 'deny'));
    assert.equal((await turn).kind, 'ended');
    assert.ok(assistantText(a.controller.state.entries).includes('approval: deny'));
    const sent = b.log.snapshot().find((e) => e.dir === 'out' && e.method === 'request.answer');
    assert.ok(sent !== undefined, 'answered by id with request.answer');
    await until('A’s card to clear', () => a.controller.pendingPermissions.length === 0 || undefined);
  });

  test('attaching mid-turn shows the turn so far, then follows it without repeating anything', async () => {
    const a = await connect();
    await a.controller.start();
    const turn = a.controller.prompt([{ type: 'text', text: 'count [slow]' }]);
    await until('a few ticks', () => assistantText(a.controller.state.entries).includes('tick 3') || undefined);
    const b = await attachTo(a);
    await until('B to follow', () => assistantText(b.controller.state.entries).includes('tick 6') || undefined);
    await a.controller.cancel();
    assert.equal((await turn).kind, 'ended');
    await until('B to see the end', () => b.controller.state.entries.length > 0 && assistantText(b.controller.state.entries) === assistantText(a.controller.state.entries) || undefined);
    assert.deepEqual(userTexts(b.controller.state.entries), ['count [slow]']);
  });

  test('disconnecting one client does not end the session for the other', async () => {
    const a = await connect();
    await a.controller.start();
    const b = await attachTo(a);
    b.controller.dispose();
    await b.connection.dispose();
    clients.splice(clients.indexOf(b), 1);
    const turn = await a.controller.prompt([{ type: 'text', text: 'still here' }]);
    assert.equal(turn.kind, 'ended');
    assert.ok(assistantText(a.controller.state.entries).includes('Echo: still here'));
  });

  test('a stored session is resumed by its stored id; events reach the id the session layer uses', async () => {
    const a = await connect();
    await a.controller.start();
    await a.controller.prompt([{ type: 'text', text: 'first' }]);
    const b = await connect();
    // The fake pairs runtime id rt-N with stored id st-N.
    const storedId = `st-${String(a.controller.sessionId).slice('rt-'.length)}`;
    assert.ok((await b.connection.listSessions({})).sessions.some((s) => s.sessionId === storedId), 'session.list names it');
    await b.controller.load(storedId);
    assert.deepEqual(userTexts(b.controller.state.entries), ['first'], 'the history was replayed');
    await a.controller.prompt([{ type: 'text', text: 'second' }]);
    await waitForText(b, 'Echo: second');
    assert.equal(b.controller.sessionId, storedId);
  });
});
