/**
 * The TUI Gateway adapter against Hermes v0.19.0 as recorded (test/fixtures/hermes-gateway/,
 * replayed by the fake gateway's default generation): no `client.capabilities`, questions as
 * events answered by `*.respond` calls, the agent built after `session.create`, usage in
 * `message.complete`, arguments only in `tool.complete`, an `error` event that ends the turn.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { TransportRpcError } from '../../../src/agentPort/transportErrors';
import { connectTuiGateway, gatewayCommand } from '../../../src/transports/tuiGateway/connectTuiGateway';
import type { TuiGatewayConnection } from '../../../src/transports/tuiGateway/tuiGatewayConnection';
import { describeTransport } from '../../../src/agentPort/transport';
import { until } from '../../support/wait';
import WebSocket from 'ws';
import { assistantText, clientPorts, FakeProcess, fakeTuiGatewayJs, makeClient, newLog, tools, type Client } from './transportRig';

type Json = Record<string, unknown>;

/** The frames the client sent, from the traffic log (`dir: out`). */
function sent(client: Client<TuiGatewayConnection>, method: string): Json[] {
  return client.log
    .snapshot()
    .filter((e) => e.dir === 'out' && e.method === method)
    .map((e) => JSON.parse(e.text) as Json);
}

function params(frame: Json | undefined): Json {
  return (frame?.params ?? {}) as Json;
}

suite('transports / TUI Gateway, Hermes v0.19.0 (replayed recordings)', function () {
  this.timeout(30_000);
  let dir: string;
  const clients: Client<TuiGatewayConnection>[] = [];

  async function open(env: Readonly<Record<string, string>> = {}): Promise<Client<TuiGatewayConnection>> {
    const log = newLog();
    const wiring = clientPorts();
    const connection = await connectTuiGateway({ kind: 'stdio', command: { command: process.execPath, args: [fakeTuiGatewayJs, '--stdio'], cwd: dir, env } }, { log, ports: wiring.ports });
    const client = makeClient(connection, log, wiring);
    clients.push(client);
    return client;
  }

  async function started(env: Readonly<Record<string, string>> = {}): Promise<Client<TuiGatewayConnection>> {
    const client = await open(env);
    await client.controller.start();
    return client;
  }

  setup(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gw-v019-')));
  });

  teardown(async () => {
    for (const c of clients.splice(0)) {
      c.controller.dispose();
      await c.connection.dispose();
    }
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('the handshake finds the events generation: client.capabilities is -32601, no history rewrite', async () => {
    const client = await open();
    assert.equal(client.connection.generation, 'events');
    assert.equal(describeTransport(client.connection).capabilities.rewrite, false);
    assert.ok(client.log.snapshot().some((e) => e.dir === 'in' && e.text.includes('unknown method: client.capabilities')));
  });

  test('session.create waits for the agent (session.info): Hermes’ version and model are known', async () => {
    const client = await started();
    assert.equal(client.connection.agent?.agentInfo?.version, '0.19.0');
    assert.equal(client.controller.state.models?.currentModelId, 'fake-model');
  });

  test('a plain turn: reasoning, text, and this turn’s tokens from message.complete', async () => {
    const client = await started();
    const turn = await client.controller.prompt([{ type: 'text', text: '[plain] Say hello.' }]);
    assert.equal(turn.kind, 'ended');
    assert.equal(assistantText(client.controller.state.entries), 'Hello from the fake model!');
    const footer = client.controller.state.entries.find((e) => e.kind === 'turnEnd');
    assert.deepEqual(footer?.kind === 'turnEnd' ? footer.usage : undefined, { inputTokens: 1234, outputTokens: 56, totalTokens: 1290, thoughtTokens: 0 });
    // The second turn's tokens are its own, not the session's running total.
    await client.controller.prompt([{ type: 'text', text: '[plain] Again.' }]);
    const footers = client.controller.state.entries.filter((e) => e.kind === 'turnEnd');
    assert.deepEqual(footers.map((f) => (f.kind === 'turnEnd' ? f.usage?.totalTokens : undefined)), [1290, 1290]);
  });

  for (const [choice, removed] of [
    ['once', true],
    ['deny', false],
  ] as const) {
    test(`an approval.request event is a permission card with Hermes’ four choices; "${choice}" goes back as approval.respond`, async () => {
      const client = await started();
      const victim = path.join(dir, 'victim');
      fs.mkdirSync(path.join(victim, 'sub'), { recursive: true });
      const turn = client.controller.prompt([{ type: 'text', text: `[terminal cmd=rm -r ${victim}] Clean up.` }]);
      await until('the permission card', () => client.permissions.length > 0 || undefined);
      const card = client.permissions[0];
      assert.deepEqual(card?.request.options.map((o) => o.optionId), ['once', 'session', 'always', 'deny']);
      assert.deepEqual(card?.request.toolCall.rawInput, { command: `rm -r ${victim}` });
      assert.ok(client.controller.choosePermission(card?.requestId ?? '', choice));
      const ended = await turn;
      assert.equal(ended.kind, 'ended');
      assert.deepEqual(sent(client, 'approval.respond').map((f) => params(f).choice), [choice]);
      assert.equal(params(sent(client, 'approval.respond')[0]).session_id, client.controller.sessionId);
      const [tool] = tools(client.controller.state.entries);
      assert.equal(tool?.status, choice === 'once' ? 'completed' : 'failed');
      assert.deepEqual(tool?.rawInput, { command: `rm -r ${victim}` }, 'the call’s arguments (tool.complete.args)');
      assert.equal(fs.existsSync(victim), !removed);
      assert.match(assistantText(client.controller.state.entries), /The command finished\./);
    });
  }

  test('cancelling the turn answers the pending approval once (deny), then interrupts', async () => {
    const client = await started();
    const victim = path.join(dir, 'victim');
    fs.mkdirSync(victim);
    const turn = client.controller.prompt([{ type: 'text', text: `[terminal cmd=rm -r ${victim}] Clean up.` }]);
    await until('the permission card', () => client.permissions.length > 0 || undefined);
    // Cancelling the turn answers the pending approval once ("deny"), then interrupts.
    await client.controller.cancel();
    const ended = await turn;
    assert.equal(ended.kind === 'ended' ? ended.stopReason : ended.kind, 'cancelled');
    assert.deepEqual(sent(client, 'approval.respond').map((f) => params(f).choice), ['deny']);
    assert.equal(sent(client, 'session.interrupt').length, 1);
    assert.ok(fs.existsSync(victim));
  });

  test('clarify, sudo and secret events go to the question port and back as *.respond; the secret never reaches the log', async () => {
    const client = await started();
    const secret = 'sv-hunter2-v019';
    client.questions.port = {
      clarify: (q, signal) => client.questions.record('clarify', q, signal, () => Promise.resolve({ kind: 'answered', answers: { answer: 'blue' } })),
      secret: (q, signal) => client.questions.record('secret', q, signal, () => Promise.resolve(q.kind === 'sudo' ? { kind: 'declined' } : { kind: 'value', value: secret })),
    };
    await client.controller.prompt([{ type: 'text', text: '[clarify] Ask me.' }]);
    await client.controller.prompt([{ type: 'text', text: '[terminal cmd=sudo true] Check.' }]);
    await client.controller.prompt([{ type: 'text', text: '[skill name=lab-keyed] Load it.' }]);
    const asked = client.questions.asked.map((q) => [q.kind, (q.request as { kind?: string }).kind ?? (q.request as { questions: { text: string }[] }).questions[0]?.text]);
    assert.deepEqual(asked, [
      ['clarify', 'Which colour?'],
      ['secret', 'sudo'],
      ['secret', 'secret'],
    ]);
    assert.equal(params(sent(client, 'clarify.respond')[0]).answer, 'blue');
    assert.equal(params(sent(client, 'sudo.respond')[0]).password, '');
    assert.equal(params(sent(client, 'secret.respond')[0]).value, '«redacted»');
    assert.ok(!client.log.toJsonl().includes(secret));
    const clarify = tools(client.controller.state.entries).find((t) => t.name === 'clarify');
    assert.deepEqual(clarify?.rawInput, { question: 'Which colour?', choices: ['red', 'blue'] });
  });

  test('a question no port can show is answered empty at once, with a notice', async () => {
    const client = await started();
    const turn = await client.controller.prompt([{ type: 'text', text: '[clarify] Ask me.' }]);
    assert.equal(turn.kind, 'ended');
    assert.equal(params(sent(client, 'clarify.respond')[0]).answer, '');
    assert.ok(client.controller.state.entries.some((e) => e.kind === 'notice' && e.title.includes('cannot show (clarify.request)')));
  });

  test('interrupt mid-stream ends the turn cancelled with the partial text', async () => {
    const client = await started();
    const turn = client.controller.prompt([{ type: 'text', text: '[slow] count' }]);
    await until('streaming', () => assistantText(client.controller.state.entries).includes('tick 2') || undefined);
    await client.controller.cancel();
    const ended = await turn;
    assert.equal(ended.kind === 'ended' ? ended.stopReason : ended.kind, 'cancelled');
    assert.equal(sent(client, 'session.interrupt').length, 1);
  });

  for (const [marker, status] of [
    ['[ratelimit]', 429],
    ['[error500]', 500],
  ] as const) {
    test(`a provider failure (${marker}) fails the turn with Hermes’ message`, async () => {
      const client = await started();
      const turn = await client.controller.prompt([{ type: 'text', text: `${marker} hi` }]);
      assert.equal(turn.kind, 'failed');
      assert.ok(turn.kind === 'failed' && TransportRpcError.is(turn.error) && turn.error.message.includes(`HTTP ${status}`), String(turn.kind === 'failed' ? turn.error : ''));
    });
  }

  test('a HERMES_HOME without a provider: the session fails to start with Hermes’ error event', async () => {
    const client = await open({ FAKE_GATEWAY_HOME: 'noprovider' });
    await assert.rejects(client.controller.start(), (e: unknown) => e instanceof Error && e.message.includes('agent init failed: No inference provider configured'));
  });

  test('the gateway dying mid-turn ends the turn interrupted with its stderr', async () => {
    const client = await started();
    const turn = await client.controller.prompt([{ type: 'text', text: '[slow] [die] count' }]);
    assert.equal(turn.kind, 'interrupted');
    assert.match(String(turn.kind === 'interrupted' ? turn.error : ''), /exited with code 3/);
  });
});

suite('transports / TUI Gateway: the command that starts it', () => {
  test('the Hermes root goes in front of the inherited PYTHONPATH (once), with the platform’s separator', () => {
    const posix = gatewayCommand('/opt/hermes/bin/python', '/opt/hermes/src', '/ws', {}, { pythonPath: '/opt/deps:/opt/hermes/src', delimiter: ':' });
    assert.equal(posix.env?.PYTHONPATH, '/opt/hermes/src:/opt/deps');
    const windows = gatewayCommand('C:\\Hermes\\python.exe', 'C:\\Hermes\\src', 'C:\\ws', {}, { pythonPath: 'D:\\deps;E:\\more', delimiter: ';' });
    assert.equal(windows.env?.PYTHONPATH, 'C:\\Hermes\\src;D:\\deps;E:\\more');
    assert.equal(gatewayCommand('python3', '/r', '/ws', {}, { pythonPath: undefined, delimiter: ':' }).env?.PYTHONPATH, '/r');
  });
});

/** A second client of the gateway over WebSocket, speaking the wire (the user's own Hermes TUI). */
class RawClient {
  readonly frames: Json[] = [];
  private next = 1;

  private constructor(private readonly ws: WebSocket) {
    ws.on('message', (data: Buffer) => this.frames.push(JSON.parse(data.toString('utf8')) as Json));
  }

  static async connect(url: string): Promise<RawClient> {
    const ws = new WebSocket(url);
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('error', reject);
    });
    return new RawClient(ws);
  }

  async call(method: string, p: Json): Promise<Json> {
    const id = `raw-${this.next++}`;
    this.ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params: p }));
    return until(`the answer to ${method}`, () => this.frames.find((f) => f.id === id));
  }

  events(type: string): Json[] {
    return this.frames.filter((f) => f.method === 'event' && params(f).type === type);
  }

  close(): void {
    this.ws.close();
  }
}

suite('transports / TUI Gateway, Hermes v0.19.0 over WebSocket: another client of the session', function () {
  this.timeout(30_000);
  const token = 'tok-v019-attach';
  let gateway: FakeProcess;
  let url: string;
  let dir: string;

  suiteSetup(async () => {
    gateway = new FakeProcess(fakeTuiGatewayJs, ['--ws', '--token', token]);
    url = `ws://127.0.0.1:${(await gateway.ready).port}/api/ws`;
  });

  setup(() => {
    dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'gw-v019-ws-')));
  });

  teardown(() => fs.rmSync(dir, { recursive: true, force: true }));

  suiteTeardown(async () => {
    await gateway.stop();
  });

  test('an approval the other client answers clears here (withdrawn when its call completes), and this client never answers it', async () => {
    const log = newLog();
    const wiring = clientPorts();
    const connection = await connectTuiGateway({ kind: 'websocket', url, token }, { log, ports: wiring.ports });
    const client = makeClient(connection, log, wiring);
    const other = await RawClient.connect(`${url}?token=${token}`);
    try {
      await client.controller.start();
      const activated = await other.call('session.activate', { session_id: client.controller.sessionId });
      assert.equal((activated.result as Json | undefined)?.session_id, client.controller.sessionId);
      const victim = path.join(dir, 'victim');
      fs.mkdirSync(victim);
      const turn = client.controller.prompt([{ type: 'text', text: `[terminal cmd=rm -r ${victim}] Clean up.` }]);
      await until('the permission card', () => client.permissions.length > 0 || undefined);
      const answer = await other.call('approval.respond', { session_id: client.controller.sessionId, choice: 'once' });
      assert.deepEqual(answer.result, { resolved: 1 });
      const ended = await turn;
      assert.equal(ended.kind, 'ended');
      const [tool] = tools(client.controller.state.entries);
      assert.deepEqual([tool?.permission?.status, tool?.permission?.answeredBy], ['expired', 'the agent withdrew the request'], 'the card cleared without an answer from here');
      assert.equal(log.snapshot().filter((e) => e.dir === 'out' && e.method === 'approval.respond').length, 0);
      assert.equal(fs.existsSync(victim), false, 'the other client allowed it');
      // As recorded (ws-main.jsonl): a turn's events go only to the connection that submitted it.
      assert.equal(other.events('approval.request').length, 0);
    } finally {
      other.close();
      client.controller.dispose();
      await connection.dispose();
    }
  });
});
