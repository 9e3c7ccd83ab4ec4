/**
 * TUI Gateway over stdio against the fake gateway process: clarifying questions (answered, locked
 * early, cancelled, single-question form), masked values that never reach the traffic log or the
 * session state, a server request method the client does not implement (-32601 at once), a
 * withdrawn approval, and tool events as tool-call entries.
 */
import * as assert from 'node:assert/strict';
import { TransportClosedError, TransportRpcError } from '../../../src/agentPort/transportErrors';
import type { ClarifyRequest } from '../../../src/agentPort/questionPort';
import { connectTuiGateway } from '../../../src/transports/tuiGateway/connectTuiGateway';
import type { TuiGatewayConnection } from '../../../src/transports/tuiGateway/tuiGatewayConnection';
import { until } from '../../support/wait';
import { assistantText, clientPorts, fakeTuiGatewayJs, makeClient, newLog, repoRoot, tools, type Client } from './transportRig';

const secretValue = 'hunter2-correct-horse-battery-staple';

async function stdioClient(env: Record<string, string> = {}): Promise<Client<TuiGatewayConnection>> {
  const log = newLog();
  const wiring = clientPorts();
  const connection = await connectTuiGateway(
    { kind: 'stdio', command: { command: process.execPath, args: [fakeTuiGatewayJs, '--stdio', '--generation', 'next'], cwd: repoRoot, env: { FAKE_GATEWAY_EXPECT_SECRET: secretValue, ...env } } },
    { log, ports: wiring.ports },
  );
  const client = makeClient(connection, log, wiring);
  await client.controller.start();
  return client;
}

suite('transports / TUI Gateway: questions over stdio', () => {
  let client: Client<TuiGatewayConnection>;

  setup(async () => {
    client = await stdioClient();
  });

  teardown(async () => {
    client.controller.dispose();
    await client.connection.dispose();
  });

  test('a batch clarify is shown with its questions and answered by question id', async () => {
    client.questions.port = {
      clarify: (q, signal) => client.questions.record('clarify', q, signal, () => Promise.resolve({ kind: 'answered', answers: { color: 'blue', size: 'L' } })),
    };
    const turn = await client.controller.prompt([{ type: 'text', text: 'pick [clarify]' }]);
    assert.equal(turn.kind, 'ended');
    const asked = client.questions.asked[0]?.request as ClarifyRequest;
    assert.deepEqual(
      asked.questions.map((q) => [q.id, q.text, q.choices]),
      [
        ['color', 'Which colour?', ['red', 'blue']],
        ['size', 'Which size?', []],
      ],
    );
    assert.ok(assistantText(client.controller.state.entries).includes('clarify answers: {"color":"blue","size":"L"}'));
  });

  test('a clarify cancelled by the user answers {} and the agent carries on', async () => {
    client.questions.port = { clarify: () => Promise.resolve({ kind: 'cancelled' }) };
    await client.controller.prompt([{ type: 'text', text: 'pick [clarify]' }]);
    assert.ok(assistantText(client.controller.state.entries).includes('clarify cancelled'));
    const answer = client.log.snapshot().find((e) => e.dir === 'out' && e.kind === 'response' && e.method === 'clarify');
    assert.deepEqual((JSON.parse(answer?.text ?? '{}') as { result: unknown }).result, {});
  });

  test('answers locked early with clarify.lock settle the batch; the prompt is then withdrawn', async () => {
    client.questions.port = {
      clarify: async (q, signal) => {
        assert.equal(await q.lock('color', 'red'), 'ok');
        assert.equal(await q.lock('size', null), 'ok');
        await until('the withdrawal', () => signal.aborted || undefined, 5000);
        return { kind: 'answered', answers: { color: 'ignored' } };
      },
    };
    await client.controller.prompt([{ type: 'text', text: 'pick [clarify]' }]);
    assert.ok(assistantText(client.controller.state.entries).includes('clarify answers: {"color":"red","size":null}'));
    const notes = client.log.snapshot().filter((e) => e.dir === 'note' && e.text.includes('was withdrawn'));
    assert.equal(notes.length, 1, 'the withdrawn answer is not sent');
  });

  test('the single-question clarify form is answered with {answer}', async () => {
    client.questions.port = { clarify: (q) => Promise.resolve({ kind: 'answered', answers: { [q.questions[0]?.id ?? '']: 'yes' } }) };
    await client.controller.prompt([{ type: 'text', text: 'go [clarify-one]' }]);
    assert.ok(assistantText(client.controller.state.entries).includes('clarify answer: yes'));
  });

  test('a secret reaches the agent but not the traffic log, the session state or the transcript', async () => {
    client.questions.port = { secret: (q) => Promise.resolve(q.envVar === 'FAKE_API_TOKEN' ? { kind: 'value', value: secretValue } : { kind: 'declined' }) };
    await client.controller.prompt([{ type: 'text', text: 'configure [secret]' }]);
    assert.ok(assistantText(client.controller.state.entries).includes('secret: matched'), 'the agent received the exact value');
    const log = client.log.snapshot().map((e) => e.text).join('\n');
    assert.ok(!log.includes(secretValue), 'the value is not in the traffic log');
    assert.ok(log.includes('«redacted»'), 'the answer is logged redacted');
    assert.ok(!client.log.toJsonl().includes(secretValue), 'nor in a recorded fixture');
    assert.ok(!JSON.stringify(client.controller.state).includes(secretValue), 'nor in the session state (transcript)');
  });

  test('a declined sudo prompt answers the empty string', async () => {
    client.questions.port = { secret: (q) => Promise.resolve(q.kind === 'sudo' && q.prompt.includes('apt install ripgrep') ? { kind: 'declined' } : { kind: 'value', value: 'x' }) };
    await client.controller.prompt([{ type: 'text', text: 'install [sudo]' }]);
    assert.ok(assistantText(client.controller.state.entries).includes('sudo: empty'));
  });

  test('a server request the client does not implement is answered -32601 at once', async () => {
    const started = Date.now();
    await client.controller.prompt([{ type: 'text', text: 'click [unknown]' }]);
    assert.ok(assistantText(client.controller.state.entries).includes('unknown request answered error -32601'));
    assert.ok(Date.now() - started < 5000);
    // With no question port behind them, clarify and secrets fail fast the same way.
    client.questions.port = {};
    await client.controller.prompt([{ type: 'text', text: 'pick [clarify]' }]);
    assert.ok(assistantText(client.controller.state.entries).includes('clarify cancelled (error -32601)'));
  });

  test('an approval the agent withdraws clears the permission card without an answer', async () => {
    const turn = client.controller.prompt([{ type: 'text', text: 'delete [withdraw]' }]);
    await until('the permission request', () => client.permissions.length > 0 || undefined);
    await turn;
    const tool = tools(client.controller.state.entries).find((t) => t.toolCallId === 'tool-rm');
    assert.equal(tool?.permission?.status, 'expired');
    assert.equal(tool?.permission?.answeredBy, 'the agent withdrew the request');
    assert.ok(assistantText(client.controller.state.entries).includes('approval: withdrawn'));
    assert.ok(!client.log.snapshot().some((e) => e.dir === 'out' && e.method === 'approval'), 'no answer was sent');
  });

  test('tool events become tool-call entries with their result, never assistant text', async () => {
    await client.controller.prompt([{ type: 'text', text: 'list [tool]' }]);
    const [tool] = tools(client.controller.state.entries);
    assert.equal(tool?.title, 'ls -F');
    assert.equal(tool?.toolKind, 'execute');
    assert.equal(tool?.status, 'completed');
    assert.deepEqual(tool?.rawInput, { command: 'ls -F' });
    assert.equal(assistantText(client.controller.state.entries), 'Listed the folder.');
    assert.deepEqual(client.controller.state.usage, { used: 1200, size: 128000 });
  });

  test('garbage on the wire is logged and skipped; the turn carries on', async () => {
    const turn = await client.controller.prompt([{ type: 'text', text: '[garbage]' }]);
    assert.equal(turn.kind, 'ended');
    assert.ok(assistantText(client.controller.state.entries).includes('still talking'));
    const odd = client.log.snapshot().filter((e) => e.kind === 'invalid' || e.kind === 'ignored');
    assert.deepEqual(
      odd.map((e) => e.note?.split(':')[0]),
      ['not JSON', 'not a JSON-RPC request, response or notification', 'response to an unknown request id'],
    );
  });

  test('the gateway dying mid-turn interrupts the turn with its stderr, and nothing waits', async () => {
    const turn = await client.controller.prompt([{ type: 'text', text: '[crash]' }]);
    assert.equal(turn.kind, 'interrupted');
    assert.ok(client.connection.isClosed);
    const error = turn.kind === 'interrupted' ? turn.error : undefined;
    assert.ok(TransportClosedError.is(error));
    assert.match(error.stderrTail, /simulated crash/);
    await assert.rejects(client.connection.listSessions({}), (e: unknown) => TransportClosedError.is(e));
  });

  test('a failed turn ends the prompt with the gateway error', async () => {
    const turn = await client.controller.prompt([{ type: 'text', text: '[fail]' }]);
    assert.equal(turn.kind, 'failed');
    assert.ok(TransportRpcError.is(turn.kind === 'failed' ? turn.error : undefined));
    assert.ok(client.controller.state.entries.some((e) => e.kind === 'turnEnd' && e.error?.includes('provider exploded') === true));
  });
});
