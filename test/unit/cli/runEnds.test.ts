/**
 * How hermes-acp-run ends a run whatever the agent does: a turn with no output, "Retrying…"-only
 * replies, a daemon that left the agent's process group, a `rawInput` 1,000 levels deep, sign-in,
 * and naming the agent when it sends no `agentInfo`.
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentIdentity, executableName } from '../../../src/cli/agentIdentity';
import { findMarked, runMarkerVariable, stopMarked } from '../../../src/cli/processSweep';
import { scriptedAgentPath } from '../../support/paths';
import { until } from '../../support/wait';
import { events, perTestDir, isAlive, ofType, resultOf, runCli, scriptedAgent, tempDir } from './cliHarness';

function oneShot(query: string, extra: readonly string[] = [], agent: readonly string[] = scriptedAgent): string[] {
  return ['-q', query, '--format', 'stream-json', ...extra, '--', ...agent];
}

/** `pid`'s session id (field 6 of /proc/<pid>/stat), or undefined when it is gone. */
function sessionOf(pid: number): number | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[3]);
  } catch {
    return undefined;
  }
}

suite('hermes-acp-run: how runs end', function () {
  this.timeout(30_000);
  const work = perTestDir();

  test('an end_turn without text, tool call or plan: exit 1, "the agent ended the turn without output", with the stderr tail', async () => {
    const run = await runCli(oneShot('[empty]'), { cwd: work.path });
    assert.equal(run.code, 1, run.stderr);
    const result = resultOf(events(run));
    assert.equal(result.stop_reason, 'end_turn');
    assert.match(String(result.error), /^the agent ended the turn without output\n[\s\S]*\[scripted-agent\] prompt sess-\S+: \[empty\]/);
  });

  test('"Retrying…" only: exit 75 when the agent\'s stderr names a 429, else exit 1', async () => {
    const told = await runCli(oneShot('[retrying n=3 cause="HTTP 429 Too Many Requests"]'), { cwd: work.path });
    assert.equal(told.code, 75, told.stderr);
    assert.match(String(resultOf(events(told)).error), /^the agent only reported retries \("Retrying \(attempt 1\/3, waiting 1s\)\.\.\..*"\) and ended the turn: the model provider failed \(rateLimit, HTTP 429\): .*HTTP 429 Too Many Requests$/);
    const silent = await runCli(oneShot('[retrying n=2]'), { cwd: work.path });
    assert.equal(silent.code, 1, silent.stderr);
    assert.match(String(resultOf(events(silent)).error), /^the agent only reported retries/);
  });

  test('a child that calls setsid leaves the agent\'s process group and is still stopped (found by the run marker)', async () => {
    let daemon: number | undefined;
    let daemonSession: number | undefined;
    const run = await runCli(oneShot('[spawn-daemon] [plain]'), {
      cwd: work.path,
      onStderr: (all) => {
        const m = /daemon pid (\d+) started/.exec(all);
        if (m !== null && daemon === undefined) {
          daemon = Number(m[1]);
          daemonSession = sessionOf(daemon);
        }
      },
    });
    assert.equal(run.code, 0, run.stderr);
    assert.ok(daemon !== undefined && daemon > 0, run.stderr);
    assert.equal(daemonSession, daemon, 'the daemon leads its own session: a process-group kill does not reach it');
    assert.equal(isAlive(daemon), false, 'the daemon is gone');
    assert.deepEqual(resultOf(events(run)).left_running, []);
  });

  test('what cannot be stopped is named (a kill that fails, as for another user\'s process)', async () => {
    const marker = `test-${process.pid}-${Date.now()}`;
    const child = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { env: { ...process.env, [runMarkerVariable]: marker }, stdio: 'ignore' });
    try {
      await new Promise((r) => child.once('spawn', r));
      assert.deepEqual(findMarked(marker), [child.pid]);
      const left = await stopMarked(marker, {
        graceMs: 200,
        kill: () => {
          throw Object.assign(new Error('operation not permitted'), { code: 'EPERM' });
        },
      });
      assert.deepEqual(left, [{ pid: child.pid, command: `${process.execPath} -e setInterval(() => {}, 1000)` }]);
      assert.deepEqual(await stopMarked(marker, { graceMs: 2000 }), [], 'a real kill stops it');
      assert.deepEqual(findMarked(`${marker}-other`), [], 'only the exact marker matches');
    } finally {
      child.kill('SIGKILL');
    }
  });

  test('a rawInput 1,000 levels deep: every line still reads in Python, the input cut with markers, output capped at 5,000', async () => {
    const run = await runCli(oneShot('[deep-input depth=1000 leaf=100000 kb=8]'), { cwd: work.path });
    assert.equal(run.code, 0, run.stderr);
    const evs = events(run);
    const use = ofType(evs, 'tool_use')[0];
    assert.equal(use?.input_truncated, true);
    assert.match(JSON.stringify(use.input), /nested deeper than 16 levels/);
    const res = ofType(evs, 'tool_result')[0];
    assert.equal(String(res?.output).length, 5000);
    assert.equal(res?.output_truncated, true);
    const read = execFileSync('python3', ['-c', 'import json, sys\nprint(sum(1 for line in sys.stdin if json.loads(line)))'], { input: run.stdout, encoding: 'utf8' });
    assert.equal(read.trim(), String(evs.length));
  });

  suite('sign-in', () => {
    test('auth_required with one agent method: authenticate with it and retry once', async () => {
      const run = await runCli(oneShot('[plain]'), { cwd: work.path, env: { SCRIPTED_AGENT_AUTH: 'required' } });
      assert.equal(run.code, 0, run.stderr);
      assert.match(run.stderr, /requires sign-in; authenticating with its only agent method "scripted-login"/);
      assert.match(run.stderr, /authenticate scripted-login \(answered \{\}\)/);
    });

    test('several agent methods: the error lists every method (id, name, type) and the flag; --auth picks one', async () => {
      const run = await runCli(oneShot('[plain]'), { cwd: work.path, env: { SCRIPTED_AGENT_AUTH: 'required-two' } });
      assert.equal(run.code, 1, run.stderr);
      const error = String(resultOf(events(run)).error);
      assert.match(error, /^the agent requires sign-in \(auth_required\): Authentication required: Sign in first/);
      assert.match(error, /- scripted-login \("Log in with the stored scripted credentials", agent\): run again with --auth scripted-login/);
      assert.match(error, /- scripted-token \("Use a scripted token", agent\): run again with --auth scripted-token/);
      assert.match(error, /- scripted-setup \("Configure scripted agent", terminal\): run `\S+ \S+scriptedAgent\.js --setup` in a terminal first/);
      assert.match(error, /- scripted-api-key \("Use SCRIPTED_API_KEY", env_var\): set SCRIPTED_API_KEY before the run/);
      const picked = await runCli(oneShot('[plain]', ['--auth', 'scripted-token']), { cwd: work.path, env: { SCRIPTED_AGENT_AUTH: 'required-two' } });
      assert.equal(picked.code, 0, picked.stderr);
    });

    test('--auth with a terminal or unknown method fails before session/new, saying why', async () => {
      const terminal = await runCli(oneShot('[plain]', ['--auth', 'scripted-setup']), { cwd: work.path, env: { SCRIPTED_AGENT_AUTH: 'required' } });
      assert.equal(terminal.code, 1);
      assert.match(String(resultOf(events(terminal)).error), /^--auth scripted-setup: it is a terminal method, which needs a human/);
      const unknown = await runCli(oneShot('[plain]', ['--auth', 'nope']), { cwd: work.path });
      assert.match(String(resultOf(events(unknown)).error), /^--auth nope: the agent offers no such method/);
    });
  });

  test('system.agent without agentInfo is the program run, never a wrapper such as env', async () => {
    const run = await runCli(oneShot('[plain]', [], ['env', 'SCRIPTED_AGENT_INFO_NAME=none', process.execPath, scriptedAgentPath]), { cwd: work.path });
    assert.equal(run.code, 0, run.stderr);
    assert.deepEqual(events(run)[0]?.agent, { name: 'scriptedAgent', version: null });
  });

  test('executable names behind wrappers', () => {
    const cases: [string, string[], string][] = [
      ['env', ['A=1', 'B=2', 'hermes', 'acp'], 'hermes'],
      ['/usr/bin/env', ['-u', 'HOME', '--', 'gemini', '--acp'], 'gemini'],
      ['npx', ['-y', '@zed-industries/codex-acp@0.16.0'], 'codex-acp'],
      ['npx', ['--package', 'x', 'qwen', '--acp'], 'qwen'],
      ['pnpm', ['dlx', 'opencode-ai@1.18.33', 'acp'], 'opencode-ai'],
      ['node', ['--enable-source-maps', '/x/node_modules/@zed-industries/claude-agent-acp/dist/index.js'], 'claude-agent-acp'],
      ['node', ['/work/dist/agents/scriptedAgent.js'], 'scriptedAgent'],
      ['node', ['/work/pi-acp/dist/index.js'], 'pi-acp'],
      ['sh', ['-c', 'exec cline --acp'], 'cline'],
      ['uv', ['run', 'python', '-m', 'hermes', 'acp'], 'hermes'],
      ['C:\\tools\\cline.exe', ['--acp'], 'cline'],
      ['hermes', ['acp'], 'hermes'],
    ];
    for (const [command, args, name] of cases) {
      assert.equal(executableName(command, args), name, `${command} ${args.join(' ')}`);
    }
    assert.deepEqual(agentIdentity({ name: 'qwen-code', title: 'Qwen Code', version: '0.24.4' }, 'env', ['qwen']), { name: 'qwen-code', title: 'Qwen Code', version: '0.24.4' });
  });
});

suite('hermes-acp-run: the run marker', () => {
  test('a process that clears its environment is not mistaken for one of ours, and ours are found through a different cwd', async () => {
    const marker = `marker-${process.pid}-${Date.now()}`;
    const dir = tempDir();
    const ours = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { cwd: dir, env: { ...process.env, [runMarkerVariable]: marker }, stdio: 'ignore' });
    const cleared = spawn(process.execPath, ['-e', 'setInterval(() => {}, 1000)'], { env: { PATH: process.env.PATH ?? '' }, stdio: 'ignore' });
    try {
      await Promise.all([new Promise((r) => ours.once('spawn', r)), new Promise((r) => cleared.once('spawn', r))]);
      assert.deepEqual(findMarked(marker), [ours.pid]);
      assert.deepEqual(await stopMarked(marker, { graceMs: 2000 }), []);
      // The sweep reads the marker from /proc/<pid>/environ, which reads empty once the process has
      // released its memory on the way out; its state turns Z a moment later (a CI run saw it between).
      await until('our marked process to be gone', () => !isAlive(ours.pid ?? -1), 2000);
      assert.equal(isAlive(cleared.pid ?? -1), true, 'an unmarked process is left alone');
    } finally {
      ours.kill('SIGKILL');
      cleared.kill('SIGKILL');
      fs.rmSync(path.join(dir), { recursive: true, force: true });
    }
  });
});
