import { randomBytes } from 'node:crypto';
import type * as acp from '@agentclientprotocol/sdk';
import { Emitter } from '../util/emitter';
import type { TerminalPort } from '../agentPort/clientPorts';
import { ClientRequestError, RpcCode } from '../agentPort/agentErrors';
import { resolveTerminalCwd } from './terminalCwd';
import { TerminalProcesses } from './terminalProcess';
import { closeStreams, formatCommand, newTerminal, type ExitWaiter, type Terminal } from './terminalRecord';
import { abortError, asError, terminalCommand, terminalEnvironment, terminalOutputLimit } from './terminalRequest';
import { defaultLauncher, type ProcessLauncher } from '../process/launcher';

export { formatCommand } from './terminalRecord';

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
  /**
   * The session's folders (the workspace folders, or a worktree session's worktree); a terminal's
   * cwd must be inside one of them. The first is the default cwd.
   */
  readonly roots: (sessionId: string) => readonly string[];
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

const MiB = 1024 * 1024;

export class TerminalManager implements TerminalPort {
  private readonly live = new Map<string, Terminal>();
  private readonly released = new Map<string, Terminal>();
  private readonly changeEmitter = new Emitter<string>();
  private readonly defaultLimit: number;
  private readonly maxLimit: number;
  private readonly maxTerminals: number;
  private readonly changeIntervalMs: number;
  private readonly maxReleased: number;
  private readonly processes: TerminalProcesses;
  private nextId = 1;
  private disposed: Promise<void> | undefined;

  /** Fires with a terminal id when its output or state changed, at most once per `changeIntervalMs` per terminal. */
  readonly onDidChange = this.changeEmitter.event;

  constructor(private readonly options: TerminalManagerOptions) {
    this.defaultLimit = options.defaultOutputByteLimit ?? MiB;
    this.maxLimit = options.maxOutputByteLimit ?? 64 * MiB;
    this.maxTerminals = options.maxTerminals ?? 32;
    this.changeIntervalMs = options.changeIntervalMs ?? 50;
    this.maxReleased = options.maxReleasedSnapshots ?? 64;
    this.processes = new TerminalProcesses({
      launcher: options.launcher ?? defaultLauncher(),
      killGraceMs: options.killGraceMs ?? 2000,
      exitDrainMs: options.exitDrainMs ?? 200,
      changed: (t) => this.changed(t),
    });
  }

  // ── ACP terminal/* ────────────────────────────────────────────────────────────────────────

  /** ACP: "The Client returns a Terminal ID immediately without waiting for completion." */
  async createTerminal(params: acp.CreateTerminalRequest, signal: AbortSignal): Promise<acp.CreateTerminalResponse> {
    this.assertOpen();
    const { command, args } = terminalCommand(params);
    const env = terminalEnvironment(this.options.env, params.env ?? []);
    const limit = terminalOutputLimit(params.outputByteLimit, this.defaultLimit, this.maxLimit);
    const cwd = await resolveTerminalCwd(params.cwd, this.options.roots(params.sessionId));
    if (signal.aborted) {
      throw abortError(signal);
    }
    this.assertOpen();
    if (this.live.size >= this.maxTerminals) {
      throw ClientRequestError.invalidParams(
        `Too many terminals: ${this.live.size} are open (limit ${this.maxTerminals}). Release terminals you no longer need (terminal/release).`,
      );
    }
    const t = newTerminal(`term-${this.nextId++}-${randomBytes(3).toString('hex')}`, params.sessionId, formatCommand(command, args), cwd, limit);
    this.processes.start(t, command, args, env);
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
    await this.processes.terminate(t);
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
      await Promise.all(all.map((t) => this.processes.terminate(t).then(() => closeStreams(t))));
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
    await this.processes.terminate(t);
    closeStreams(t);
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
