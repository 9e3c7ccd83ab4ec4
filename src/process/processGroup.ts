import { promises as fs } from 'node:fs';

/**
 * Who is left in a process group (POSIX). The launcher starts every terminal command and agent as
 * the leader of its own group (`setsid`); after the leader exited, these look at the process table
 * to tell whether a child it forked (`sh -c 'sleep 30 & sleep 30'`) still runs. Windows has no
 * process groups: callers ask only where {@link ProcessLauncher.usesProcessGroups}.
 */

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
