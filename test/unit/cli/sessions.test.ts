import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { assertValidEvent } from './streamContract';
import { events, perTestDir, resultOf, runCli, scriptedAgent, tempDir, type CliRun, type Event } from './cliHarness';

/**
 * Sessions across runs (issue 41) against an agent that keeps its sessions on disk between
 * processes (the scripted agent with SCRIPTED_AGENT_STATE_FILE): every run is a new agent process.
 */
suite('hermes-acp-run: sessions across runs', function () {
  this.timeout(40_000);
  const work = perTestDir();
  let env: Record<string, string> = {};
  let stateHome = '';

  setup(() => {
    stateHome = tempDir('hermes-cli-xdg-');
    env = { XDG_STATE_HOME: stateHome, SCRIPTED_AGENT_STATE_FILE: path.join(work.path, '.agent-state.json') };
  });
  teardown(() => fs.rmSync(stateHome, { recursive: true, force: true }));

  function run(query: string, extra: readonly string[] = [], more: Record<string, string> = {}): Promise<CliRun> {
    return runCli(['-q', query, '--format', 'stream-json', ...extra, '--', ...scriptedAgent], { cwd: work.path, env: { ...env, ...more } });
  }

  function ok(r: CliRun): { evs: Event[]; result: Event; id: string } {
    assert.equal(r.code, 0, r.stderr);
    const evs = events(r);
    const result = resultOf(evs);
    const first = evs[0];
    assert.equal(first?.type, 'system');
    assert.equal(first.session_id, result.session_id, 'system and result carry the same session id');
    return { evs, result, id: String(result.session_id) };
  }

  function replyOf(evs: readonly Event[]): string {
    return evs.filter((e) => e.type === 'text').map((e) => String(e.text)).join('');
  }

  test('--continue resumes the latest session of this agent and cwd; history is not printed again; session/resume is used', async () => {
    const first = ok(await run('first prompt [plain]'));
    const traffic = path.join(work.path, 'traffic.jsonl');
    const second = ok(await run('[recall]', ['--continue', '--traffic-log', traffic]));
    assert.equal(second.id, first.id);
    assert.match(String(second.result.text), /This session has 1 earlier turns\. Earlier prompts: 1\) first prompt \[plain\]/);
    assert.ok(!replyOf(second.evs).includes('Hello from the scripted agent'), 'the replayed history is not printed as new text');
    const methods = fs.readFileSync(traffic, 'utf8').split('\n').filter((l) => l !== '').map((l) => (JSON.parse(l) as { msg?: { method?: string } }).msg?.method);
    assert.ok(methods.includes('session/resume'), 'resumed with session/resume');
    assert.ok(!methods.includes('session/new'), 'no new session');
    const third = ok(await run('[recall]', ['-c']));
    assert.equal(third.id, first.id);
    assert.match(String(third.result.text), /has 2 earlier turns/);
  });

  test('without session/resume the runner loads: the replayed turns (text and tools) are not printed as new events', async () => {
    const noResume = { SCRIPTED_AGENT_NO_RESUME: '1' };
    const first = ok(await run('[tools] [plain]', [], noResume));
    const traffic = path.join(work.path, 'traffic.jsonl');
    const second = ok(await run('[recall]', ['--continue', '--traffic-log', traffic], noResume));
    assert.equal(second.id, first.id);
    assert.ok(fs.readFileSync(traffic, 'utf8').includes('"session/load"'), 'reopened with session/load');
    assert.deepEqual(second.evs.map((e) => e.type), ['system', 'text', 'result'], 'only the new turn is printed');
    assert.match(String(second.result.text), /has 1 earlier turns/);
  });

  test('--name names the session; --resume NAME and --resume ID reopen it; plain runs stay one-shot', async () => {
    const named = ok(await run('backend work [plain]', ['--name', 'backend']));
    const other = ok(await run('frontend work [plain]', ['--name', 'frontend']));
    assert.notEqual(named.id, other.id);
    const plain = ok(await run('[recall]'));
    assert.notEqual(plain.id, named.id, 'a run without the flags starts a new session');
    assert.notEqual(plain.id, other.id);
    assert.match(String(plain.result.text), /has 0 earlier turns/);
    const byName = ok(await run('[recall]', ['--resume', 'backend']));
    assert.equal(byName.id, named.id);
    assert.match(String(byName.result.text), /1\) backend work/);
    const byId = ok(await run('[recall]', ['--resume', other.id]));
    assert.equal(byId.id, other.id);
    assert.match(String(byId.result.text), /1\) frontend work/);
    // --continue takes the most recently used: the one just resumed by id
    const cont = ok(await run('[recall]', ['--continue']));
    assert.equal(cont.id, other.id);
  });

  test('an unknown id or name, or nothing to continue: exit 1, result last, the error names it; no session is created', async () => {
    for (const [flags, pattern] of [
      [['--continue'], /--continue: hermes-acp-run has no earlier session of scripted-agent in /],
      [['--resume', 'no-such-session'], /--resume no-such-session: unknown session "no-such-session"/],
    ] as const) {
      const r = await run('[plain]', flags);
      assert.equal(r.code, 1, r.stderr);
      const evs = events(r);
      const result = resultOf(evs);
      assert.equal(result.exit_code, 1);
      assert.match(String(result.error), pattern);
      assert.equal(result.session_id, '');
      assert.deepEqual(evs.map((e) => e.type), ['system', 'result']);
    }
    assert.equal(fs.existsSync(path.join(stateHome, 'hermes-acp-run', 'sessions')), false, 'no record was written');
  });

  test('a recorded session the agent no longer has: exit 1 naming it', async () => {
    const first = ok(await run('[plain]', ['--name', 'gone']));
    fs.rmSync(path.join(work.path, '.agent-state.json'));
    const r = await run('[plain]', ['--resume', 'gone']);
    assert.equal(r.code, 1);
    const result = resultOf(events(r));
    assert.match(String(result.error), new RegExp(`session "gone" \\(${first.id}\\) is no longer listed by scripted-agent`));
  });

  test('a session the agent lists for this cwd but the runner never recorded is resumed by id', async () => {
    const first = ok(await run('[plain]', [], { XDG_STATE_HOME: tempDir('hermes-cli-xdg-other-') }));
    const r = ok(await run('[recall]', ['--resume', first.id]));
    assert.equal(r.id, first.id);
    assert.match(String(r.result.text), /has 1 earlier turns/);
  });

  test('two runs finishing at once both leave their records; each record file is whole JSON', async () => {
    const [a, b] = await Promise.all([run('[plain]', ['--name', 'one']), run('[plain]', ['--name', 'two'])]);
    const ida = ok(a).id;
    const idb = ok(b).id;
    const dir = path.join(stateHome, 'hermes-acp-run', 'sessions');
    const files = fs.readdirSync(dir);
    assert.equal(files.length, 2, files.join(', '));
    assert.ok(files.every((f) => f.endsWith('.json')), 'no temporary file is left');
    const records = files.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')) as { sessionId: string; name: string; cwd: string });
    assert.deepEqual(records.map((r) => `${r.name}=${r.sessionId}`).sort(), [`one=${ida}`, `two=${idb}`].sort());
    assert.ok(records.every((r) => r.cwd === work.path));
    // and both resume concurrently into the same session without losing a record
    const [c, d] = await Promise.all([run('[plain]', ['--resume', 'one']), run('[plain]', ['--resume', 'one'])]);
    assert.equal(ok(c).id, ida);
    assert.equal(ok(d).id, ida);
    assert.equal(fs.readdirSync(dir).length, 2);
  });

  test('usage errors: --continue with --resume, an empty --resume, a bad --name (exit 2, no output)', async () => {
    for (const flags of [['--continue', '--resume', 'x'], ['--resume', ''], ['--name', 'a\nb'], ['--name', '']]) {
      const r = await run('[plain]', flags);
      assert.equal(r.code, 2, `${flags.join(' ')}: ${r.stderr}`);
      assert.equal(r.stdout, '');
      assert.match(r.stderr, /hermes-acp-run: (--continue|--resume|--name)/);
    }
  });

  function sessionsCmd(args: readonly string[], more: Record<string, string> = {}): Promise<CliRun> {
    return runCli(['sessions', ...args, '--', ...scriptedAgent], { cwd: work.path, env: { ...env, ...more } });
  }

  function jsonLines(r: CliRun): Record<string, unknown>[] {
    const lines = r.stdout.split('\n').filter((l) => l !== '').map((l) => JSON.parse(l) as Record<string, unknown>);
    lines.forEach((l, i) => assertValidEvent(l, `sessions line ${(i + 1).toString()}`));
    return lines;
  }

  test('sessions list / show / close: text and stream-json, with whether the agent still lists each', async () => {
    const a = ok(await run('[title text=Backend refactor] [plain]', ['--name', 'backend'])).id;
    const b = ok(await run('second task [plain]')).id;
    const listed = await sessionsCmd(['list', '--format', 'stream-json']);
    assert.equal(listed.code, 0, listed.stderr);
    const rows = jsonLines(listed);
    assert.deepEqual(rows.map((r) => r.session_id), [b, a], 'most recently used first');
    assert.deepEqual(rows.map((r) => r.name), [null, 'backend']);
    assert.deepEqual(rows.map((r) => r.title), ['second task [plain]', 'Backend refactor']);
    assert.ok(rows.every((r) => r.listed_by_agent === true && r.agent === 'scripted-agent' && r.cwd === work.path));

    const text = await sessionsCmd(['list']);
    assert.equal(text.code, 0, text.stderr);
    const lines = text.stdout.trim().split('\n');
    assert.equal(lines.length, 2);
    assert.match(lines[1] ?? '', new RegExp(`^"backend" \\(${a}\\)\\t\\d{4}-\\d\\d-\\d\\dT[^\\t]+\\tlisted by the agent\\tBackend refactor$`));

    const shown = await sessionsCmd(['show', 'backend', '--format', 'stream-json']);
    assert.equal(shown.code, 0, shown.stderr);
    assert.deepEqual(jsonLines(shown).map((r) => r.session_id), [a]);

    const closed = await sessionsCmd(['close', a, '--format', 'stream-json']);
    assert.equal(closed.code, 0, closed.stderr);
    const closedRows = jsonLines(closed);
    assert.equal(closedRows[0]?.closed, true);
    assert.deepEqual(jsonLines(await sessionsCmd(['list', '--format', 'stream-json'])).map((r) => r.session_id), [b]);
    const r = await run('[plain]', ['--resume', 'backend']);
    assert.equal(r.code, 1, 'the name is forgotten once closed');

    const unknown = await sessionsCmd(['show', 'nope']);
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, /unknown session "nope"/);
    // the agent forgot a session: the record stays, marked as not listed
    fs.rmSync(path.join(work.path, '.agent-state.json'));
    assert.deepEqual(jsonLines(await sessionsCmd(['list', '--format', 'stream-json'])).map((x) => x.listed_by_agent), [false]);
    for (const bad of [['frobnicate'], ['show'], ['list', 'x'], ['list', '--format', 'xml']]) {
      const u = await sessionsCmd(bad);
      assert.equal(u.code, 2, `${bad.join(' ')}: ${u.stderr}`);
      assert.equal(u.stdout, '');
    }
  });
});
