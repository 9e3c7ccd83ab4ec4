/**
 * `hermes-acp-run --transport tui-gateway`: the same events and exit codes as over ACP, end to end
 * against the newer gateway generation as documented (`--generation next` of the fake gateway:
 * questions as server requests; stdio and WebSocket). Hermes v0.19.0 as recorded, and the API
 * Server: runnerTransportsV019.test.ts. Every stdout line of every run is validated against
 * schemas/stream-json.schema.json (`events`).
 */
import * as assert from 'node:assert/strict';
import { events, isAlive, ofType, perTestDir, resultOf, type CliRun, type Event } from './cliHarness';
import { allOutput, gatewayToken, records, runOver, stdioGateway, webSocketGateway, type TransportTarget } from './transportRuns';

function texts(evs: readonly Event[]): string {
  return ofType(evs, 'text')
    .map((e) => String(e.text))
    .join('');
}

/** Runs `query` and sends SIGTERM once a stdout line contains `marker`. */
async function terminatedMidTurn(target: TransportTarget, dir: string, query: string, marker: string): Promise<CliRun> {
  let sent = false;
  const run = await runOver(target, dir, query, [], {
    onLine: (line, child) => {
      if (!sent && line.includes(marker)) {
        sent = true;
        child.kill('SIGTERM');
      }
    },
  });
  assert.ok(sent, `"${marker}" never appeared on stdout:\n${run.stdout}\n${run.stderr}`);
  return run;
}

const gateways: readonly { readonly name: string; readonly open: (dir: string) => Promise<TransportTarget> }[] = [
  { name: 'stdio (started from --hermes-root)', open: (dir) => Promise.resolve(stdioGateway(dir, 'next')) },
  { name: 'WebSocket (--gateway-url)', open: (dir) => webSocketGateway(dir, { FAKE_GATEWAY_EXPECT_SECRET: 'hunter2-secret' }, 'next') },
];

for (const gateway of gateways) {
  suite(`hermes-acp-run --transport tui-gateway (the documented newer gateway), ${gateway.name}`, function () {
    this.timeout(30_000);
    const work = perTestDir('hermes-cli-gw-');
    let target: TransportTarget;
    setup(async () => {
      target = await gateway.open(work.path);
    });
    teardown(async () => {
      await target.stop();
    });

    test('a plain turn: system (the gateway as the agent), text, result exit 0', async () => {
      const run = await runOver(target, work.path, 'hello there');
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      const system = evs[0];
      assert.deepEqual(system?.agent, { name: 'hermes-tui-gateway', title: 'Hermes (TUI Gateway)', version: '' });
      assert.match(String(system?.session_id), /^rt-\d+$/);
      assert.equal(texts(evs), 'Echo: hello there');
      const result = resultOf(evs);
      assert.equal(result.text, 'Echo: hello there');
      assert.equal(result.stop_reason, 'end_turn');
      assert.equal(result.session_id, system?.session_id);
      assert.ok(!allOutput(run, work.path).includes(gatewayToken), 'the gateway token appears in the output or the traffic log');
    });

    test('an approval allowed by --permissions allow and denied by the default deny, with the command as the checked target', async () => {
      const allowed = await runOver(target, work.path, '[approval] clean up', ['--permissions', 'allow']);
      assert.equal(allowed.code, 0, allowed.stderr);
      const a = events(allowed);
      assert.deepEqual(
        ofType(a, 'permission').map((p) => [p.tool_call_id, p.name, p.outcome, p.optionId, p.option_kind, p.rule, p.targets]),
        [['tool-rm', 'terminal', 'selected', 'once', 'allow_once', '--permissions allow', ['run rm -rf build']]],
      );
      assert.deepEqual(ofType(a, 'tool_result').map((r) => [r.tool_call_id, r.status, r.is_error]), [['tool-rm', 'completed', false]]);
      assert.equal(resultOf(a).text, 'approval: once');

      const denied = await runOver(target, work.path, '[approval] clean up');
      assert.equal(denied.code, 0, denied.stderr);
      const d = events(denied);
      assert.deepEqual(
        ofType(d, 'permission').map((p) => [p.tool_call_id, p.outcome, p.optionId, p.option_kind, p.rule]),
        [['tool-rm', 'selected', 'deny', 'reject_once', '--permissions deny']],
      );
      assert.deepEqual(ofType(d, 'tool_result').map((r) => [r.tool_call_id, r.status, r.is_error]), [['tool-rm', 'denied', false]]);
      assert.equal(resultOf(d).text, 'approval: deny');
    });

    test('a tool call without approval: tool_use and tool_result named by the tool, never text', async () => {
      const run = await runOver(target, work.path, '[tool] list');
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      assert.deepEqual(ofType(evs, 'tool_use').map((t) => [t.tool_call_id, t.name, t.kind, t.input]), [['tool-ls', 'terminal', 'execute', { command: 'ls -F' }]]);
      assert.deepEqual(ofType(evs, 'tool_result').map((t) => [t.tool_call_id, t.status, t.output]), [['tool-ls', 'completed', '2 entries']]);
      assert.equal(texts(evs), 'Listed the folder.');
    });

    test('a clarifying question is cancelled ({}) and reported as a question event', async () => {
      const run = await runOver(target, work.path, '[clarify] pick one');
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      const questions = ofType(evs, 'question');
      assert.equal(questions.length, 1);
      assert.equal(questions[0]?.kind, 'clarify');
      assert.deepEqual(questions[0]?.questions, ['Which colour?', 'Which size?']);
      assert.equal(questions[0]?.outcome, 'cancelled');
      assert.match(String(questions[0]?.reason), /nobody to answer in a headless run/);
      assert.equal(resultOf(evs).text, 'clarify cancelled ({})');
      const answers = records(target).filter((r) => r.dir === 'in' && JSON.stringify(r.frame).includes('"result":{}'));
      assert.equal(answers.length, 1, 'the gateway got {} as the answer');
    });

    test('a secret prompt is cancelled with no value: reported without a value, and neither the secret nor the token appears anywhere', async () => {
      const run = await runOver(target, work.path, '[secret] need a token', [], { env: { FAKE_GATEWAY_EXPECT_SECRET: 'hunter2-secret' } });
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      const [question] = ofType(evs, 'question');
      assert.deepEqual(
        { kind: question?.kind, env_var: question?.env_var, outcome: question?.outcome, keys: Object.keys(question ?? {}).sort() },
        { kind: 'secret', env_var: 'FAKE_API_TOKEN', outcome: 'cancelled', keys: ['env_var', 'kind', 'outcome', 'questions', 'reason', 'request_id', 'timestamp', 'type'] },
      );
      assert.equal(resultOf(evs).text, 'secret: empty');
      const everything = allOutput(run, work.path);
      assert.ok(!everything.includes('hunter2-secret'), 'the secret value appears in the output or the traffic log');
      assert.ok(!everything.includes(gatewayToken), 'the gateway token appears in the output or the traffic log');
    });

    test('a provider rate limit (HTTP 429) exits 75', async () => {
      const run = await runOver(target, work.path, '[429] go');
      assert.equal(run.code, 75, run.stderr);
      const result = resultOf(events(run));
      assert.equal(result.exit_code, 75);
      assert.match(String(result.error), /HTTP 429/);
    });

    test('the gateway dying mid-turn: exit 1 (the agent exited), the partial text kept', async () => {
      const run = await runOver(target, work.path, '[crash] now');
      assert.equal(run.code, 1, run.stderr);
      const evs = events(run);
      assert.equal(texts(evs), 'about to crash');
      const result = resultOf(evs);
      assert.equal(result.stop_reason, null);
      // A gateway we started is a process: its exit code and last stderr lines; an attached one is a closed socket.
      assert.match(String(result.error), gateway.name.startsWith('stdio') ? /exited with code 3\.?\n[\s\S]*fake gateway: simulated crash/ : /closed/i);
    });

    test('--timeout mid-turn: the turn is interrupted, exit 1 "timeout"', async () => {
      const run = await runOver(target, work.path, '[slow] count', ['--timeout', '1.5']);
      assert.equal(run.code, 1, run.stderr);
      const result = resultOf(events(run));
      assert.equal(result.error, 'timeout');
      assert.match(texts(events(run)), /^tick 0 /);
      assert.ok(records(target).some((r) => r.dir === 'in' && (r.frame as { method?: unknown }).method === 'session.interrupt'));
    });

    test('SIGTERM mid-turn: session.interrupt, exit 130, result last', async () => {
      const run = await terminatedMidTurn(target, work.path, '[slow] count', 'tick 2');
      assert.equal(run.code, 130, run.stderr);
      const result = resultOf(events(run));
      assert.equal(result.exit_code, 130);
      assert.equal(result.stop_reason, 'cancelled');
      const interrupts = records(target).filter((r) => r.dir === 'in' && (r.frame as { method?: unknown }).method === 'session.interrupt');
      assert.equal(interrupts.length, 1);
    });
  });
}

suite('hermes-acp-run --transport tui-gateway, stdio: the started gateway', function () {
  this.timeout(30_000);
  const work = perTestDir('hermes-cli-gw-');

  test('runs as <python> -m tui_gateway.entry with the checkout on PYTHONPATH, and is gone after a SIGTERM mid-turn', async () => {
    const target = stdioGateway(work.path, 'next');
    const run = await terminatedMidTurn(target, work.path, '[slow] count', 'tick 2');
    assert.equal(run.code, 130, run.stderr);
    events(run);
    const started = /stand-in python pid (\d+): -m tui_gateway\.entry PYTHONPATH=(\S+)/.exec(run.stderr);
    assert.ok(started !== null, run.stderr);
    assert.equal(started[2], `${work.path}/hermes-checkout`);
    assert.equal(isAlive(Number(started[1])), false, 'the gateway process outlived the run');
  });
});
