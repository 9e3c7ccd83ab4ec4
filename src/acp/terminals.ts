import { randomBytes } from 'node:crypto';
import type * as acp from '@agentclientprotocol/sdk';
import { Emitter } from '../util/emitter';
import type { TerminalPort } from './clientPorts';
import { ClientRequestError, RpcCode } from './errors';
import { resolveTerminalCwd } from './terminalCwd';
import { TerminalOutputBuffer } from './terminalOutput';
import { Deferred } from '../util/deferred';
import { defaultLauncher, type LaunchedProcess, type ProcessLauncher } from '../process/launcher';
import { groupEnded, groupMembers } from '../process/processGroup';

/**
 * Client-side ACP terminals (`terminal/create|output|wait_for_exit|kill|release`, ACP terminals.mdx).
 *
 * - Commands run as real child processes without a shell (an agent that wants one sends
 *   `sh -c …` itself), stdin closed, stdout and stderr captured together in arrival order.
 * - On POSIX each command leads its own process group, so kill and release reach the children it
 *   forked; the host's exit takes every live group with it.
 * - A command that cannot be started (missing executable, not executable) does NOT fail
 *   `terminal/create`: the terminal is created and reports what a shell would — output
 *   `command not found: <cmd>` with exit code 127 (126 for other start failures). Agents already
 *   understand shell exit codes, and the tool card shows the reason where the output would be.
 * - A terminal belongs to the session that created it; another session's id is unknown.
 * - After `terminal/release` the id is invalid for every `terminal/*` method, but the final
 *   output stays available to the UI through {@link TerminalManager.snapshot} ("If the terminal was
 *   added to a tool call, the client SHOULD continue to display its output after release").
 */

export interface TerminalManagerOptions {
  /** Workspace folders; a terminal's cwd must be inside one of them. The first is the default cwd. */
  readonly roots: () => readonly string[];
  /** Output bytes kept when the agent sends no `outputByteLimit` (default 1 MiB). */
  readonly defaultOutputByteLimit?: number;
  /** Upper bound on any `outputByteLimit`, so an agent cannot make the host keep gigabytes (default 64 MiB). */
  readonly maxOutputByteLimit?: number;
  /** Terminals created and not yet released, per manager (default 32). */
  readonly maxTerminals?: number;
  /** Time between SIGTERM and SIGKILL when a terminal is killed or released (default 2000 ms). */
  readonly killGraceMs?: number;
  /** Variables added to the inherited environment of every command (the agent's `env` wins). */
  readonly env?: Record<string, string>;
  /** Minimum time between two `onDidChange` events of one terminal (default 50 ms). */
  readonly changeIntervalMs?: number;
  /** Released terminals whose output is kept for the UI, oldest dropped first (default 64). */
  readonly maxReleasedSnapshots?: number;
  /** After the command exits, how long to wait for its last output when a child holds the pipes open (default 200 ms). */
  readonly exitDrainMs?: number;
  /** Who starts the commands (tests: a simulated platform). */
  readonly launcher?: ProcessLauncher;
}

/** What the UI shows for a terminal card (not part of ACP). */
export interface TerminalSnapshot {
  readonly output: string;
  /** Present once the command has exited. */
  readonly exitCode?: number | null;
  /** Present once the command has exited. */
  readonly signal?: string | null;
  readonly running: boolean;
  readonly truncated: boolean;
  /** The command line, quoted for display. */
  readonly command: string;
  /** The real directory the command runs in. */
  readonly cwd: string;
  /** True after `terminal/release` (or the end of its session): the agent can no longer use it. */
  readonly released: boolean;
}

interface ExitStatus {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

interface ExitWaiter {
  resolve(status: ExitStatus): void;
  reject(error: Error): void;
}

interface Terminal {
  readonly id: string;
  readonly sessionId: string;
  readonly command: string;
  readonly cwd: string;
  readonly output: TerminalOutputBuffer;
  child: LaunchedProcess['child'] | undefined;
  launched: LaunchedProcess | undefined;
  /** Process group id (= the leader's pid) on POSIX; the pid on Windows; undefined if it never started. */
  pid: number | undefined;
  /** What the 'exit' event reported; {@link exit} is set once the output is drained too. */
  leaderExit: ExitStatus | undefined;
  exit: ExitStatus | undefined;
  released: boolean;
  /**
   * The command exited and no process of its group is left. Nothing is signalled after that: the
   * group id could be reused by an unrelated process.
   */
  groupGone: boolean;
  readonly waiters: Set<ExitWaiter>;
  /** Settles when {@link exit} is set: what termination waits on (events, not polling). */
  readonly exited: Deferred<void>;
  killing: Promise<void> | undefined;
  changeTimer: NodeJS.Timeout | undefined;
  changePending: boolean;
}

const MiB = 1024 * 1024;
/** After SIGKILL, how long to wait for the kernel to take the processes down before giving up. */
const KILL_WAIT_MS = 3000;

export class TerminalManager implements TerminalPort {
  private readonly live = new Map<string, Terminal>();
  private readonly released = new Map<string, Terminal>();
  private readonly changeEmitter = new Emitter<string>();
  private readonly defaultLimit: number;
  private readonly maxLimit: number;
  private readonly maxTerminals: number;
  private readonly killGraceMs: number;
  private readonly changeIntervalMs: number;
  private readonly maxReleased: number;
  private readonly exitDrainMs: number;
  private readonly launcher: ProcessLauncher;
  private nextId = 1;
  private disposed: Promise<void> | undefined;

  /** Fires with a terminal id when its output or state changed, at most once per `changeIntervalMs` per terminal. */
  readonly onDidChange = this.changeEmitter.event;

  constructor(private readonly options: TerminalManagerOptions) {
    this.defaultLimit = options.defaultOutputByteLimit ?? MiB;
    this.maxLimit = options.maxOutputByteLimit ?? 64 * MiB;
    this.maxTerminals = options.maxTerminals ?? 32;
    this.killGraceMs = options.killGraceMs ?? 2000;
    this.changeIntervalMs = options.changeIntervalMs ?? 50;
    this.maxReleased = options.maxReleasedSnapshots ?? 64;
    this.exitDrainMs = options.exitDrainMs ?? 200;
    this.launcher = options.launcher ?? defaultLauncher();
  }

  // ── ACP terminal/* ────────────────────────────────────────────────────────────────────────

  /** ACP: "The Client returns a Terminal ID immediately without waiting for completion." */
  async createTerminal(params: acp.CreateTerminalRequest, signal: AbortSignal): Promise<acp.CreateTerminalResponse> {
    this.assertOpen();
    const { command } = params;
    if (typeof command !== 'string' || command.trim() === '' || command.includes('\0')) {
      throw ClientRequestError.invalidParams('terminal/create needs a non-empty command.');
    }
    const rawArgs: unknown = params.args ?? [];
    if (!Array.isArray(rawArgs) || !(rawArgs as readonly unknown[]).every((a) => typeof a === 'string' && !a.includes('\0'))) {
      throw ClientRequestError.invalidParams('terminal/create args must be strings without NUL characters.');
    }
    const args = rawArgs as readonly string[];
    const env = this.environment(params.env ?? []);
    const limit = this.outputLimit(params.outputByteLimit);
    const cwd = await resolveTerminalCwd(params.cwd, this.options.roots());
    if (signal.aborted) {
      throw abortError(signal);
    }
    this.assertOpen();
    if (this.live.size >= this.maxTerminals) {
      throw ClientRequestError.invalidParams(
        `Too many terminals: ${this.live.size} are open (limit ${this.maxTerminals}). Release terminals you no longer need (terminal/release).`,
      );
    }
    const t: Terminal = {
      id: `term-${this.nextId++}-${randomBytes(3).toString('hex')}`,
      sessionId: params.sessionId,
      command: formatCommand(command, args),
      cwd,
      output: new TerminalOutputBuffer(limit),
      child: undefined,
      launched: undefined,
      pid: undefined,
      leaderExit: undefined,
      exit: undefined,
      released: false,
      groupGone: false,
      waiters: new Set(),
      exited: new Deferred<void>(),
      killing: undefined,
      changeTimer: undefined,
      changePending: false,
    };
    this.start(t, command, args, env);
    this.live.set(t.id, t);
    this.changed(t);
    return { terminalId: t.id };
  }

  /** ACP: output so far, `truncated`, and `exitStatus` "present only if the command has exited". */
  terminalOutput(params: acp.TerminalOutputRequest, _signal: AbortSignal): Promise<acp.TerminalOutputResponse> {
    try {
      const t = this.lookup(params);
      const response: acp.TerminalOutputResponse = { output: t.output.text(t.exit !== undefined), truncated: t.output.truncated };
      if (t.exit !== undefined) {
        response.exitStatus = { exitCode: t.exit.exitCode, signal: t.exit.signal };
      }
      return Promise.resolve(response);
    } catch (e) {
      return Promise.reject(asError(e));
    }
  }

  /**
   * ACP: resolves once the command exits. Never hangs: rejects when the terminal is released or the
   * manager disposed meanwhile (the id is then invalid), and with the signal's reason when the
   * request is cancelled (`$/cancel_request` or the connection closing).
   */
  waitForTerminalExit(params: acp.WaitForTerminalExitRequest, signal: AbortSignal): Promise<acp.WaitForTerminalExitResponse> {
    let t: Terminal;
    try {
      t = this.lookup(params);
    } catch (e) {
      return Promise.reject(asError(e));
    }
    if (t.exit !== undefined) {
      return Promise.resolve({ exitCode: t.exit.exitCode, signal: t.exit.signal });
    }
    if (signal.aborted) {
      return Promise.reject(abortError(signal));
    }
    return new Promise<acp.WaitForTerminalExitResponse>((resolve, reject) => {
      const onAbort = (): void => {
        t.waiters.delete(waiter);
        reject(abortError(signal));
      };
      const waiter: ExitWaiter = {
        resolve: (status) => {
          signal.removeEventListener('abort', onAbort);
          resolve({ exitCode: status.exitCode, signal: status.signal });
        },
        reject: (error) => {
          signal.removeEventListener('abort', onAbort);
          reject(error);
        },
      };
      t.waiters.add(waiter);
      signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /**
   * ACP: "terminates a command without releasing the terminal"; output and exit status stay
   * queryable. Resolves once the process group is gone (SIGTERM, SIGKILL after the grace period).
   */
  async killTerminal(params: acp.KillTerminalRequest, _signal: AbortSignal): Promise<acp.KillTerminalResponse> {
    const t = this.lookup(params);
    await this.terminate(t);
    return {};
  }

  /**
   * ACP: "kills the command if still running and releases all resources. After release the
   * terminal ID becomes invalid for all other terminal/* methods." The output is kept for the UI.
   */
  async releaseTerminal(params: acp.ReleaseTerminalRequest, _signal: AbortSignal): Promise<acp.ReleaseTerminalResponse> {
    const t = this.lookup(params);
    await this.release(t, `Terminal ${t.id} was released before its command exited.`);
    return {};
  }

  // ── UI and lifecycle ──────────────────────────────────────────────────────────────────────

  /** The card state of a terminal, also after release (until {@link forget} or dispose). */
  snapshot(terminalId: string): TerminalSnapshot | undefined {
    const t = this.live.get(terminalId) ?? this.released.get(terminalId);
    if (t === undefined) {
      return undefined;
    }
    const base = {
      output: t.output.text(t.exit !== undefined),
      running: t.exit === undefined,
      truncated: t.output.truncated,
      command: t.command,
      cwd: t.cwd,
      released: t.released,
    };
    return t.exit !== undefined ? { ...base, exitCode: t.exit.exitCode, signal: t.exit.signal } : base;
  }

  /** Drops the kept output of a released terminal. False if it is unknown or not released. */
  forget(terminalId: string): boolean {
    const t = this.released.get(terminalId);
    if (t === undefined) {
      return false;
    }
    this.released.delete(terminalId);
    clearTimeout(t.changeTimer);
    return true;
  }

  /**
   * Kills and releases every terminal of a session (session closed, agent exited). ACP: "Agent MUST
   * release", but a client cleans up anyway. Output stays available through {@link snapshot}.
   */
  async releaseSession(sessionId: string): Promise<void> {
    const mine = [...this.live.values()].filter((t) => t.sessionId === sessionId);
    await Promise.all(mine.map((t) => this.release(t, `Terminal ${t.id} was released because its session ended.`)));
  }

  /** Kills every command and resolves when every process is gone. Idempotent. */
  dispose(): Promise<void> {
    this.disposed ??= (async () => {
      const all = [...this.live.values(), ...this.released.values()];
      for (const t of this.live.values()) {
        this.detach(t, `Terminal ${t.id} was closed: the client shut down its terminals.`);
      }
      await Promise.all(all.map((t) => this.terminate(t).then(() => closeStreams(t))));
      for (const t of all) {
        clearTimeout(t.changeTimer);
      }
      this.released.clear();
      this.changeEmitter.dispose();
    })();
    return this.disposed;
  }

  // ── internals ─────────────────────────────────────────────────────────────────────────────

  private assertOpen(): void {
    if (this.disposed !== undefined) {
      throw new ClientRequestError(RpcCode.internalError, 'The client has shut down its terminals.');
    }
  }

  /** The live terminal of that session; released, unknown and other sessions' ids are all "not found". */
  private lookup(params: { sessionId: string; terminalId: string }): Terminal {
    const { sessionId, terminalId } = params;
    const t = this.live.get(terminalId);
    if (t?.sessionId === sessionId) {
      return t;
    }
    const message =
      this.released.get(terminalId)?.sessionId === sessionId
        ? `Terminal ${terminalId} was released; its id is no longer valid (ACP terminal/release).`
        : `Unknown terminal ${terminalId} in session ${sessionId}.`;
    throw new ClientRequestError(RpcCode.resourceNotFound, message, { terminalId });
  }

  /** The manager's env, then the agent's `[{name, value}]` (ACP EnvVariable); the launcher adds them to the cleaned host environment. */
  private environment(vars: unknown): Record<string, string> {
    if (!Array.isArray(vars)) {
      throw ClientRequestError.invalidParams('terminal/create env must be an array of {name, value}.');
    }
    const env: Record<string, string> = { ...this.options.env };
    for (const v of vars as readonly unknown[]) {
      const { name, value } = (typeof v === 'object' && v !== null ? v : {}) as { name?: unknown; value?: unknown };
      if (typeof name !== 'string' || typeof value !== 'string' || name === '' || name.includes('=') || name.includes('\0') || value.includes('\0')) {
        throw ClientRequestError.invalidParams('terminal/create env entries must be {name, value} strings; names non-empty without "=".', {
          env: v,
        });
      }
      env[name] = value;
    }
    return env;
  }

  private outputLimit(requested: number | null | undefined): number {
    if (requested === undefined || requested === null) {
      return Math.min(this.defaultLimit, this.maxLimit);
    }
    if (typeof requested !== 'number' || !Number.isSafeInteger(requested) || requested < 0) {
      throw ClientRequestError.invalidParams(`terminal/create outputByteLimit must be a non-negative integer; got ${String(requested)}.`);
    }
    return Math.min(requested, this.maxLimit);
  }

  private start(t: Terminal, command: string, args: readonly string[], env: Record<string, string>): void {
    let launched: LaunchedProcess;
    try {
      // The launcher makes the command lead its own process group (POSIX), so one signal reaches its children.
      launched = this.launcher.start({ command, args, cwd: t.cwd, env, stdin: 'ignore' });
    } catch (e) {
      // Synchronous failures are argument errors (validated above) or EMFILE-like resource limits.
      throw ClientRequestError.invalidParams(`Could not start ${command}: ${asError(e).message}`);
    }
    const child = launched.child;
    t.child = child;
    t.launched = launched;
    if (child.pid !== undefined) {
      t.pid = child.pid;
    }
    const onData = (chunk: Buffer): void => {
      t.output.append(chunk);
      this.changed(t);
    };
    for (const stream of [child.stdout, child.stderr]) {
      stream?.on('data', onData);
      stream?.on('error', () => undefined); // a broken pipe ends the output, not the host
    }
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (t.pid !== undefined) {
        return; // a failed kill of a running process; its exit is still reported by 'exit'
      }
      // Spawn failure (ENOENT, EACCES, …): answer as a shell would (127 not found, 126 cannot execute).
      const notFound = err.code === 'ENOENT';
      t.output.append(Buffer.from(notFound ? `command not found: ${command}\n` : `cannot execute ${command}: ${err.message}\n`));
      this.finalize(t, { exitCode: notFound ? 127 : 126, signal: null });
    });
    child.once('exit', (code, sig) => {
      t.leaderExit = { exitCode: code, signal: sig };
      // Output written just before the exit may still be in the pipes; 'close' says they are drained.
      // A background child can keep them open for good, so do not wait for it longer than the drain time.
      const timer = setTimeout(() => this.finalize(t, t.leaderExit), this.exitDrainMs);
      timer.unref();
      child.once('close', () => {
        clearTimeout(timer);
        this.finalize(t, t.leaderExit);
      });
    });
  }

  private finalize(t: Terminal, status: ExitStatus | undefined): void {
    if (t.exit !== undefined || status === undefined) {
      return;
    }
    t.exit = status;
    t.exited.resolve();
    for (const w of t.waiters) {
      w.resolve(status);
    }
    t.waiters.clear();
    const pid = t.pid;
    if (pid !== undefined && t.killing === undefined && this.launcher.usesProcessGroups) {
      // Exited on its own: stop tracking the group unless a background child is still in it.
      void groupMembers(pid).then((members) => {
        if (members?.length === 0 && t.killing === undefined) {
          t.groupGone = true;
          t.launched?.untrack();
        }
      });
    }
    this.changed(t);
  }

  /** Makes the id invalid for the agent, keeps the output for the UI, and settles pending waits. */
  private detach(t: Terminal, why: string): void {
    if (t.released) {
      return;
    }
    t.released = true;
    this.live.delete(t.id);
    this.released.set(t.id, t);
    while (this.released.size > this.maxReleased) {
      const oldest = this.released.keys().next().value;
      if (oldest === undefined) {
        break;
      }
      this.forget(oldest);
    }
    const error = new ClientRequestError(RpcCode.resourceNotFound, why, { terminalId: t.id });
    for (const w of t.waiters) {
      w.reject(error);
    }
    t.waiters.clear();
    this.changed(t);
  }

  private async release(t: Terminal, why: string): Promise<void> {
    this.detach(t, why);
    await this.terminate(t);
    closeStreams(t);
  }

  /** Ends the command and everything in its process group; resolves when they are gone. */
  private terminate(t: Terminal): Promise<void> {
    t.killing ??= this.runTermination(t).finally(() => {
      t.killing = undefined;
    });
    return t.killing;
  }

  private async runTermination(t: Terminal): Promise<void> {
    const launched = t.launched;
    if (t.pid === undefined || launched === undefined || t.groupGone) {
      return; // never started, or already gone
    }
    const send = (sig: NodeJS.Signals): void => {
      // Windows: the tree by parent links, which means nothing once the leader is gone.
      if (this.launcher.usesProcessGroups || t.leaderExit === undefined) {
        launched.kill(sig);
      }
    };
    if (!(await this.gone(t))) {
      send('SIGTERM');
      if (!(await this.waitGone(t, this.killGraceMs))) {
        send('SIGKILL');
        if (!(await this.waitGone(t, KILL_WAIT_MS))) {
          return; // stuck in the kernel (D state): keep the group tracked so the host's exit retries
        }
      }
    }
    t.groupGone = true;
    launched.untrack();
  }

  /** The command has exited (output drained) and no process of its group runs any more. */
  private async gone(t: Terminal): Promise<boolean> {
    return t.exit !== undefined && (t.pid === undefined || !this.launcher.usesProcessGroups || (await groupMembers(t.pid))?.length === 0);
  }

  /** Waits up to `ms` for the command and its whole group to be gone: its exit event, then {@link groupEnded}. */
  private async waitGone(t: Terminal, ms: number): Promise<boolean> {
    const deadline = Date.now() + ms;
    let timer: NodeJS.Timeout | undefined;
    const exited = await Promise.race([t.exited.promise.then(() => true), new Promise<boolean>((resolve) => (timer = setTimeout(() => resolve(false), ms)))]);
    clearTimeout(timer);
    return exited && (t.pid === undefined || !this.launcher.usesProcessGroups || (await groupEnded(t.pid, deadline)));
  }

  /** Throttled change event: the first change fires at once, later ones at most every interval. */
  private changed(t: Terminal): void {
    if (this.disposed !== undefined) {
      return;
    }
    if (t.changeTimer !== undefined) {
      t.changePending = true;
      return;
    }
    try {
      this.changeEmitter.fire(t.id);
    } catch {
      // A faulty listener must not break output capture or process bookkeeping.
    }
    t.changeTimer = setTimeout(() => {
      t.changeTimer = undefined;
      if (t.changePending) {
        t.changePending = false;
        this.changed(t);
      }
    }, this.changeIntervalMs);
    t.changeTimer.unref();
  }
}

/** After release nothing more is read: a process that escaped the group cannot keep our pipes busy. */
function closeStreams(t: Terminal): void {
  t.child?.stdout?.destroy();
  t.child?.stderr?.destroy();
}

function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : 'The request was cancelled.');
}

function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}


/** `command arg …` with POSIX-shell quoting where needed, for display only. */
export function formatCommand(command: string, args: readonly string[]): string {
  return [command, ...args].map(quoteArg).join(' ');
}

function quoteArg(s: string): string {
  if (s !== '' && /^[\w@%+=:,./-]+$/.test(s)) {
    return s;
  }
  return `'${s.replace(/'/g, `'\\''`)}'`;
}
