import * as assert from 'node:assert/strict';
import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { EventEmitter } from 'node:events';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import { AgentProcess } from '../../../src/wire/agentProcess';
import { AgentNotFoundError } from '../../../src/agentPort/agentErrors';
import { cleanEnvironment } from '../../../src/process/cleanEnv';
import { ProcessLauncher, type LauncherPlatform } from '../../../src/process/launcher';
import { batchInvocation } from '../../../src/process/windowsShim';
import { tempWorkspace } from '../../support/agentStack';

interface SpawnCall {
  readonly file: string;
  readonly args: readonly string[];
  readonly options: SpawnOptions;
}

/** A process that "runs" until told otherwise: records what it was asked to start, emits `spawn` or an error. */
function fakeSpawner(o: { fail?: (file: string) => NodeJS.ErrnoException | undefined } = {}): { calls: SpawnCall[]; spawn: LauncherPlatform['spawn'] } {
  const calls: SpawnCall[] = [];
  let nextPid = 4242;
  const spawn: LauncherPlatform['spawn'] = (file, args, options) => {
    calls.push({ file, args: [...args], options });
    const child = Object.assign(new EventEmitter(), {
      pid: undefined as number | undefined,
      stdin: new PassThrough(),
      stdout: new PassThrough(),
      stderr: new PassThrough(),
      unref: () => undefined,
    });
    const failure = o.fail?.(file);
    if (failure === undefined) {
      child.pid = nextPid++;
    }
    setImmediate(() => (failure !== undefined ? child.emit('error', failure) : child.emit('spawn')));
    return child as unknown as ChildProcess;
  };
  return { calls, spawn };
}

/** NTFS: names compare case-insensitively. */
function windowsFiles(files: readonly string[]): (p: string) => boolean {
  const keys = new Set(files.map((f) => path.win32.normalize(f).toLowerCase()));
  return (p) => keys.has(path.win32.normalize(p).toLowerCase());
}

const windowsEnv: NodeJS.ProcessEnv = {
  Path: 'C:\\Windows\\system32;C:\\Users\\Ada\\AppData\\Roaming\\npm',
  PATHEXT: '.COM;.EXE;.BAT;.CMD',
  SystemRoot: 'C:\\Windows',
  ComSpec: 'C:\\Windows\\system32\\cmd.exe',
  USERPROFILE: 'C:\\Users\\Ada',
  ELECTRON_RUN_AS_NODE: '1',
  VSCODE_IPC_HOOK: '\\\\.\\pipe\\vscode-ipc',
  VSCODE_PID: '777',
};

function windowsLauncher(files: readonly string[], spawn: LauncherPlatform['spawn'], signals: [number, string | number][] = []): ProcessLauncher {
  return new ProcessLauncher({
    platform: 'win32',
    path: path.win32,
    spawn,
    env: windowsEnv,
    isFile: windowsFiles(files),
    signal: (pid, sig) => void signals.push([pid, sig]),
    watchdog: { node: 'C:\\Program Files\\Microsoft VS Code\\Code.exe', script: 'C:\\ext\\dist\\watchdog.js' },
  });
}

/** cmd.exe's caret pass: `^x` is `x` (the launcher escapes every quote, so cmd never sees a quoted region). */
function cmdPass(s: string): string {
  return s.replace(/\^(.)/gs, '$1');
}

/** The Microsoft C runtime's split of a command line (CommandLineToArgvW rules). */
function msvcrtSplit(line: string): string[] {
  const out: string[] = [];
  let i = 0;
  while (i < line.length) {
    while (line[i] === ' ' || line[i] === '\t') {
      i++;
    }
    if (i >= line.length) {
      break;
    }
    let arg = '';
    let quoted = false;
    for (; i < line.length && (quoted || (line[i] !== ' ' && line[i] !== '\t')); i++) {
      let slashes = 0;
      while (line[i] === '\\') {
        slashes++;
        i++;
      }
      if (line[i] === '"') {
        arg += '\\'.repeat(Math.floor(slashes / 2));
        if (slashes % 2 === 1) {
          arg += '"';
        } else {
          quoted = !quoted;
        }
      } else {
        arg += '\\'.repeat(slashes);
        if (i < line.length) {
          arg += line[i];
        } else {
          break;
        }
      }
    }
    out.push(arg);
  }
  return out;
}

suite('process/launcher: one way to start a process, simulated per platform', () => {
  test('Windows: an npm .cmd agent is found on Path with PATHEXT (case-insensitively) and started through cmd.exe', async () => {
    const { calls, spawn } = fakeSpawner();
    // npm puts an extensionless sh script next to the shim; CreateProcess cannot run it.
    const launcher = windowsLauncher(['c:\\users\\ada\\appdata\\roaming\\NPM\\claude-agent-acp', 'C:\\Users\\Ada\\AppData\\Roaming\\npm\\CLAUDE-AGENT-ACP.CMD'], spawn);
    const launched = launcher.start({ command: 'claude-agent-acp', args: ['--model', 'a b', '50%'], cwd: 'C:\\work', stdin: 'pipe' });
    assert.equal(await launched.spawned, 4242);
    const call = calls[0];
    assert.ok(call !== undefined);
    assert.equal(call.file, 'C:\\Windows\\system32\\cmd.exe');
    // The shim is named as PATH and PATHEXT spell it; NTFS finds CLAUDE-AGENT-ACP.CMD under that name.
    assert.deepEqual(call.args, ['/d', '/s', '/c', '"^"C:\\Users\\Ada\\AppData\\Roaming\\npm\\claude-agent-acp.cmd^" ^^^"--model^^^" ^^^"a^^^ b^^^" ^^^"50^^^%^^^""']);
    assert.equal(call.options.windowsVerbatimArguments, true);
    assert.equal(call.options.detached, false, 'no process groups on Windows');
    assert.equal(call.options.cwd, 'C:\\work');
    assert.equal(call.options.env?.ELECTRON_RUN_AS_NODE, undefined);
    assert.equal(call.options.env?.VSCODE_IPC_HOOK, undefined);
    // An explicit path in upper case is a batch file too.
    const upper = launcher.start({ command: 'C:\\Users\\Ada\\AppData\\Roaming\\npm\\CLAUDE-AGENT-ACP.CMD', args: [], cwd: 'C:\\work', stdin: 'pipe' });
    await upper.spawned;
    assert.deepEqual([calls[1]?.file, calls[1]?.args.slice(0, 3)], ['C:\\Windows\\system32\\cmd.exe', ['/d', '/s', '/c']]);
  });

  test('Windows: the tree is killed with taskkill /T /F /PID, whatever the signal; no POSIX signal is sent', async () => {
    const { calls, spawn } = fakeSpawner();
    const signals: [number, string | number][] = [];
    const launcher = windowsLauncher(['C:\\tools\\agent.exe'], spawn, signals);
    const launched = launcher.start({ command: 'C:\\tools\\agent', args: [], cwd: 'C:\\work', stdin: 'pipe' });
    const pid = await launched.spawned;
    assert.equal(calls[0]?.file, 'C:\\tools\\agent.exe', 'a path without extension gets the PATHEXT one that exists');
    launched.kill('SIGTERM');
    launched.kill('SIGKILL');
    const kills = calls.filter((c) => c.file.toLowerCase().endsWith('taskkill.exe'));
    assert.deepEqual(
      kills.map((c) => [c.file, ...c.args]),
      [
        ['C:\\Windows\\System32\\taskkill.exe', '/T', '/F', '/PID', String(pid)],
        ['C:\\Windows\\System32\\taskkill.exe', '/T', '/F', '/PID', String(pid)],
      ],
    );
    assert.deepEqual(signals, []);
  });

  test('Windows: a watchdog runs beside the agent as Node (ELECTRON_RUN_AS_NODE) in tree mode', async () => {
    const { calls, spawn } = fakeSpawner();
    const launcher = windowsLauncher(['C:\\tools\\agent.exe'], spawn);
    const launched = launcher.start({ command: 'C:\\tools\\agent.exe', args: [], cwd: 'C:\\work', stdin: 'pipe', watchdog: { graceMs: 1500 } });
    const pid = await launched.spawned;
    const dog = calls[1];
    assert.ok(dog !== undefined);
    assert.equal(dog.file, 'C:\\Program Files\\Microsoft VS Code\\Code.exe');
    assert.deepEqual(dog.args, ['C:\\ext\\dist\\watchdog.js', String(pid), '1500', 'tree']);
    assert.equal(dog.options.env?.ELECTRON_RUN_AS_NODE, '1');
    assert.equal(launched.watchdogPid, 4243);
    assert.equal(calls[0]?.options.env?.ELECTRON_RUN_AS_NODE, undefined, 'the agent itself does not get it');
  });

  test('Windows: a missing command is ENOENT from the spawn, as elsewhere (AgentNotFoundError for agents)', async () => {
    const { spawn } = fakeSpawner({ fail: (file) => (file === 'nowhere-agent' ? Object.assign(new Error('spawn nowhere-agent ENOENT'), { code: 'ENOENT' }) : undefined) });
    const launcher = windowsLauncher([], spawn);
    await assert.rejects(AgentProcess.start({ command: 'nowhere-agent', args: [], cwd: tempWorkspace() }, { launcher }), (e) => AgentNotFoundError.is(e));
  });

  test('POSIX: a process group per command; kill signals -pgid; the agent keeps its argv as given', async () => {
    const { calls, spawn } = fakeSpawner();
    const signals: [number, string | number][] = [];
    const launcher = new ProcessLauncher({ platform: 'linux', path: path.posix, spawn, env: { PATH: '/usr/bin' }, isFile: () => true, signal: (pid, sig) => void signals.push([pid, sig]) });
    const launched = launcher.start({ command: 'hermes', args: ['acp', "it's"], cwd: '/w', stdin: 'pipe', watchdog: { graceMs: 3000 } });
    const pid = await launched.spawned;
    assert.deepEqual([calls[0]?.file, calls[0]?.args, calls[0]?.options.detached], ['hermes', ['acp', "it's"], true]);
    assert.equal(calls.length, 1, 'no watchdog without a watchdog script');
    launched.kill('SIGTERM');
    assert.deepEqual(signals, [[-pid, 'SIGTERM']]);
  });

  test('the shim line survives both cmd.exe passes and the C runtime split, for hostile arguments', () => {
    const corpus = ['plain', '', 'a b', 'say "hi"', 'C:\\dir with space\\', 'trail\\\\', '50%', '%PATH%', '!x!', 'a&calc.exe', 'a|b', '<in', '>out', '(x)', '^', '^^"', '\\"', 'ünïcødé', 'x\\"y', '"', 'a,b;c'];
    const { args } = batchInvocation('C:\\npm\\agent.cmd', corpus, 'cmd.exe');
    const line = args[3] ?? '';
    assert.ok(line.startsWith('"') && line.endsWith('"'));
    const pass1 = cmdPass(line.slice(1, -1));
    const [script] = msvcrtSplit(pass1);
    assert.equal(script, 'C:\\npm\\agent.cmd');
    const afterScript = pass1.slice(pass1.indexOf('.cmd"') + 5);
    // Every character cmd.exe acts on is still escaped after the first pass (the batch file's %* is the second).
    assert.doesNotMatch(afterScript.replace(/\^./gs, ''), /[%!&|<>()"^]/);
    assert.deepEqual(msvcrtSplit(cmdPass(afterScript)), corpus);
  });
});

suite('process/cleanEnv: the user environment without the extension host\'s own variables', () => {
  const host: NodeJS.ProcessEnv = {
    HOME: '/home/ada',
    PATH: '/usr/bin',
    ELECTRON_RUN_AS_NODE: '1',
    VSCODE_IPC_HOOK: '/run/user/1000/vscode-ipc.sock',
    VSCODE_IPC_HOOK_EXTHOST: '/tmp/vscode-ipc-ext.sock',
    VSCODE_PID: '4711',
    VSCODE_CWD: '/',
    VSCODE_NLS_CONFIG: '{}',
    VSCODE_HANDLES_UNCAUGHT_ERRORS: 'true',
    VSCODE_HANDLES_SIGPIPE: 'true',
    VSCODE_ESM_ENTRYPOINT: 'vs/workbench/api/node/extensionHostProcess',
    VSCODE_INSPECTOR_OPTIONS: '{}',
    NODE_OPTIONS: '--require /home/ada/.vscode/extensions/ms-vscode.js-debug/src/bootloader.js',
    VSCODEX: 'not ours to drop',
  };

  test('drops ELECTRON_RUN_AS_NODE, every VSCODE_* handle and the NODE_OPTIONS js-debug injected; keeps the rest', () => {
    assert.deepEqual(cleanEnvironment(host, undefined, 'linux'), { HOME: '/home/ada', PATH: '/usr/bin', VSCODEX: 'not ours to drop' });
  });

  test("keeps the user's own NODE_OPTIONS; the definition's env comes last and may set anything", () => {
    const user = { HOME: '/h', NODE_OPTIONS: '--max-old-space-size=4096', VSCODE_PID: '1' };
    assert.deepEqual(cleanEnvironment(user, { HERMES_HOME: '/h/.hermes', NODE_OPTIONS: '--enable-source-maps' }, 'linux'), {
      HOME: '/h',
      NODE_OPTIONS: '--enable-source-maps',
      HERMES_HOME: '/h/.hermes',
    });
    assert.equal(cleanEnvironment(user, undefined, 'darwin').NODE_OPTIONS, '--max-old-space-size=4096');
  });

  test('Windows: names are case-insensitive, so an added PATH replaces the inherited Path instead of sitting beside it', () => {
    const env = cleanEnvironment({ Path: 'C:\\Windows', SystemRoot: 'C:\\Windows', Vscode_Pid: '3' }, { PATH: 'C:\\agent;C:\\Windows' }, 'win32');
    assert.deepEqual(env, { SystemRoot: 'C:\\Windows', PATH: 'C:\\agent;C:\\Windows' });
    assert.deepEqual(cleanEnvironment({ Path: 'a', PATH: 'b' }, {}, 'linux'), { Path: 'a', PATH: 'b' }, 'POSIX names are case-sensitive');
  });
});
