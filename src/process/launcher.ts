import type { ChildProcess, SpawnOptions } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import * as nodePath from 'node:path';
import { loadChunk } from '../util/lazyChunk';
import type * as ProcessSpawn from './processSpawn';
import { cleanEnvironment, envValue } from './cleanEnv';
import { resolveWindowsCommand } from './commandLookup';
import { batchInvocation, isBatchFile } from './windowsShim';

/**
 * The one place that starts processes (ARCHITECTURE.md "Processes"): agents, client terminals,
 * installation checks and the agents' watchdogs. It decides how a command becomes a process on
 * each platform — the clean environment, `.cmd`/`.bat` shims through `cmd.exe` on Windows, a
 * process group per command on POSIX — and how a process and everything it started ends:
 * `kill(-pgid)` on POSIX, `taskkill /T /F /PID` on Windows. Everything platform-specific is
 * injected ({@link LauncherPlatform}) so tests run the Windows paths on Linux.
 */

/** Node's `spawn` signature: the real one is built on execa, tests pass a fake that records argv. */
export type SpawnFunction = (file: string, args: readonly string[], options: SpawnOptions) => ChildProcess;

export interface LauncherPlatform {
  readonly platform: NodeJS.Platform;
  /** `path.win32` to simulate Windows. */
  readonly path: nodePath.PlatformPath;
  readonly spawn: SpawnFunction;
  /** The host's environment (`process.env`): the base of every child's, cleaned. */
  readonly env: NodeJS.ProcessEnv;
  readonly isFile: (p: string) => boolean;
  /** `process.kill`. */
  readonly signal: (pid: number, signal: NodeJS.Signals | 0) => void;
  /** Node and the watchdog script (`dist/watchdog.js`); undefined: no watchdogs. */
  readonly watchdog?: { readonly node: string; readonly script: string } | undefined;
}

export interface LaunchSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  /** Added to the cleaned environment (the agent definition's `env`, a terminal request's). */
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** `pipe` for agents (ACP runs on stdio), `ignore` for terminal commands and checks. */
  readonly stdin: 'pipe' | 'ignore';
  /**
   * A watchdog process that ends this process tree when the host dies, even by SIGKILL (agents:
   * Claude Agent ACP and Codex ACP do not exit when their stdin closes). `graceMs`: between its
   * SIGTERM and SIGKILL.
   */
  readonly watchdog?: { readonly graceMs: number } | undefined;
}

/** A started process. Spawn failures arrive as the child's `error` event and reject {@link spawned}. */
export interface LaunchedProcess {
  readonly child: ChildProcess;
  /** What was really spawned (`cmd.exe` and its arguments for a batch file). */
  readonly file: string;
  readonly args: readonly string[];
  /** Resolves with the pid once the process runs; rejects with the spawn error (ENOENT, EACCES, …). */
  readonly spawned: Promise<number>;
  /** The watchdog's pid once it runs (tests). */
  readonly watchdogPid: number | undefined;
  /** Signals the process and everything it started (its group on POSIX, its tree on Windows). */
  kill(signal: NodeJS.Signals): void;
  /** The caller knows nothing of the tree is left: the host's exit no longer signals it. */
  untrack(): void;
}

export class ProcessLauncher {
  /** Trees signalled if the host exits: a plain synchronous kill per tree is all an 'exit' handler can do. */
  private readonly live = new Set<number>();
  private exitHookInstalled = false;

  constructor(readonly host: LauncherPlatform) {}

  /** POSIX: each command leads its own process group, so one signal reaches every child it forked. */
  get usesProcessGroups(): boolean {
    return this.host.platform !== 'win32';
  }

  /** The environment a child gets: see {@link cleanEnvironment}. */
  environment(added?: Readonly<Record<string, string>>): Record<string, string> {
    return cleanEnvironment(this.host.env, added, this.host.platform);
  }

  /** Starts `spec`; never throws for a command that cannot be started (see {@link LaunchedProcess.spawned}). */
  start(spec: LaunchSpec): LaunchedProcess {
    const env = this.environment(spec.env);
    const { file, args, verbatim } = this.invocation(spec.command, spec.args, env);
    const child = this.host.spawn(file, args, {
      cwd: spec.cwd,
      env,
      stdio: [spec.stdin, 'pipe', 'pipe'],
      detached: this.usesProcessGroups,
      windowsHide: true,
      ...(verbatim ? { windowsVerbatimArguments: true } : {}),
    });
    let watchdog: ChildProcess | undefined;
    const spawned = new Promise<number>((resolve, reject) => {
      const onSpawn = (): void => {
        child.off('error', onError);
        const pid = child.pid;
        if (pid === undefined) {
          reject(new Error(`${spec.command} started without a process id`));
          return;
        }
        this.track(pid);
        if (spec.watchdog !== undefined) {
          watchdog = this.startWatchdog(pid, spec.watchdog.graceMs, child);
        }
        resolve(pid);
      };
      const onError = (err: Error): void => {
        child.off('spawn', onSpawn);
        reject(err);
      };
      child.once('spawn', onSpawn);
      child.once('error', onError);
    });
    // A caller that only listens to the child's own events must not see an unhandled rejection.
    spawned.catch(() => undefined);
    return {
      child,
      file,
      args,
      spawned,
      get watchdogPid() {
        return watchdog?.pid;
      },
      kill: (signal) => {
        if (child.pid !== undefined) {
          void this.killTree(child.pid, signal);
        }
      },
      untrack: () => {
        if (child.pid !== undefined) {
          this.live.delete(child.pid);
        }
      },
    };
  }

  /**
   * Signals `pid` and everything it started. POSIX: the process group `-pid` (the launcher made
   * it a group leader). Windows has no groups and no signals: `taskkill /T /F /PID` ends the
   * tree by parent links, whatever the signal. Resolves once `taskkill` has finished (at once on POSIX).
   */
  killTree(pid: number, signal: NodeJS.Signals): Promise<void> {
    if (this.host.platform === 'win32') {
      const systemRoot = envValue(this.host.env, 'SystemRoot', 'win32');
      // By absolute path: a bare name is looked up in the current folder first on Windows.
      const taskkill = systemRoot !== undefined ? this.host.path.join(systemRoot, 'System32', 'taskkill.exe') : 'taskkill.exe';
      try {
        const killer = this.host.spawn(taskkill, ['/T', '/F', '/PID', String(pid)], { stdio: 'ignore', windowsHide: true });
        return new Promise((resolve) => {
          killer.once('error', () => resolve());
          killer.once('close', () => resolve());
        });
      } catch {
        return Promise.resolve(); // nothing more can be done from here; the watchdog is the second line
      }
    }
    try {
      this.host.signal(-pid, signal);
    } catch {
      // already gone
    }
    return Promise.resolve();
  }

  /**
   * Runs a short command to completion and returns its output (stdout and stderr in arrival order,
   * at most `maxOutputBytes`); the tree is killed after `timeoutMs`. Never rejects.
   */
  async run(spec: Omit<LaunchSpec, 'stdin' | 'watchdog'>, o: { readonly timeoutMs: number; readonly maxOutputBytes: number }): Promise<RunResult> {
    const launched = this.start({ ...spec, stdin: 'ignore' });
    const chunks: Buffer[] = [];
    let size = 0;
    const collect = (b: Buffer): void => {
      if (size < o.maxOutputBytes) {
        chunks.push(b.subarray(0, o.maxOutputBytes - size));
        size += b.length;
      }
    };
    launched.child.stdout?.on('data', collect);
    launched.child.stderr?.on('data', collect);
    try {
      await launched.spawned;
    } catch (e) {
      const code = (e as NodeJS.ErrnoException).code;
      return { ok: false, notFound: code === 'ENOENT', exitCode: null, signal: null, timedOut: false, output: e instanceof Error ? e.message : String(e) };
    }
    let timedOut = false;
    const timer = setTimeout(() => {
      timedOut = true;
      launched.kill('SIGKILL');
    }, o.timeoutMs);
    const [exitCode, signal] = await new Promise<[number | null, NodeJS.Signals | null]>((resolve) => launched.child.once('close', (c: number | null, s: NodeJS.Signals | null) => resolve([c, s])));
    clearTimeout(timer);
    launched.untrack();
    const output = Buffer.concat(chunks).toString('utf8').trim();
    return { ok: exitCode === 0 && !timedOut, notFound: false, exitCode, signal, timedOut, output };
  }

  /** The file and arguments to spawn for `command`: on Windows resolved with PATHEXT, batch files through cmd.exe. */
  private invocation(command: string, args: readonly string[], env: Readonly<Record<string, string>>): { file: string; args: readonly string[]; verbatim: boolean } {
    if (this.host.platform !== 'win32') {
      return { file: command, args, verbatim: false };
    }
    const resolved = resolveWindowsCommand(command, {
      platform: 'win32',
      PATH: envValue(env, 'PATH', 'win32'),
      PATHEXT: envValue(env, 'PATHEXT', 'win32'),
      isFile: this.host.isFile,
      join: (...parts) => this.host.path.join(...parts),
    });
    if (!isBatchFile(resolved)) {
      return { file: resolved, args, verbatim: false };
    }
    // The host's ComSpec, not one an agent definition could point elsewhere.
    const comspec = envValue(this.host.env, 'ComSpec', 'win32') ?? 'cmd.exe';
    return batchInvocation(resolved, args, comspec);
  }

  private track(pid: number): void {
    this.live.add(pid);
    if (!this.exitHookInstalled) {
      this.exitHookInstalled = true;
      process.once('exit', () => {
        for (const p of this.live) {
          void this.killTree(p, 'SIGKILL');
        }
      });
    }
  }

  /**
   * The watchdog holds a pipe from this process on its stdin. Released (a byte, then EOF) when the
   * process exits; EOF without the byte means the host died, and the watchdog ends the tree.
   */
  private startWatchdog(pid: number, graceMs: number, child: ChildProcess): ChildProcess | undefined {
    const w = this.host.watchdog;
    if (w === undefined) {
      return undefined;
    }
    let dog: ChildProcess;
    try {
      dog = this.host.spawn(w.node, [w.script, String(pid), String(graceMs), this.host.platform === 'win32' ? 'tree' : 'group'], {
        stdio: ['pipe', 'ignore', 'ignore'],
        // Its own group: a signal to the host's group (a stopped server) must not take it along.
        detached: true,
        windowsHide: true,
        // VS Code's extension host is Electron: this makes it run the script as Node.
        env: { ...this.environment(), ELECTRON_RUN_AS_NODE: '1' },
      });
    } catch {
      return undefined;
    }
    dog.on('error', () => undefined);
    const pipe = dog.stdin;
    pipe?.on('error', () => undefined);
    // Neither the watchdog nor its pipe may keep the host alive (the runner exits when its work is done).
    dog.unref();
    if (pipe !== null && 'unref' in pipe && typeof pipe.unref === 'function') {
      (pipe as { unref(): void }).unref();
    }
    child.once('exit', () => {
      pipe?.end('r');
    });
    return dog;
  }
}

export interface RunResult {
  readonly ok: boolean;
  readonly notFound: boolean;
  readonly exitCode: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly timedOut: boolean;
  readonly output: string;
}

/** The real spawn: execa with node's option names, pipes left as they are (no buffering, no promise rejection). */
export const execaSpawn: SpawnFunction = (file, args, options) => {
  // execa is a chunk of its own (dist/processSpawn.js), loaded with the first process, not at activation.
  const { execa } = loadChunk<typeof ProcessSpawn>(__dirname, 'processSpawn');
  const stdio = Array.isArray(options.stdio) ? options.stdio : [options.stdio, options.stdio, options.stdio];
  const stream = (s: unknown): 'pipe' | 'ignore' => (s === 'ignore' ? 'ignore' : 'pipe');
  const child = execa(file, [...args], {
    ...(options.cwd !== undefined ? { cwd: options.cwd } : {}),
    ...(options.env !== undefined ? { env: options.env } : {}),
    extendEnv: false,
    stdin: stream(stdio[0]),
    stdout: stream(stdio[1]),
    stderr: stream(stdio[2]),
    buffer: false,
    reject: false,
    cleanup: false,
    forceKillAfterDelay: false,
    detached: options.detached === true,
    windowsHide: true,
    windowsVerbatimArguments: options.windowsVerbatimArguments === true,
    encoding: 'buffer',
  });
  let settled = false;
  child.once('spawn', () => (settled = true));
  child.once('error', () => (settled = true));
  // execa reports a spawn that threw synchronously only through its promise (with a dummy child):
  // re-emit it as the `error` event every caller listens to.
  void child.then((result) => {
    if (!settled && child.pid === undefined && result.failed) {
      const cause: unknown = result.cause;
      child.emit('error', cause instanceof Error ? cause : new Error(result.message));
    }
  });
  return child;
};

let shared: ProcessLauncher | undefined;

/** The launcher of this process: the real platform, execa, and the watchdog next to this bundle. */
export function defaultLauncher(): ProcessLauncher {
  const script = nodePath.join(__dirname, 'watchdog.js');
  shared ??= new ProcessLauncher({
    platform: process.platform,
    path: nodePath,
    spawn: execaSpawn,
    env: process.env,
    isFile: (p) => existsSync(p) && statSync(p).isFile(),
    signal: (pid, signal) => process.kill(pid, signal),
    watchdog: existsSync(script) ? { node: process.execPath, script } : undefined,
  });
  return shared;
}
