/**
 * `hermes-acp-run --transport tui-gateway|api-server` against Hermes v0.19.0 as recorded (the fake
 * gateway's and fake API Server's replays of test/fixtures/hermes-gateway/ and hermes-api-server/):
 * approvals as events answered through --permissions, questions cancelled, an `error` event that
 * ends the run, tokens and arguments from where Hermes puts them, Hermes' version and model, a
 * parked command over chat completions, and what a lost server says. Every stdout line is
 * validated against schemas/stream-json.schema.json (`events`).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { events, ofType, perTestDir, resultOf, runCli, type CliRun } from './cliHarness';
import { allOutput, apiKey, apiServer, gatewayToken, records, runOver, stdioGateway, webSocketGateway, type TransportTarget } from './transportRuns';

/** What the client sent, from the fake's record: `{conn, dir, frame}` lines. */
function sentFrames(target: TransportTarget, method: string): Record<string, unknown>[] {
  return records(target)
    .filter((r) => r.dir === 'in' && (r.frame as { method?: unknown }).method === method)
    .map((r) => ((r.frame as { params?: unknown }).params ?? {}) as Record<string, unknown>);
}

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

const gateways: readonly { readonly name: string; readonly open: (dir: string, env?: Readonly<Record<string, string>>) => Promise<TransportTarget> }[] = [
  { name: 'stdio (started from --hermes-root)', open: (dir, env) => Promise.resolve(stdioGateway(dir, 'v0.19', env)) },
  { name: 'WebSocket (--gateway-url)', open: (dir, env) => webSocketGateway(dir, env) },
];

for (const gateway of gateways) {
  suite(`hermes-acp-run --transport tui-gateway, Hermes v0.19.0 replayed, ${gateway.name}`, function () {
    this.timeout(30_000);
    const work = perTestDir('hermes-cli-v019-');
    let target: TransportTarget | undefined;
    teardown(async () => {
      await target?.stop();
      target = undefined;
    });

    test('a plain turn: Hermes’ version and model, this turn’s tokens, exit 0', async () => {
      target = await gateway.open(work.path);
      const run = await runOver(target, work.path, '[plain] Say hello.');
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      assert.deepEqual(evs[0]?.agent, { name: 'hermes-tui-gateway', title: 'Hermes (TUI Gateway)', version: '0.19.0' });
      assert.equal(evs[0]?.model, 'fake-model');
      const result = resultOf(evs);
      assert.equal(result.text, 'Hello from the fake model!');
      assert.deepEqual(result.tokens, { input: 1234, output: 56, total: 1290, cache_read: 0, cache_write: 0 });
      assert.equal(result.tokens_reported, true);
      assert.ok(!allOutput(run, work.path).includes(gatewayToken));
    });

    for (const [flags, choice, kept] of [
      [['--permissions', 'allow'], 'once', false],
      [[], 'deny', true],
    ] as const) {
      test(`an approval event answered "${choice}" by --permissions ${flags.length > 0 ? 'allow' : 'deny (default)'}: one answer, the command as tool_use input`, async () => {
        target = await gateway.open(work.path);
        const victim = path.join(work.path, 'victim');
        fs.mkdirSync(path.join(victim, 'sub'), { recursive: true });
        const run = await runOver(target, work.path, `[terminal cmd=rm -r ${victim}] Clean up.`, flags);
        assert.equal(run.code, 0, run.stderr);
        const evs = events(run);
        const [permission] = ofType(evs, 'permission');
        assert.deepEqual([permission?.name, permission?.outcome, permission?.optionId], ['terminal', 'selected', choice]);
        if (choice === 'once') {
          assert.deepEqual(permission?.targets, [`run rm -r ${victim}`], 'the policy judged the command');
        }
        assert.deepEqual(ofType(evs, 'tool_use').map((t) => [t.name, t.kind, t.input]), [['terminal', 'execute', { command: `rm -r ${victim}` }]]);
        assert.deepEqual(ofType(evs, 'tool_result').map((t) => [t.status, t.is_error]), [choice === 'once' ? ['completed', false] : ['denied', false]]);
        assert.deepEqual(sentFrames(target, 'approval.respond').map((p) => p.choice), [choice], 'exactly one answer');
        assert.equal(fs.existsSync(victim), kept);
        assert.equal(String(resultOf(evs).text).trim(), 'The command finished.');
      });
    }

    test('a clarify event is answered empty at once (nobody to ask) and reported as a question event', async () => {
      target = await gateway.open(work.path);
      const run = await runOver(target, work.path, '[clarify] Ask me.');
      assert.equal(run.code, 0, run.stderr);
      const [question] = ofType(events(run), 'question');
      assert.deepEqual([question?.kind, question?.outcome, question?.questions], ['clarify', 'cancelled', ['Which colour?']]);
      assert.deepEqual(sentFrames(target, 'clarify.respond').map((p) => p.answer), ['']);
      const [tool] = ofType(events(run), 'tool_use');
      assert.deepEqual(tool?.input, { question: 'Which colour?', choices: ['red', 'blue'] });
    });

    for (const [marker, status] of [
      ['[ratelimit]', 429],
      ['[error500]', 500],
    ] as const) {
      test(`a provider failure (${marker}) exits 75 with Hermes’ message`, async () => {
        target = await gateway.open(work.path);
        const run = await runOver(target, work.path, `${marker} hi`);
        assert.equal(run.code, 75, run.stderr);
        assert.match(String(resultOf(events(run)).error), new RegExp(`HTTP ${status}`));
      });
    }

    test('an agent that cannot start (no provider): the error event ends the run, exit 1, with Hermes’ words', async () => {
      target = await gateway.open(work.path, { FAKE_GATEWAY_HOME: 'noprovider' });
      const run = await runOver(target, work.path, '[plain] Say hello.', [], { env: { FAKE_GATEWAY_HOME: 'noprovider' } });
      assert.equal(run.code, 1, run.stderr);
      assert.match(String(resultOf(events(run)).error), /agent init failed: No inference provider configured/);
    });

    test('--timeout mid-turn: session.interrupt, exit 1 "timeout"', async () => {
      target = await gateway.open(work.path);
      // The replayed [slow] turn waits at its recorded interrupt until we send one, so the budget can be
      // generous: it must outlast the gateway's start on a loaded machine, or no turn is under way.
      const run = await runOver(target, work.path, '[slow] count', ['--timeout', '6']);
      assert.equal(run.code, 1, run.stderr);
      assert.equal(resultOf(events(run)).error, 'timeout');
      assert.equal(sentFrames(target, 'session.interrupt').length, 1);
    });

    test('SIGTERM mid-turn: session.interrupt, exit 130', async () => {
      target = await gateway.open(work.path);
      const run = await terminatedMidTurn(target, work.path, '[slow] count', 'tick 2');
      assert.equal(run.code, 130, run.stderr);
      assert.equal(resultOf(events(run)).stop_reason, 'cancelled');
      assert.equal(sentFrames(target, 'session.interrupt').length, 1);
    });
  });
}

suite('hermes-acp-run --transport tui-gateway, Hermes v0.19.0 replayed: the started gateway', function () {
  this.timeout(30_000);
  const work = perTestDir('hermes-cli-v019-');

  test('--hermes-root goes in front of the PYTHONPATH the runner was started with', async () => {
    const target = stdioGateway(work.path);
    const run = await runOver(target, work.path, '[plain] Say hello.', [], { env: { PYTHONPATH: '/opt/deps/site-packages' } });
    assert.equal(run.code, 0, run.stderr);
    const started = /stand-in python pid \d+: -m tui_gateway\.entry PYTHONPATH=(\S+)/.exec(run.stderr);
    assert.equal(started?.[1], `${work.path}/hermes-checkout:/opt/deps/site-packages`);
  });

  test('the gateway dying mid-turn: exit 1 with its exit code and last stderr line', async () => {
    const target = stdioGateway(work.path);
    const run = await runOver(target, work.path, '[slow] [die] count');
    assert.equal(run.code, 1, run.stderr);
    assert.match(String(resultOf(events(run)).error), /exited with code 3\.?\n[\s\S]*fake gateway: the process died/);
  });
});

suite('hermes-acp-run --transport api-server, Hermes v0.19.0 replayed', function () {
  this.timeout(30_000);
  const work = perTestDir('hermes-cli-api-');
  let target: TransportTarget | undefined;
  teardown(async () => {
    await target?.stop();
    target = undefined;
  });

  test('a plain chat turn: exit 0, Hermes’ version and model, tokens from the last chunk; the key appears nowhere', async () => {
    target = await apiServer(work.path);
    const run = await runOver(target, work.path, '[plain] Say hello.');
    assert.equal(run.code, 0, run.stderr);
    const evs = events(run);
    assert.deepEqual(evs[0]?.agent, { name: 'hermes-api-server', title: 'Hermes (API Server)', version: '0.19.0' });
    assert.equal(evs[0]?.model, 'hermes-agent');
    const result = resultOf(evs);
    assert.equal(result.text, 'Hello from the fake model!');
    assert.deepEqual(result.tokens, { input: 1234, output: 56, total: 1290, cache_read: 0, cache_write: 0 });
    assert.ok(records(target).every((r) => r.authorized === true || r.path === '/health'));
    assert.ok(!allOutput(run, work.path).includes(apiKey));
  });

  test('chat mode: a dangerous command is parked, reported failed with Hermes’ reason; nothing ran without asking', async () => {
    target = await apiServer(work.path);
    const victim = path.join(work.path, 'victim');
    fs.mkdirSync(victim);
    const run = await runOver(target, work.path, `[terminal cmd=rm -r ${victim}] Clean up.`);
    assert.equal(run.code, 0, run.stderr);
    const evs = events(run);
    assert.deepEqual(ofType(evs, 'tool_use').map((t) => [t.name, t.input]), [['terminal', { command: `rm -r ${victim}` }]]);
    const [result] = ofType(evs, 'tool_result');
    assert.deepEqual([result?.status, result?.is_error], ['failed', true]);
    assert.match(String(result?.output), /Not run: Hermes holds it for approval/);
    assert.equal(resultOf(evs).permissions_enforced, true);
    assert.ok(!run.stderr.includes('without asking'), run.stderr);
    assert.ok(fs.existsSync(victim));
  });

  test('chat mode with --permissions allow is a usage error that names --api-mode runs (exit 2)', async () => {
    const run = await runCli(['-q', 'hi', '--transport', 'api-server', '--base-url', 'http://127.0.0.1:9', '--permissions', 'allow'], { cwd: work.path });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--permissions allow cannot be held over the API Server's chat completions[\s\S]*--api-mode runs/);
  });

  for (const [flags, choice, kept] of [
    [['--permissions', 'allow'], 'once', false],
    [[], 'deny', true],
  ] as const) {
    test(`runs mode: an approval answered "${choice}" by --permissions, the command as tool_use input`, async () => {
      target = await apiServer(work.path, 'runs');
      const victim = path.join(work.path, `victim-${choice}`);
      fs.mkdirSync(path.join(victim, 'sub'), { recursive: true });
      const run = await runOver(target, work.path, `[terminal cmd=rm -r ${victim}] Clean up.`, flags);
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      assert.deepEqual(ofType(evs, 'permission').map((p) => [p.name, p.optionId]), [['terminal', choice]]);
      assert.deepEqual(ofType(evs, 'tool_use').map((t) => t.input), [{ command: `rm -r ${victim}` }]);
      // A refusal is the user's (here the policy's) choice, not an error: `denied`, is_error false.
      assert.deepEqual(ofType(evs, 'tool_result').map((t) => [t.status, t.is_error]), [choice === 'once' ? ['completed', false] : ['denied', false]]);
      assert.deepEqual(resultOf(evs).tokens, { input: 2468, output: 112, total: 2580, cache_read: 0, cache_write: 0 });
      assert.equal(fs.existsSync(victim), kept);
    });
  }

  test('a provider rate limit exits 75 (chat and runs)', async () => {
    target = await apiServer(work.path);
    const chat = await runOver(target, work.path, '[ratelimit] hi');
    assert.equal(chat.code, 75, chat.stderr);
    await target.stop();
    target = await apiServer(work.path, 'runs');
    const runs = await runOver(target, work.path, '[ratelimit] hi');
    assert.equal(runs.code, 75, runs.stderr);
    assert.match(String(resultOf(events(runs)).error), /HTTP 429/);
  });

  test('the server going away mid-stream: exit 1, and the error names the server', async () => {
    target = await apiServer(work.path);
    const run = await runOver(target, work.path, '[plain] [cut] hi');
    assert.equal(run.code, 1, run.stderr);
    assert.match(String(resultOf(events(run)).error), /Lost the connection to the API server at http:\/\/127\.0\.0\.1:\d+/);
  });

  test('SIGTERM mid-turn: the stream is dropped (the server interrupts the agent), exit 130', async () => {
    target = await apiServer(work.path);
    const run = await terminatedMidTurn(target, work.path, '[slow] count', 'tick 1');
    assert.equal(run.code, 130, run.stderr);
    assert.equal(resultOf(events(run)).stop_reason, 'cancelled');
  });
});
