import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCommandLine, type ParsedCommandLine, type RunOptions } from '../../../src/cli/args';
import { turnVerdict, type TurnOutput } from '../../../src/cli/exitCodes';
import { boundJson, capText } from '../../../src/cli/bounded';

const noStdin = (): string => {
  throw new Error('stdin not expected');
};

function runOptions(parsed: ParsedCommandLine): RunOptions {
  assert.equal(parsed.kind, 'run', JSON.stringify(parsed));
  return parsed.options;
}

function rpcError(code: number, message: string, data?: unknown): Error {
  return Object.assign(new Error(message), { code, data });
}

suite('hermes-acp-run arguments', () => {
  const cwd = fs.realpathSync(os.tmpdir());

  test('defaults: text format, deny, the Hermes preset, the current directory', () => {
    const o = runOptions(parseCommandLine(['-q', 'hello'], cwd, noStdin));
    assert.deepEqual(o, { query: 'hello', format: 'text', cwd, permissions: { kind: 'deny' }, agent: { command: 'hermes', args: ['acp'] } });
  });

  test('everything after -- is the agent command, options included', () => {
    const o = runOptions(parseCommandLine(['-q', 'x', '--format', 'stream-json', '--timeout', '2.5', '--', 'agent', '-q', '--format', 'y'], cwd, noStdin));
    assert.deepEqual(o.agent, { command: 'agent', args: ['-q', '--format', 'y'] });
    assert.equal(o.format, 'stream-json');
    assert.equal(o.timeoutMs, 2500);
  });

  test('--agent ID: a registry agent (resolved before the run), --agent hermes and hermes-agent are hermes acp; contradictions are usage errors', () => {
    const reg = runOptions(parseCommandLine(['-q', 'x', '--agent', 'codex-acp', '-y'], cwd, noStdin));
    assert.deepEqual(reg.registryAgent, { id: 'codex-acp', yes: true });
    assert.deepEqual(runOptions(parseCommandLine(['-q', 'x', '--agent', 'codex-acp'], cwd, noStdin)).registryAgent, { id: 'codex-acp', yes: false });
    for (const id of ['hermes', 'hermes-agent']) {
      const o = runOptions(parseCommandLine(['-q', 'x', '--agent', id, '--ignore-rules'], cwd, noStdin));
      assert.deepEqual(o.agent, { command: 'hermes', args: ['--ignore-rules', 'acp'] });
      assert.equal(o.registryAgent, undefined);
    }
    const err = (argv: string[]): string => {
      const p = parseCommandLine(['-q', 'x', ...argv], cwd, noStdin);
      assert.equal(p.kind, 'error', JSON.stringify(p));
      return p.kind === 'error' ? p.message : '';
    };
    assert.match(err(['--yes']), /--yes goes with --agent ID/);
    assert.match(err(['--agent', 'codex-acp', '--', 'node', 'a.js']), /use either --agent codex-acp or an agent command after "--"/);
    assert.match(err(['--agent', 'codex-acp', '--transport', 'api-server', '--base-url', 'http://127.0.0.1:1']), /--agent starts an agent over ACP; --transport api-server/);
    assert.match(err(['--agent', '../evil']), /--agent needs an ACP Registry id/);
    assert.match(err(['--agent', 'codex-acp', '--skills', 'a']), /--skills is a Hermes flag; the agent "codex-acp" is not `hermes acp`/);
  });

  test('the prompt comes from -q, --query-file FILE or --query-file - (stdin)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-args-'));
    try {
      fs.writeFileSync(path.join(dir, 'q.txt'), 'from a file\n');
      assert.equal(runOptions(parseCommandLine(['--query-file', 'q.txt'], dir, noStdin)).query, 'from a file\n');
      assert.equal(runOptions(parseCommandLine(['--query-file', '-'], dir, () => 'from stdin')).query, 'from stdin');
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('usage errors', () => {
    const cases: [string[], RegExp][] = [
      [[], /a prompt is required/],
      [['-q', '  '], /empty/],
      [['-q', 'a', '--query-file', 'b'], /not both/],
      [['-q', 'a', '--format', 'json'], /--format/],
      [['-q', 'a', '--timeout', '-1'], /--timeout/],
      [['-q', 'a', '--cwd', '/no/such/dir'], /not a directory/],
      [['-q', 'a', 'hermes'], /unexpected argument "hermes"/],
      [['-q', 'a', '--'], /no agent command/],
      [['-q', 'a', '--nope'], /unknown option --nope/],
      [['-q'], /argument missing/],
    ];
    for (const [argv, message] of cases) {
      const parsed = parseCommandLine(argv, cwd, noStdin);
      assert.equal(parsed.kind, 'error', argv.join(' '));
      assert.match((parsed as { message: string }).message, message, argv.join(' '));
    }
  });

  test('--mode and --auth take an id', () => {
    const o = runOptions(parseCommandLine(['-q', 'a', '--mode', 'default', '--auth', 'custom'], cwd, noStdin));
    assert.equal(o.mode, 'default');
    assert.equal(o.auth, 'custom');
    for (const argv of [['-q', 'a', '--mode', ' '], ['-q', 'a', '--auth', '']]) {
      const parsed = parseCommandLine(argv, cwd, noStdin);
      assert.equal(parsed.kind, 'error', argv.join(' '));
      assert.match((parsed as { message: string }).message, /needs an id/);
    }
  });

  test('--permissions: deny, allow, or a rules file whose problems are usage errors', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-args-'));
    try {
      assert.deepEqual(runOptions(parseCommandLine(['-q', 'a', '--permissions', 'allow'], dir, noStdin)).permissions, { kind: 'allow' });
      fs.writeFileSync(path.join(dir, 'ok.json'), JSON.stringify([{ kind: 'read', effect: 'allow' }]));
      const p = runOptions(parseCommandLine(['-q', 'a', '--permissions', 'ok.json'], dir, noStdin)).permissions;
      assert.deepEqual(p, { kind: 'rules', file: path.join(dir, 'ok.json'), rules: [{ kind: ['read'], effect: 'allow' }] });
      fs.writeFileSync(path.join(dir, 'bad.json'), JSON.stringify([{ effect: 'maybe' }]));
      const bad = parseCommandLine(['-q', 'a', '--permissions', 'bad.json'], dir, noStdin);
      assert.equal(bad.kind, 'error');
      assert.match((bad as { message: string }).message, /"effect" must be/);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

suite('hermes-acp-run exit codes', () => {
  const ended = (stopReason: 'end_turn' | 'refusal' | 'max_tokens' | 'max_turn_requests' | 'cancelled') =>
    ({ kind: 'ended', stopReason, response: { stopReason } }) as const;
  const said = (text: string, stderrTail = ''): TurnOutput => ({ text, empty: text === '', stderrTail });

  test('end_turn is 0 unless the answer is a provider failure (Hermes)', () => {
    assert.equal(turnVerdict(ended('end_turn'), said('All done.'), undefined).exitCode, 0);
    assert.equal(turnVerdict(ended('end_turn'), said('API call failed after 3 retries: HTTP 503: upstream unavailable'), undefined).exitCode, 75);
    assert.equal(turnVerdict(ended('end_turn'), said('HTTP 402: insufficient credits'), undefined).exitCode, 75);
    const auth = turnVerdict(ended('end_turn'), said('HTTP 401: invalid api key'), undefined);
    assert.equal(auth.exitCode, 1);
    assert.match(auth.error ?? '', /401/);
  });

  test('refusal, max_tokens, max_turn_requests and an unasked cancel are failures', () => {
    for (const r of ['refusal', 'max_tokens', 'max_turn_requests', 'cancelled'] as const) {
      const v = turnVerdict(ended(r), said('text'), undefined);
      assert.equal(v.exitCode, 1, r);
      assert.equal(v.stopReason, r);
      assert.ok(v.error !== undefined);
    }
  });

  test('JSON-RPC errors: transient provider failures are 75, others 1', () => {
    const failed = (error: unknown) => turnVerdict({ kind: 'failed', error }, said(''), undefined).exitCode;
    assert.equal(failed(rpcError(-32603, 'Internal error', { httpStatus: 429 })), 75);
    assert.equal(failed(rpcError(-32603, 'Internal error', { httpStatus: 529 })), 75);
    assert.equal(failed(rpcError(-32603, 'Internal error', { message: 'upstream request timed out' })), 75);
    assert.equal(failed(rpcError(-32603, 'Internal error', { message: 'You exceeded your current quota' })), 75);
    // As the rig saw them (issue 18): Qwen Code's detail starts with the status; Codex names the failure.
    assert.equal(failed(rpcError(-32603, 'Internal error', { details: '500 The scripted model server failed (scripted 500).' })), 75);
    assert.equal(failed(rpcError(-32603, 'Internal error', { message: "We're currently experiencing high demand, which may cause temporary errors.", codex_error_info: 'internal_server_error' })), 75);
    assert.equal(failed(rpcError(-32603, 'Internal error', { message: 'bad', codex_error_info: 'bad_request' })), 1);
    assert.equal(failed(rpcError(-32603, 'Internal error: file 404.txt missing')), 1, 'a number in a sentence is not a status');
    assert.equal(failed(rpcError(-32603, 'Internal error')), 1);
    assert.equal(failed(rpcError(-32602, 'Invalid params')), 1);
  });

  test('a stop by the runner wins: interrupt 130, timeout 1 "timeout"', () => {
    assert.deepEqual(turnVerdict(ended('cancelled'), said(''), 'interrupt'), { exitCode: 130, stopReason: 'cancelled', error: 'interrupted' });
    assert.deepEqual(turnVerdict(ended('cancelled'), said(''), 'timeout'), { exitCode: 1, stopReason: 'cancelled', error: 'timeout' });
    assert.equal(turnVerdict(ended('end_turn'), said('done anyway'), 'interrupt').exitCode, 130);
  });

  test('an end_turn without text, tool call or plan fails, with the stderr tail; a provider failure there is 75', () => {
    const empty = turnVerdict(ended('end_turn'), said('', 'model: claude\nno more lines'), undefined);
    assert.equal(empty.exitCode, 1);
    assert.match(empty.error ?? '', /^the agent ended the turn without output\nmodel: claude\nno more lines$/);
    const cline = turnVerdict(ended('end_turn'), said('', '[api] request failed: 429 Too Many Requests'), undefined);
    assert.equal(cline.exitCode, 75);
    assert.match(cline.error ?? '', /without output: the model provider failed \(rateLimit, HTTP 429\)/);
    const bad = turnVerdict(ended('end_turn'), said('', 'Error: status 400 invalid model'), undefined);
    assert.equal(bad.exitCode, 1);
    assert.match(bad.error ?? '', /HTTP 400/);
  });

  test('a reply of retry notices only is a provider failure where stderr says so, else a failure', () => {
    const retries = 'Retrying (attempt 1/3, waiting 2s)...Retrying (attempt 2/3, waiting 4s)...\n';
    const told = turnVerdict(ended('end_turn'), { text: retries, empty: false, stderrTail: 'provider error: HTTP 503 upstream unavailable' }, undefined);
    assert.equal(told.exitCode, 75);
    assert.match(told.error ?? '', /only reported retries.*HTTP 503/s);
    const silent = turnVerdict(ended('end_turn'), { text: retries, empty: false, stderrTail: '' }, undefined);
    assert.equal(silent.exitCode, 1);
    assert.match(silent.error ?? '', /^the agent only reported retries \("Retrying \(attempt 1\/3/);
    // pi as the rig saw it after a 429: a banner, the notices, "Retry finished, resuming.", nothing else.
    const pi = turnVerdict(ended('end_turn'), said('pi v1.6.0\n---\nRetrying (attempt 1/3, waiting 2s)...Retrying (attempt 3/3, waiting 8s)...Retry finished, resuming.'), undefined);
    assert.equal(pi.exitCode, 1);
    // A real answer that mentions retrying is an answer; so is "Retry finished, resuming." plus text.
    assert.equal(turnVerdict(ended('end_turn'), said('Retrying the build fixed it.'), undefined).exitCode, 0);
    assert.equal(turnVerdict(ended('end_turn'), said('Retrying (attempt 1/3)...Retry finished, resuming. Here is the answer.'), undefined).exitCode, 0);
  });

  test('text is capped at a length, marker included, without splitting a surrogate pair', () => {
    assert.deepEqual(capText('abc', 5), { value: 'abc', truncated: false });
    assert.deepEqual(capText('abcdef', 5), { value: 'abcd…', truncated: true });
    assert.deepEqual(capText('abc😀x', 5), { value: 'abc…', truncated: true });
  });

  test('JSON values are cut in depth, breadth and size, with markers, and keep __proto__ as a key', () => {
    let deep: unknown = 'bottom';
    for (let i = 0; i < 1000; i++) {
      deep = { next: deep };
    }
    const cut = boundJson(deep);
    assert.equal(cut.truncated, true);
    const text = JSON.stringify(cut.value);
    assert.equal((text.match(/"next"/g) ?? []).length, 16);
    assert.match(text, /nested deeper than 16 levels/);
    const wide = boundJson({ list: Array.from({ length: 500 }, (_, i) => i), long: 'x'.repeat(10_000) });
    const w = wide.value as { list: unknown[]; long: string };
    assert.equal(w.list.length, 201);
    assert.equal(w.list[200], '[… cut: 300 more items]');
    assert.equal(w.long.length, 4000);
    assert.ok(w.long.endsWith('…'));
    const proto = boundJson(JSON.parse('{"__proto__": {"polluted": true}, "a": 1}'));
    assert.deepEqual(Object.keys(proto.value as object), ['__proto__', 'a']);
    assert.equal(({} as { polluted?: boolean }).polluted, undefined);
    assert.deepEqual(boundJson({ path: 'a.txt', n: 1, ok: true, none: null }), { value: { path: 'a.txt', n: 1, ok: true, none: null }, truncated: false });
  });
});
