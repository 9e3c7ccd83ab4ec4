import type { LaunchedProcess } from '../process/launcher';
import { Deferred } from '../util/deferred';
import { TerminalOutputBuffer } from './terminalOutput';

/**
 * The record the terminal manager keeps per ACP terminal: its identity, output buffer, child
 * process, exit status, pending `terminal/wait_for_exit` requests and change throttle.
 */

export interface ExitStatus {
  readonly exitCode: number | null;
  readonly signal: string | null;
}

export interface ExitWaiter {
  resolve(status: ExitStatus): void;
  reject(error: Error): void;
}

export interface Terminal {
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

/** A terminal that has not started its command yet. */
export function newTerminal(id: string, sessionId: string, command: string, cwd: string, limit: number): Terminal {
  return {
    id,
    sessionId,
    command,
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
}

/** After release nothing more is read: a process that escaped the group cannot keep our pipes busy. */
export function closeStreams(t: Terminal): void {
  t.child?.stdout?.destroy();
  t.child?.stderr?.destroy();
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
