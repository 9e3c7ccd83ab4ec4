import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import {
  events,
  perTestDir,
  runInterrupted,
  isAlive,
  ofType,
  replayAgent,
  resultOf,
  runCli,
  scriptedAgent,
  scriptedAgentPid,
  type Event,
} from './cliHarness';

const plainReply = 'Hello from the scripted agent! This is a plain reply, streamed in several chunks that share one messageId.';

function oneShot(query: string, extra: readonly string[] = [], agent: readonly string[] = scriptedAgent): string[] {
  return ['-q', query, '--format', 'stream-json', ...extra, '--', ...agent];
}

function at(list: readonly Event[], i: number): Event {
  const e = list[i];
  assert.ok(e !== undefined, `event #${i} is missing`);
  return e;
}

function str(e: Event, key: string): string {
  const v = e[key];
  assert.equal(typeof v, 'string', `${e.type}.${key} should be a string: ${JSON.stringify(e)}`);
  return v as string;
}

/** The `usage` of the `session/prompt` response in a `--traffic-log` file. */
function promptUsageOnTheWire(file: string): Record<string, number> {
  for (const line of fs.readFileSync(file, 'utf8').split('\n')) {
    if (line === '') {
      continue;
    }
    const rec = JSON.parse(line) as { dir: string; msg: unknown };
    const msg = rec.msg as { result?: { stopReason?: string; usage?: Record<string, number> } } | string;
    if (rec.dir === '<-' && typeof msg === 'object' && msg.result?.stopReason !== undefined && msg.result.usage !== undefined) {
      return msg.result.usage;
    }
  }
  throw new Error('no prompt response with usage in the traffic log');
}

suite('hermes-acp-run', function () {
  this.timeout(30_000);
  const work = perTestDir();

  test('a completed turn: system first, fragments, tool pairs, result last with per-turn tokens; exit 0, agent gone', async () => {
    const traffic = path.join(work.path, 'traffic.jsonl');
    const run = await runCli(oneShot('[tools] [plain]', ['--traffic-log', traffic]), { cwd: work.path });
    assert.equal(run.code, 0, run.stderr);
    const evs = events(run);
    const first = evs[0];
    assert.equal(first?.type, 'system');
    assert.equal(first.subtype, 'init');
    assert.match(str(first, 'session_id'), /^sess-\d+-[0-9a-f]{8}$/);
    assert.equal(first.model, 'scripted:fast');
    assert.deepEqual(first.agent, { name: 'scripted-agent', title: 'Scripted test agent', version: '1.0.0' });
    assert.equal(first.cwd, work.path);

    const result = resultOf(evs);
    assert.equal(result.exit_code, 0);
    assert.equal(result.stop_reason, 'end_turn');
    assert.equal(result.session_id, first.session_id);
    assert.equal(result.text, plainReply, 'the final message, not every fragment');
    assert.equal(result.error, undefined);
    const fragments = ofType(evs, 'text').map((e) => str(e, 'text'));
    assert.ok(fragments.length >= 5);
    assert.ok(fragments.join('').startsWith('Ran 11 tool calls'));
    assert.ok(fragments.join('').endsWith(plainReply));

    // Tokens: the prompt response's usage (cumulative per session; this is the session's first turn).
    const wire = promptUsageOnTheWire(traffic);
    assert.deepEqual(result.tokens, {
      input: wire.inputTokens,
      output: wire.outputTokens,
      total: wire.totalTokens,
      cache_read: wire.cachedReadTokens ?? 0,
      cache_write: wire.cachedWriteTokens ?? 0,
    });
    assert.equal(typeof result.duration_ms, 'number');
    assert.ok((result.turn_duration_ms as number) <= (result.duration_ms as number));

    // Every tool_use has exactly one later tool_result.
    const uses = ofType(evs, 'tool_use');
    assert.equal(uses.length, 11);
    for (const use of uses) {
      const results = evs.filter((e) => e.type === 'tool_result' && e.tool_call_id === use.tool_call_id);
      assert.equal(results.length, 1, `one result for ${String(use.tool_call_id)}`);
      const res = at(results, 0);
      assert.ok(evs.indexOf(res) > evs.indexOf(use));
      assert.equal(typeof res.duration_ms, 'number');
    }
    const read = at(uses, 0);
    assert.equal(read.name, 'read_file');
    assert.equal(read.kind, 'read');
    assert.deepEqual(read.input, { path: 'src/app.ts' });
    const results = ofType(evs, 'tool_result');
    assert.deepEqual(
      results.map((r) => r.is_error),
      [...Array<boolean>(10).fill(false), true],
    );
    assert.match(str(at(results, 10), 'output'), /no-unused-vars/);

    // Timestamps: epoch milliseconds, in order, within the run.
    let last = 0;
    for (const e of evs) {
      assert.equal(typeof e.timestamp, 'number');
      assert.ok(e.timestamp >= run.startedAt && e.timestamp <= run.endedAt, JSON.stringify(e));
      assert.ok(e.timestamp >= last);
      last = e.timestamp;
    }
    assert.match(run.stderr, new RegExp(`^session_id: ${String(first.session_id)}$`, 'm'));
    const pid = scriptedAgentPid(run.stderr);
    assert.ok(pid !== undefined && !isAlive(pid), 'the agent process is gone');
  });

  test('an agent crash mid-turn: exit 1, the error carries the stderr tail', async () => {
    const run = await runCli(oneShot('[crash when=mid mode=exit code=3]'), { cwd: work.path });
    assert.equal(run.code, 1, run.stderr);
    const evs = events(run);
    assert.equal(evs[0]?.type, 'system');
    const result = resultOf(evs);
    assert.equal(result.exit_code, 1);
    assert.equal(result.stop_reason, null);
    assert.match(str(result, 'error'), /exited with code 3/);
    assert.match(str(result, 'error'), /about to crash/);
    assert.equal(result.text, 'Working on it ');
  });

  test('SIGINT mid-turn: session/cancel, the turn ends cancelled, result with exit 130', async () => {
    const run = await runInterrupted(oneShot('[slow n=40 ms=100]'), work.path, 'tick 2');
    assert.equal(run.code, 130, run.stderr);
    const result = resultOf(events(run));
    assert.equal(result.exit_code, 130);
    assert.equal(result.stop_reason, 'cancelled');
    assert.equal(result.error, 'interrupted');
    assert.match(str(result, 'text'), /^tick 1\ntick 2\n/);
    assert.doesNotMatch(str(result, 'text'), /tick 40/);
    assert.match(run.stderr, /cancelled: session\/cancel/);
    const pid = scriptedAgentPid(run.stderr);
    assert.ok(pid !== undefined && !isAlive(pid), 'the agent process is gone');
  });

  test('SIGINT before the session started: exit 130, a result without a session', async () => {
    let sent = false;
    const run = await runCli(oneShot('[plain]'), {
      cwd: work.path,
      env: { SCRIPTED_AGENT_INIT_DELAY_MS: '20000' },
      onStderr: (all, child) => {
        if (!sent && all.includes('[scripted-agent] started')) {
          sent = true;
          child.kill('SIGINT');
        }
      },
    });
    assert.equal(run.code, 130, run.stderr);
    const evs = events(run);
    assert.deepEqual(evs.map((e) => e.type), ['system', 'result']);
    assert.equal(at(evs, 0).session_id, '');
    const result = resultOf(evs);
    assert.equal(result.session_id, '');
    assert.equal(result.exit_code, 130);
    assert.ok(run.endedAt - run.startedAt < 10_000);
  });

  test('a second SIGINT kills an agent that ignores session/cancel; the result still comes', async () => {
    // A raw NDJSON agent that starts a turn and never ends it, whatever the client says.
    const stub = path.join(work.path, 'stubborn-agent.js');
    fs.writeFileSync(
      stub,
      `const send = (o) => process.stdout.write(JSON.stringify(o) + '\\n');
       require('node:readline').createInterface({ input: process.stdin }).on('line', (line) => {
         const m = JSON.parse(line);
         if (m.method === 'initialize') send({ jsonrpc: '2.0', id: m.id, result: { protocolVersion: 1, agentCapabilities: {}, agentInfo: { name: 'stubborn', version: '0.0.1' } } });
         if (m.method === 'session/new') send({ jsonrpc: '2.0', id: m.id, result: { sessionId: 'stubborn-1' } });
         if (m.method === 'session/prompt') send({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 'stubborn-1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: 'working' } } } });
         if (m.method === 'session/cancel') process.stderr.write('stubborn: ignoring session/cancel\\n');
       });`,
    );
    let interrupts = 0;
    const run = await runCli(oneShot('anything', [], [process.execPath, stub]), {
      cwd: work.path,
      onLine: (line, child) => {
        if (interrupts === 0 && line.includes('"working"')) {
          interrupts++;
          child.kill('SIGINT');
        }
      },
      onStderr: (all, child) => {
        if (interrupts === 1 && all.includes('stubborn: ignoring session/cancel')) {
          interrupts++;
          child.kill('SIGINT');
        }
      },
    });
    assert.equal(interrupts, 2);
    assert.equal(run.code, 130, run.stderr);
    const evs = events(run);
    assert.equal(at(evs, 0).type, 'system');
    const result = resultOf(evs);
    assert.equal(result.exit_code, 130);
    assert.equal(result.session_id, 'stubborn-1');
    assert.equal(result.stop_reason, null);
    assert.match(str(result, 'error'), /^interrupted: /);
    assert.equal(result.text, 'working');
    assert.ok(run.endedAt - run.startedAt < 8000, 'did not wait for the cancel grace period');
  });

  test('a provider 429 as a JSON-RPC error exits 75', async () => {
    const run = await runCli(oneShot('[ratelimit]'), { cwd: work.path });
    assert.equal(run.code, 75, run.stderr);
    const result = resultOf(events(run));
    assert.equal(result.exit_code, 75);
    assert.equal(result.stop_reason, null);
    assert.match(str(result, 'error'), /Rate limit reached.*HTTP 429/);
  });

  test('a provider 429 reported as text with end_turn (Hermes style) exits 75', async () => {
    const run = await runCli(oneShot('[ratelimit-text]'), { cwd: work.path });
    assert.equal(run.code, 75, run.stderr);
    const result = resultOf(events(run));
    assert.equal(result.exit_code, 75);
    assert.equal(result.stop_reason, 'end_turn');
    assert.match(str(result, 'error'), /HTTP 429/);
  });

  test('the recorded Hermes rate-limit transcript exits 75', async () => {
    const ws = path.join(work.path, 'ws-rl');
    fs.mkdirSync(ws);
    const run = await runCli(oneShot('[ratelimit] hi', ['--cwd', ws], replayAgent('hermes/ratelimit.jsonl', work.path)), { cwd: work.path });
    assert.equal(run.code, 75, run.stderr);
    const evs = events(run);
    const init = at(evs, 0);
    assert.equal(init.type, 'system');
    assert.equal(init.session_id, 'c630877c-49cc-44ff-8b51-efab86331d55');
    assert.deepEqual(init.agent, { name: 'hermes-agent', version: '0.19.0' });
    assert.equal(init.model, 'custom:fake-model');
    const result = resultOf(evs);
    assert.equal(result.exit_code, 75);
    assert.equal(result.stop_reason, 'end_turn');
    assert.equal(result.text, 'API call failed after 3 retries: HTTP 429: Rate limit reached (fake)');
    assert.deepEqual(result.tokens, { input: 0, output: 0, total: 0, cache_read: 0, cache_write: 0 });
    assert.equal(result.tokens_reported, false, 'Hermes sent no usage with this response');
    // The runner followed the recorded request order.
    assert.doesNotMatch(run.stderr, /does not match the recording/);
  });

  suite('permissions', () => {
    async function permissionRun(extra: readonly string[]): Promise<{ permission: Event; result: Event; evs: Event[] }> {
      const run = await runCli(oneShot('[command cmd=rm -r build]', extra), { cwd: work.path });
      assert.equal(run.code, 0, run.stderr);
      const evs = events(run);
      const perms = ofType(evs, 'permission');
      assert.equal(perms.length, 1);
      const permission = at(perms, 0);
      assert.equal(permission.outcome, 'selected');
      // Hermes asks under `perm-check-1` about the `tc-…` call: one call (issue 18), named by its id.
      assert.match(String(permission.tool_call_id), /^tc-/);
      assert.equal(ofType(evs, 'tool_use').length, 1);
      assert.equal(ofType(evs, 'tool_result').length, 1);
      // tool_use → permission → tool_result for the asked-about call.
      const use = evs.findIndex((e) => e.type === 'tool_use' && e.tool_call_id === permission.tool_call_id);
      const res = evs.findIndex((e) => e.type === 'tool_result' && e.tool_call_id === permission.tool_call_id);
      assert.ok(use >= 0 && use < evs.indexOf(permission) && evs.indexOf(permission) < res);
      return { permission, result: resultOf(evs), evs };
    }

    test('deny (the default) answers the reject option', async () => {
      const { permission, result, evs } = await permissionRun([]);
      assert.equal(permission.optionId, 'deny');
      assert.equal(permission.option_kind, 'reject_once');
      assert.equal(permission.rule, '--permissions deny');
      assert.equal(result.text, 'You chose deny.');
      const blocked = evs.find((e) => e.type === 'tool_result' && e.tool_call_id === permission.tool_call_id);
      // The runner's choice, as the chat's "Denied": not an error.
      assert.deepEqual([blocked?.status, blocked?.is_error], ['denied', false]);
      assert.match(String(blocked?.output), /BLOCKED/);
    });

    test('allow answers allow_once', async () => {
      const { permission, result } = await permissionRun(['--permissions', 'allow']);
      assert.equal(permission.optionId, 'allow_once');
      assert.equal(permission.option_kind, 'allow_once');
      assert.equal(permission.rule, '--permissions allow');
      assert.equal(result.text, 'You chose allow_once.');
    });

    test('a rules file allowing the command answers allow_once, naming the rule', async () => {
      const rules = path.join(work.path, 'rules.json');
      fs.writeFileSync(
        rules,
        JSON.stringify({ rules: [{ kind: 'execute', command: 'rm -r build', effect: 'allow', description: 'cleaning the build directory is fine' }] }),
      );
      const { permission, result } = await permissionRun(['--permissions', rules]);
      assert.equal(permission.optionId, 'allow_once');
      assert.equal(permission.rule, 'cleaning the build directory is fine');
      assert.equal(result.text, 'You chose allow_once.');
    });

    test('a rules file that does not match (or asks) falls back to deny and says so', async () => {
      const rules = path.join(work.path, 'rules.json');
      fs.writeFileSync(rules, JSON.stringify([{ command: 'rm -r build', effect: 'ask', description: 'ask about deletions' }]));
      const { permission, result } = await permissionRun(['--permissions', rules]);
      assert.equal(permission.optionId, 'deny');
      assert.match(String(permission.rule), /^ask about deletions; denied: nobody to ask/);
      assert.equal(result.text, 'You chose deny.');
    });
  });

  test('a Hermes-style edit whose approval is denied is one call: denied with the denial, named by the approval\'s rawInput.tool', async () => {
    const run = await runCli(oneShot('[edit path=notes.txt]'), { cwd: work.path });
    assert.equal(run.code, 0, run.stderr);
    const evs = events(run);
    assert.equal(ofType(evs, 'tool_result').length, 1, 'the approval joined the call it guards');
    const denied = evs.find((e) => e.type === 'tool_result' && String(e.tool_call_id).startsWith('tc-'));
    assert.equal(denied?.status, 'denied');
    assert.equal(denied.is_error, false);
    assert.equal(denied.output, 'permission denied: --permissions deny');
    assert.equal(denied.name, 'write_file', 'named by the approval\'s rawInput.tool');
    assert.equal(fs.existsSync(path.join(work.path, 'notes.txt')), false, 'denied: the agent did not write');
  });

  test('missing -q: exit 2, nothing on stdout', async () => {
    const run = await runCli(['--format', 'stream-json', '--', ...scriptedAgent], { cwd: work.path });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /-q\/--query/);
  });

  test('bad arguments exit 2', async () => {
    for (const args of [['-q', 'x', '--format', 'xml'], ['-q', 'x', '--timeout', 'soon'], ['-q', 'x', 'stray'], ['-q', 'x', '--permissions', path.join(work.path, 'none.json')], ['-q', 'x', '--']]) {
      const run = await runCli(args, { cwd: work.path });
      assert.equal(run.code, 2, `${args.join(' ')}: ${run.stderr}`);
      assert.equal(run.stdout, '');
    }
  });

  test('a missing agent binary: exit 1 and a result without a session', async () => {
    const run = await runCli(oneShot('[plain]', [], [path.join(work.path, 'no-such-agent')]), { cwd: work.path });
    assert.equal(run.code, 1, run.stderr);
    const evs = events(run);
    assert.deepEqual(evs.map((e) => e.type), ['system', 'result']);
    assert.deepEqual(at(evs, 0).agent, { name: 'no-such-agent', version: null });
    const result = resultOf(evs);
    assert.equal(result.session_id, '');
    assert.equal(result.exit_code, 1);
    assert.equal(result.stop_reason, null);
    assert.match(str(result, 'error'), /no-such-agent` was not found/);
  });

  test('session/new failing: exit 1 with the agent\'s reason', async () => {
    const run = await runCli(oneShot('[plain]'), { cwd: work.path, env: { SCRIPTED_AGENT_NO_PROVIDER: '1' } });
    assert.equal(run.code, 1, run.stderr);
    const result = resultOf(events(run));
    assert.equal(result.session_id, '');
    assert.match(str(result, 'error'), /No LLM provider configured/);
  });

  test('stdout stays JSONL when the agent writes garbage to its stdout', async () => {
    const run = await runCli(oneShot('[garbage]'), { cwd: work.path });
    assert.equal(run.code, 0, run.stderr);
    const evs = events(run); // throws on any line that is not a JSON object
    assert.equal(resultOf(evs).text, 'Some garbage was written between these chunks.');
    assert.doesNotMatch(run.stdout, /unknown_notification|987654321/);
    assert.ok(evs.every((e) => ['system', 'text', 'tool_use', 'tool_result', 'permission', 'result'].includes(e.type)));
  });

  test('--timeout cancels the turn and exits 1 with error "timeout"', async () => {
    // 3 s leaves room for the agent's start on a loaded machine (the deadline counts from the
    // run's start; a start slower than the deadline ends with no turn to cancel).
    const run = await runCli(oneShot('[slow n=200 ms=100]', ['--timeout', '3']), { cwd: work.path });
    assert.equal(run.code, 1, run.stderr);
    const result = resultOf(events(run));
    assert.equal(result.exit_code, 1);
    assert.equal(result.error, 'timeout');
    assert.equal(result.stop_reason, 'cancelled');
    assert.ok((result.duration_ms as number) >= 3000);
    assert.ok(run.endedAt - run.startedAt < 15000);
  });

  test('--format text prints the final answer only', async () => {
    const run = await runCli(['-q', '[tools] [plain]', '--', ...scriptedAgent], { cwd: work.path });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(run.stdout, `${plainReply}\n`);
    assert.match(run.stderr, /^session_id: sess-/m);
  });

  test('--format text on a failed turn: nothing on stdout, the reason on stderr', async () => {
    const run = await runCli(['-q', '[refusal]', '--', ...scriptedAgent], { cwd: work.path });
    assert.equal(run.code, 1);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /refused/);
  });

  test('--query-file - reads the prompt from stdin', async () => {
    const run = await runCli(['--query-file', '-', '--format', 'stream-json', '--', ...scriptedAgent], { cwd: work.path, stdin: '[plain]\n' });
    assert.equal(run.code, 0, run.stderr);
    assert.equal(resultOf(events(run)).text, plainReply);
  });
});
