import { promises as fs } from 'node:fs';

/**
 * Process-group helpers for client terminals. On POSIX every terminal command is started detached
 * (`setsid`), so it leads its own process group and one signal to `-pgid` also reaches the children
 * it forked (`sh -c 'sleep 30 & sleep 30'`). Windows has no process groups: only the direct child
 * is signalled there.
 */
export const usesProcessGroups = process.platform !== 'win32';

/** Groups that may still have members, killed if the host process exits (no orphans, ever). */
const liveGroups = new Set<number>();
let exitHookInstalled = false;

export function trackGroup(pgid: number): void {
  if (!usesProcessGroups) {
    return;
  }
  liveGroups.add(pgid);
  if (!exitHookInstalled) {
    exitHookInstalled = true;
    // 'exit' handlers must be synchronous: a plain SIGKILL per group is all that fits.
    process.once('exit', () => {
      for (const g of liveGroups) {
        signalGroup(g, 'SIGKILL');
      }
    });
  }
}

export function untrackGroup(pgid: number): void {
  liveGroups.delete(pgid);
}

/** Sends `signal` to every process of the group; false when there was nobody to signal. */
export function signalGroup(pgid: number, signal: NodeJS.Signals): boolean {
  try {
    process.kill(-pgid, signal);
    return true;
  } catch {
    return false;
  }
}

/**
 * The group's running members (pids), from one look at the process table, or `undefined` when
 * the platform cannot list them (then: whether anything of the group is left at all).
 * `kill(-pgid, 0)` also succeeds for zombies, which linger until whoever inherited them reaps
 * them (in containers PID 1 may take seconds), so on Linux the members' states are read from
 * /proc and zombies count as gone: they run no code and hold no resources but a process-table
 * slot. Called once when a command's leader has exited, not in a loop: {@link groupEnded} then
 * looks at these pids only.
 */
export async function groupMembers(pgid: number): Promise<number[] | undefined> {
  if (!groupExists(pgid)) {
    return [];
  }
  if (process.platform !== 'linux') {
    return undefined;
  }
  let entries: string[];
  try {
    entries = await fs.readdir('/proc');
  } catch {
    return undefined;
  }
  return stillRunning(pgid, entries.filter((e) => /^\d+$/.test(e)).map(Number));
}

/** Those of `pids` still running in the group (zombies count as gone). */
async function stillRunning(pgid: number, pids: readonly number[]): Promise<number[]> {
  const states = await Promise.all(pids.map((pid) => fs.readFile(`/proc/${pid}/stat`, 'utf8').then((stat) => ({ pid, stat }), () => undefined)));
  return states.flatMap((s) => {
    if (s === undefined) {
      return [];
    }
    // "pid (comm) state ppid pgrp …"; comm may contain spaces and parentheses, so split after the last ')'.
    const fields = s.stat.slice(s.stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[2]) === pgid && fields[0] !== 'Z' && fields[0] !== 'X' ? [s.pid] : [];
  });
}

/** Whether any process (zombies included) is left in the group. */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (e) {
    // EPERM: a member exists but is not ours to signal (setuid); still a member.
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Between looks at the members a leader left behind: growing from the first to the last. */
const memberLookMs = [10, 20, 50, 100, 250] as const;

/**
 * After the group's leader exited: waits until no member runs (or `deadline`, false). One full
 * look, then only the members found (their stat files), at growing intervals, and one full look
 * again before saying yes (a member may have started another before it died).
 */
export async function groupEnded(pgid: number, deadline: number): Promise<boolean> {
  let members = await groupMembers(pgid);
  for (let look = 0; members === undefined || members.length > 0; look++) {
    const left = deadline - Date.now();
    if (left <= 0) {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, Math.min(left, memberLookMs[Math.min(look, memberLookMs.length - 1)] ?? 250)));
    members = members === undefined ? await groupMembers(pgid) : await stillRunning(pgid, members);
    if (members?.length === 0) {
      members = await groupMembers(pgid);
    }
  }
  return true;
}
