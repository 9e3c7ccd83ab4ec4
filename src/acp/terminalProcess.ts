import { ClientRequestError } from '../agentPort/agentErrors';
import type { ExitStatus, Terminal } from './terminalRecord';
import { asError } from './terminalRequest';
import type { LaunchedProcess, ProcessLauncher } from '../process/launcher';
import { groupEnded, groupMembers } from '../process/processGroup';

/**
 * The process behind a client terminal, from start to gone: started by the launcher without a
 * shell (its own process group on POSIX, so kill and release reach the children it forked), output
 * captured in arrival order, the exit reported once the pipes are drained, and termination
 * (SIGTERM, SIGKILL after a grace period) that resolves when every process of the group is gone.
 * A command that cannot be started ends as a shell would: 127 not found, 126 cannot execute.
 */

/** After SIGKILL, how long to wait for the kernel to take the processes down before giving up. */
const KILL_WAIT_MS = 3000;

export interface TerminalProcessOptions {
  readonly launcher: ProcessLauncher;
  /** Time between SIGTERM and SIGKILL. */
  readonly killGraceMs: number;
  /** After the command exits, how long to wait for its last output when a child holds the pipes open. */
  readonly exitDrainMs: number;
  /** Called when a terminal's output or state changed (the manager throttles it). */
  readonly changed: (t: Terminal) => void;
}

export class TerminalProcesses {
  private readonly launcher: ProcessLauncher;
  private readonly killGraceMs: number;
  private readonly exitDrainMs: number;
  private readonly changed: (t: Terminal) => void;

  constructor(options: TerminalProcessOptions) {
    this.launcher = options.launcher;
    this.killGraceMs = options.killGraceMs;
    this.exitDrainMs = options.exitDrainMs;
    this.changed = options.changed;
  }

  start(t: Terminal, command: string, args: readonly string[], env: Record<string, string>): void {
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

  /** Ends the command and everything in its process group; resolves when they are gone. */
  terminate(t: Terminal): Promise<void> {
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
}
