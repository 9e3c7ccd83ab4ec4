import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { ClientRequestError, RpcCode } from '../../../src/agentPort/agentErrors';
import { TerminalManager, formatCommand, type TerminalManagerOptions } from '../../../src/acp/terminals';
import { tempWorkspace } from '../../support/agentStack';
import { isAlive } from '../../support/processes';

const posix = process.platform !== 'win32';
const SESSION = 'sess-a';

function never(): AbortSignal {
  return new AbortController().signal;
}

function isRpc(code: number, pattern?: RegExp): (e: unknown) => boolean {
  return (e: unknown) => {
    assert.ok(ClientRequestError.is(e), `expected a ClientRequestError, got ${String(e)}`);
    assert.equal(e.code, code, e.message);
    if (pattern !== undefined) {
      assert.match(e.message, pattern);
    }
    return true;
  };
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

suite('TerminalManager (ACP terminal/*) with real processes', function () {
  if (!posix) {
    // The commands below are POSIX shell; the manager itself also runs on Windows.
    return;
  }
  let ws: string;
  let mgr: TerminalManager;
  const extra: TerminalManager[] = [];

  function manager(options: Partial<TerminalManagerOptions> = {}): TerminalManager {
    const m = new TerminalManager({ roots: () => [ws], killGraceMs: 500, ...options });
    extra.push(m);
    return m;
  }

  async function create(params: Partial<acp.CreateTerminalRequest> & { command: string }, m = mgr): Promise<acp.TerminalOutputRequest> {
    const sessionId = params.sessionId ?? SESSION;
    const { terminalId } = await m.createTerminal({ sessionId, ...params }, never());
    return { sessionId, terminalId };
  }

  async function sh(script: string, extraParams: Partial<acp.CreateTerminalRequest> = {}, m = mgr): Promise<acp.TerminalOutputRequest> {
    return create({ command: 'sh', args: ['-c', script], ...extraParams }, m);
  }

  /** Polls terminal/output until `predicate` holds. */
  async function outputWhen(ids: acp.TerminalOutputRequest, predicate: (out: string) => boolean, m = mgr, ms = 5000): Promise<string> {
    const deadline = Date.now() + ms;
    for (;;) {
      const { output } = await m.terminalOutput(ids, never());
      if (predicate(output)) {
        return output;
      }
      if (Date.now() > deadline) {
        throw new Error(`output condition not met within ${ms} ms; output so far: ${JSON.stringify(output)}`);
      }
      await sleep(20);
    }
  }

  /** Starts `sh` printing its own pid and a background child's pid, then sleeping. */
  async function withChild(m = mgr, extraScript = ''): Promise<{ ids: acp.TerminalOutputRequest; pids: number[] }> {
    const ids = await sh(`${extraScript}echo $$; sleep 30 & echo $!; sleep 30`, {}, m);
    const out = await outputWhen(ids, (o) => o.trim().split('\n').length >= 2, m);
    const pids = out.trim().split('\n').map(Number);
    assert.equal(pids.length, 2);
    for (const pid of pids) {
      assert.ok(isAlive(pid), `pid ${pid} runs`);
    }
    return { ids, pids };
  }

  setup(() => {
    ws = tempWorkspace('hermes-term-');
    mgr = manager();
  });

  teardown(async () => {
    await Promise.all(extra.splice(0).map((m) => m.dispose()));
  });

  test('create + output + wait_for_exit for echo (exit 0)', async () => {
    const ids = await create({ command: 'echo', args: ['hello', 'world'] });
    assert.match(ids.terminalId, /^term-/);
    const exit = await mgr.waitForTerminalExit(ids, never());
    assert.deepEqual(exit, { exitCode: 0, signal: null });
    const out = await mgr.terminalOutput(ids, never());
    assert.deepEqual(out, { output: 'hello world\n', truncated: false, exitStatus: { exitCode: 0, signal: null } });
    // Waiting again after the exit answers at once.
    assert.deepEqual(await mgr.waitForTerminalExit(ids, never()), { exitCode: 0, signal: null });
  });

  test('create returns at once; exitStatus is absent while running', async () => {
    const started = Date.now();
    const ids = await sh('sleep 5');
    assert.ok(Date.now() - started < 1000, 'create did not wait for the command');
    const out = await mgr.terminalOutput(ids, never());
    assert.equal('exitStatus' in out, false);
    assert.equal(mgr.snapshot(ids.terminalId)?.running, true);
  });

  test('stdout and stderr are interleaved in arrival order', async () => {
    const ids = await sh('echo one; sleep 0.1; echo two >&2; sleep 0.1; echo three');
    await mgr.waitForTerminalExit(ids, never());
    assert.equal((await mgr.terminalOutput(ids, never())).output, 'one\ntwo\nthree\n');
  });

  test('env is an array of {name, value} added to the inherited environment', async () => {
    const m = manager({ env: { HERMES_BASE: 'base', HERMES_OVERRIDE: 'manager' } });
    const ids = await sh('printf "%s|%s|%s|%s" "$HERMES_A" "$HERMES_B" "$HERMES_BASE" "$HERMES_OVERRIDE"; test -n "$PATH" && printf "|path"', {
      env: [
        { name: 'HERMES_A', value: 'one' },
        { name: 'HERMES_B', value: 'two words' },
        { name: 'HERMES_OVERRIDE', value: 'agent' },
      ],
    }, m);
    await m.waitForTerminalExit(ids, never());
    assert.equal((await m.terminalOutput(ids, never())).output, 'one|two words|base|agent|path');
  });

  test('invalid params are refused with -32602', async () => {
    await assert.rejects(create({ command: '' }), isRpc(RpcCode.invalidParams));
    await assert.rejects(create({ command: 'echo', env: [{ name: 'A=B', value: 'x' }] }), isRpc(RpcCode.invalidParams));
    await assert.rejects(create({ command: 'echo', env: [{ name: '', value: 'x' }] }), isRpc(RpcCode.invalidParams));
    await assert.rejects(create({ command: 'echo', outputByteLimit: -1 }), isRpc(RpcCode.invalidParams));
    await assert.rejects(create({ command: 'echo', outputByteLimit: 1.5 }), isRpc(RpcCode.invalidParams));
    await assert.rejects(create({ command: 'echo', args: ['a\0b'] }), isRpc(RpcCode.invalidParams));
  });

  test('cwd: the first root by default, a folder inside is honoured', async () => {
    fs.mkdirSync(path.join(ws, 'sub', 'dir'), { recursive: true });
    const dflt = await create({ command: 'pwd' });
    await mgr.waitForTerminalExit(dflt, never());
    assert.equal((await mgr.terminalOutput(dflt, never())).output, `${ws}\n`);
    assert.equal(mgr.snapshot(dflt.terminalId)?.cwd, ws);

    const inner = await create({ command: 'pwd', cwd: path.join(ws, 'sub', 'dir') });
    await mgr.waitForTerminalExit(inner, never());
    assert.equal((await mgr.terminalOutput(inner, never())).output, `${path.join(ws, 'sub', 'dir')}\n`);

    // A second workspace folder is allowed too.
    const other = tempWorkspace('hermes-term-b-');
    const m = manager({ roots: () => [ws, other] });
    const second = await create({ command: 'pwd', cwd: other }, m);
    await m.waitForTerminalExit(second, never());
    assert.equal((await m.terminalOutput(second, never())).output, `${other}\n`);
  });

  test('cwd outside the workspace, through a symlink, relative, missing or a file is refused', async () => {
    const outside = tempWorkspace('hermes-outside-');
    fs.symlinkSync(outside, path.join(ws, 'escape'));
    fs.writeFileSync(path.join(ws, 'file.txt'), 'x');
    await assert.rejects(create({ command: 'pwd', cwd: outside }), isRpc(RpcCode.resourceNotFound, /outside the workspace/));
    await assert.rejects(create({ command: 'pwd', cwd: path.join(ws, 'escape') }), isRpc(RpcCode.resourceNotFound, /resolves to/));
    await assert.rejects(create({ command: 'pwd', cwd: path.join(ws, '..', path.basename(outside)) }), isRpc(RpcCode.resourceNotFound));
    await assert.rejects(create({ command: 'pwd', cwd: 'sub' }), isRpc(RpcCode.invalidParams, /absolute/));
    await assert.rejects(create({ command: 'pwd', cwd: path.join(ws, 'nope') }), isRpc(RpcCode.resourceNotFound, /does not exist/));
    await assert.rejects(create({ command: 'pwd', cwd: path.join(ws, 'file.txt') }), isRpc(RpcCode.invalidParams, /not a directory/));
    await assert.rejects(create({ command: 'pwd' }, manager({ roots: () => [] })), isRpc(RpcCode.invalidParams, /No workspace folder/));
  });

  test('non-zero exit code', async () => {
    const ids = await sh('echo failing; exit 3');
    assert.deepEqual(await mgr.waitForTerminalExit(ids, never()), { exitCode: 3, signal: null });
    assert.deepEqual((await mgr.terminalOutput(ids, never())).exitStatus, { exitCode: 3, signal: null });
  });

  test('exit by a signal reports the signal and a null exit code', async () => {
    const ids = await sh('kill -TERM $$');
    assert.deepEqual(await mgr.waitForTerminalExit(ids, never()), { exitCode: null, signal: 'SIGTERM' });
    const snap = mgr.snapshot(ids.terminalId);
    assert.equal(snap?.running, false);
    assert.equal(snap?.signal, 'SIGTERM');
    assert.equal(snap?.exitCode, null);
  });

  test('a missing executable is a terminal with "command not found" and exit code 127', async () => {
    const ids = await create({ command: 'hermes-no-such-command-xyz', args: ['--flag'] });
    assert.deepEqual(await mgr.waitForTerminalExit(ids, never()), { exitCode: 127, signal: null });
    const out = await mgr.terminalOutput(ids, never());
    assert.equal(out.output, 'command not found: hermes-no-such-command-xyz\n');
    assert.deepEqual(out.exitStatus, { exitCode: 127, signal: null });
    // Still a normal terminal: kill and release work.
    assert.deepEqual(await mgr.killTerminal(ids, never()), {});
    assert.deepEqual(await mgr.releaseTerminal(ids, never()), {});
  });

  test('a file that is not executable exits 126', async () => {
    const script = path.join(ws, 'not-executable.sh');
    fs.writeFileSync(script, 'echo hi\n', { mode: 0o644 });
    const ids = await create({ command: script });
    assert.deepEqual(await mgr.waitForTerminalExit(ids, never()), { exitCode: 126, signal: null });
    assert.match((await mgr.terminalOutput(ids, never())).output, /^cannot execute /);
  });

  test('outputByteLimit keeps the tail, cut at a UTF-8 character boundary', async () => {
    // 10 × "€" (3 bytes each) = 30 bytes; a limit of 10 would split a character: 3 whole ones remain.
    const ids = await create({ command: 'printf', args: ['%s', '€'.repeat(10)], outputByteLimit: 10 });
    await mgr.waitForTerminalExit(ids, never());
    const out = await mgr.terminalOutput(ids, never());
    assert.equal(out.output, '€€€');
    assert.equal(out.truncated, true);
    assert.equal(mgr.snapshot(ids.terminalId)?.truncated, true);

    const small = await create({ command: 'printf', args: ['%s', '€€'], outputByteLimit: 6 });
    await mgr.waitForTerminalExit(small, never());
    assert.deepEqual(await mgr.terminalOutput(small, never()), { output: '€€', truncated: false, exitStatus: { exitCode: 0, signal: null } });
  });

  test('outputByteLimit over many pipe chunks: a valid suffix within the limit', async () => {
    // 40,000 lines of "€\n" (E2 82 AC 0A) arrive in many chunks. The last 1002 bytes start with
    // "AC 0A": the orphaned continuation byte is dropped, 1001 bytes remain.
    const ids = await sh(`i=0; while [ $i -lt 200 ]; do printf '€\\n%.0s' $(seq 1 200); i=$((i+1)); done`, { outputByteLimit: 1002 });
    await mgr.waitForTerminalExit(ids, never());
    const { output, truncated } = await mgr.terminalOutput(ids, never());
    assert.equal(truncated, true);
    assert.equal(Buffer.byteLength(output), 1001);
    assert.equal(output, `\n${'€\n'.repeat(250)}`);
  });

  test('the default limit is 1 MiB and can be configured', async () => {
    const m = manager({ defaultOutputByteLimit: 8 });
    const ids = await create({ command: 'printf', args: ['%s', '0123456789'] }, m);
    await m.waitForTerminalExit(ids, never());
    assert.deepEqual(await m.terminalOutput(ids, never()), { output: '23456789', truncated: true, exitStatus: { exitCode: 0, signal: null } });
  });

  test('kill ends the process group but keeps output and exit status', async () => {
    const { ids, pids } = await withChild();
    assert.deepEqual(await mgr.killTerminal(ids, never()), {});
    for (const pid of pids) {
      assert.equal(isAlive(pid), false, `pid ${pid} is gone after kill`);
    }
    const out = await mgr.terminalOutput(ids, never());
    assert.equal(out.output, `${pids.join('\n')}\n`);
    assert.deepEqual(out.exitStatus, { exitCode: null, signal: 'SIGTERM' });
    assert.deepEqual(await mgr.waitForTerminalExit(ids, never()), { exitCode: null, signal: 'SIGTERM' });
    // Kill is idempotent, and the terminal is still valid until released.
    assert.deepEqual(await mgr.killTerminal(ids, never()), {});
    assert.deepEqual(await mgr.releaseTerminal(ids, never()), {});
  });

  test('kill escalates to SIGKILL after the grace period when SIGTERM is ignored', async () => {
    const m = manager({ killGraceMs: 300 });
    const ids = await sh(`trap '' TERM; echo ready; while :; do sleep 0.05; done`, {}, m);
    await outputWhen(ids, (o) => o.includes('ready'), m);
    const started = Date.now();
    await m.killTerminal(ids, never());
    const took = Date.now() - started;
    assert.ok(took >= 250, `waited the grace period (${took} ms)`);
    assert.ok(took < 3000, `but not much longer (${took} ms)`);
    assert.deepEqual((await m.terminalOutput(ids, never())).exitStatus, { exitCode: null, signal: 'SIGKILL' });
  });

  test('kill also ends children left running after the command itself exited', async () => {
    const ids = await sh('sleep 30 & echo $!');
    const out = await outputWhen(ids, (o) => o.trim() !== '');
    const child = Number(out.trim());
    assert.deepEqual(await mgr.waitForTerminalExit(ids, never()), { exitCode: 0, signal: null });
    assert.ok(isAlive(child), 'the background child outlived the command');
    await mgr.killTerminal(ids, never());
    assert.equal(isAlive(child), false);
    assert.deepEqual((await mgr.terminalOutput(ids, never())).exitStatus, { exitCode: 0, signal: null }, 'the exit status is the command’s');
  });

  test('release frees the id, kills what runs, and snapshot keeps the output', async () => {
    const { ids, pids } = await withChild();
    assert.deepEqual(await mgr.releaseTerminal(ids, never()), {});
    for (const pid of pids) {
      assert.equal(isAlive(pid), false, `pid ${pid} is gone after release`);
    }
    for (const call of [
      () => mgr.terminalOutput(ids, never()),
      () => mgr.waitForTerminalExit(ids, never()),
      () => mgr.killTerminal(ids, never()),
      () => mgr.releaseTerminal(ids, never()),
    ]) {
      await assert.rejects(call(), isRpc(RpcCode.resourceNotFound, /released/));
    }
    const snap = mgr.snapshot(ids.terminalId);
    assert.ok(snap !== undefined);
    assert.equal(snap.output, `${pids.join('\n')}\n`);
    assert.equal(snap.released, true);
    assert.equal(snap.running, false);
    assert.equal(snap.signal, 'SIGTERM');
    assert.equal(snap.command, formatCommand('sh', ['-c', 'echo $$; sleep 30 & echo $!; sleep 30']));
    assert.equal(mgr.forget(ids.terminalId), true);
    assert.equal(mgr.snapshot(ids.terminalId), undefined);
  });

  test('release after a normal exit keeps the exit code for the UI', async () => {
    const ids = await create({ command: 'echo', args: ['done'] });
    await mgr.waitForTerminalExit(ids, never());
    await mgr.releaseTerminal(ids, never());
    const snap = mgr.snapshot(ids.terminalId);
    assert.deepEqual(
      { output: snap?.output, exitCode: snap?.exitCode, signal: snap?.signal, running: snap?.running, released: snap?.released },
      { output: 'done\n', exitCode: 0, signal: null, running: false, released: true },
    );
  });

  test('only the most recent released snapshots are kept', async () => {
    const m = manager({ maxReleasedSnapshots: 2 });
    const ids: acp.TerminalOutputRequest[] = [];
    for (let i = 0; i < 3; i++) {
      const t = await create({ command: 'echo', args: [String(i)] }, m);
      await m.waitForTerminalExit(t, never());
      await m.releaseTerminal(t, never());
      ids.push(t);
    }
    assert.equal(m.snapshot(ids[0]?.terminalId ?? ''), undefined);
    assert.equal(m.snapshot(ids[2]?.terminalId ?? '')?.output, '2\n');
  });

  test('wait_for_exit settles when the terminal is released meanwhile', async () => {
    const ids = await sh('sleep 30');
    const waiting = assert.rejects(mgr.waitForTerminalExit(ids, never()), isRpc(RpcCode.resourceNotFound, /released/));
    await sleep(50);
    await mgr.releaseTerminal(ids, never());
    await waiting;
  });

  test('wait_for_exit settles when the manager is disposed meanwhile', async () => {
    const m = manager();
    const ids = await sh('sleep 30', {}, m);
    const waiting = assert.rejects(m.waitForTerminalExit(ids, never()), isRpc(RpcCode.resourceNotFound, /shut down/));
    await m.dispose();
    await waiting;
    await assert.rejects(m.createTerminal({ sessionId: SESSION, command: 'echo' }, never()), (e: unknown) => ClientRequestError.is(e));
  });

  test('wait_for_exit honours the abort signal and leaves the terminal running', async () => {
    const ids = await sh('sleep 30');
    const ac = new AbortController();
    const waiting = mgr.waitForTerminalExit(ids, ac.signal);
    const reason = new Error('cancelled by $/cancel_request');
    ac.abort(reason);
    await assert.rejects(waiting, (e: unknown) => e === reason);
    assert.equal(mgr.snapshot(ids.terminalId)?.running, true);
    // Already aborted: rejects at once.
    await assert.rejects(mgr.waitForTerminalExit(ids, ac.signal), (e: unknown) => e === reason);
  });

  test('unknown ids are resourceNotFound (-32002)', async () => {
    const ids = { sessionId: SESSION, terminalId: 'term-999-abcdef' };
    await assert.rejects(mgr.terminalOutput(ids, never()), isRpc(-32002, /Unknown terminal/));
    await assert.rejects(mgr.waitForTerminalExit(ids, never()), isRpc(-32002));
    await assert.rejects(mgr.killTerminal(ids, never()), isRpc(-32002));
    await assert.rejects(mgr.releaseTerminal(ids, never()), isRpc(-32002));
    assert.equal(mgr.snapshot(ids.terminalId), undefined);
  });

  test('a terminal belongs to its session: other sessions see an unknown id', async () => {
    const ids = await sh('echo mine; sleep 30');
    const other = { sessionId: 'sess-b', terminalId: ids.terminalId };
    await assert.rejects(mgr.terminalOutput(other, never()), isRpc(RpcCode.resourceNotFound, /Unknown terminal/));
    await assert.rejects(mgr.waitForTerminalExit(other, never()), isRpc(RpcCode.resourceNotFound));
    await assert.rejects(mgr.killTerminal(other, never()), isRpc(RpcCode.resourceNotFound));
    await assert.rejects(mgr.releaseTerminal(other, never()), isRpc(RpcCode.resourceNotFound));
    assert.equal(mgr.snapshot(ids.terminalId)?.running, true, 'untouched');
    await outputWhen(ids, (o) => o === 'mine\n');
  });

  test('releaseSession kills and releases only that session’s terminals', async () => {
    const a = await withChild();
    const b = await sh('sleep 30', { sessionId: 'sess-b' });
    await mgr.releaseSession(SESSION);
    for (const pid of a.pids) {
      assert.equal(isAlive(pid), false);
    }
    await assert.rejects(mgr.terminalOutput(a.ids, never()), isRpc(RpcCode.resourceNotFound));
    assert.equal(mgr.snapshot(a.ids.terminalId)?.released, true);
    assert.equal(mgr.snapshot(b.terminalId)?.running, true);
    assert.equal((await mgr.terminalOutput(b, never())).truncated, false);
  });

  test('maxTerminals limits live terminals; release makes room', async () => {
    const m = manager({ maxTerminals: 2 });
    const first = await sh('sleep 30', {}, m);
    await sh('sleep 30', {}, m);
    await assert.rejects(sh('sleep 30', {}, m), isRpc(RpcCode.invalidParams, /Too many terminals/));
    await m.releaseTerminal(first, never());
    await sh('echo ok', {}, m);
  });

  test('onDidChange fires while output streams, coalesced per terminal', async () => {
    const m = manager({ changeIntervalMs: 50 });
    const events: { at: number; output: string; running: boolean }[] = [];
    const ids = await sh('for i in 1 2 3 4 5; do echo line$i; sleep 0.12; done', {}, m);
    const sub = m.onDidChange((id) => {
      if (id === ids.terminalId) {
        const snap = m.snapshot(id);
        events.push({ at: Date.now(), output: snap?.output ?? '', running: snap?.running ?? false });
      }
    });
    await m.waitForTerminalExit(ids, never());
    await sleep(120); // the trailing event of the last window
    sub.dispose();
    const whileRunning = events.filter((e) => e.running);
    assert.ok(whileRunning.length >= 3, `events while running: ${whileRunning.length}`);
    assert.ok(new Set(whileRunning.map((e) => e.output)).size >= 3, 'the output grew between events');
    assert.equal(events.at(-1)?.running, false, 'the exit was announced');
    assert.equal(events.at(-1)?.output, 'line1\nline2\nline3\nline4\nline5\n');
    for (let i = 1; i < events.length; i++) {
      const gap = (events[i]?.at ?? 0) - (events[i - 1]?.at ?? 0);
      assert.ok(gap >= 40, `events ${i - 1} and ${i} only ${gap} ms apart`);
    }
  });

  test('a burst of output produces few events', async () => {
    const m = manager({ changeIntervalMs: 50 });
    let count = 0;
    const sub = m.onDidChange(() => count++);
    const ids = await sh('i=0; while [ $i -lt 2000 ]; do echo line $i; i=$((i+1)); done', {}, m);
    const started = Date.now();
    await m.waitForTerminalExit(ids, never());
    await sleep(120);
    sub.dispose();
    const windows = Math.ceil((Date.now() - started) / 50) + 2;
    assert.ok(count <= windows, `${count} events in ~${windows} windows`);
    assert.ok(count >= 2);
  });

  test('dispose kills every process, including children, and resolves when they are gone', async () => {
    const m = manager();
    const one = await withChild(m);
    const two = await withChild(m, `trap '' TERM; `); // ignores SIGTERM: needs the SIGKILL
    const released = await withChild(m);
    // A release in flight while disposing.
    const releasing = m.releaseTerminal(released.ids, never());
    await m.dispose();
    await releasing;
    for (const pid of [...one.pids, ...two.pids, ...released.pids]) {
      assert.equal(isAlive(pid), false, `pid ${pid} is gone after dispose`);
    }
    assert.equal(m.snapshot(one.ids.terminalId), undefined, 'dispose forgets everything');
    await m.dispose(); // idempotent
  });

  test('formatCommand quotes for display', () => {
    assert.equal(formatCommand('sh', ['-c', "echo 'hi' there"]), `sh -c 'echo '\\''hi'\\'' there'`);
    assert.equal(formatCommand('npm', ['test', '--', '--grep=x']), 'npm test -- --grep=x');
    assert.equal(formatCommand('echo', ['']), `echo ''`);
  });
});
