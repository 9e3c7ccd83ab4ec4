// Process bookkeeping for the harness (Linux /proc): kill whole process groups and find stragglers.
import { readFileSync, readdirSync, rmSync } from 'node:fs';

/** @param {number} ms */
export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/**
 * Live (non-zombie) processes, with their group and command line. A zombie is already dead and
 * only waits to be reaped (by init, once reparented), so it never counts as "left".
 * @returns {{ pid: number, pgid: number, cmdline: string }[]}
 */
export function liveProcesses() {
  const result = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      // /proc/<pid>/stat: "pid (comm) state ppid pgrp ..."; comm may contain spaces, so split after ')'.
      const stat = readFileSync(`/proc/${entry}/stat`, 'utf8');
      const [state, , pgrp] = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (state === 'Z' || state === 'X') continue;
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8').replaceAll('\0', ' ');
      result.push({ pid: Number(entry), pgid: Number(pgrp), cmdline });
    } catch {
      /* exited meanwhile */
    }
  }
  return result;
}

/** True while a process of the group exists: kill(-pgid, 0) succeeds and it is not only zombies. */
export function groupExists(/** @type {number} */ pgid) {
  try {
    process.kill(-pgid, 0);
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ESRCH') return false;
    throw err;
  }
  return liveProcesses().some((p) => p.pgid === pgid);
}

/**
 * SIGTERM the group, poll up to graceMs, then SIGKILL; resolves once no process of it is left.
 * @param {number} pgid @param {number} [graceMs]
 */
export async function killProcessGroup(pgid, graceMs = 5000) {
  for (const [signal, waitMs] of /** @type {const} */ ([['SIGTERM', graceMs], ['SIGKILL', 5000]])) {
    try {
      process.kill(-pgid, signal);
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code === 'ESRCH') return;
      throw err;
    }
    const deadline = Date.now() + waitMs;
    while (groupExists(pgid) && Date.now() < deadline) await sleep(100);
    if (!groupExists(pgid)) return;
  }
  const left = liveProcesses().filter((p) => p.pgid === pgid);
  throw new Error(`process group ${pgid} survived SIGKILL: ${left.map((p) => p.pid).join(', ')}`);
}

/**
 * Waits until no live process has `marker` in its command line (e.g. a per-run temp dir),
 * SIGKILLing the stragglers after graceMs. Catches processes that left their group (double forks).
 * @param {string} marker @param {number} [graceMs]
 */
export async function waitForNoProcessWith(marker, graceMs = 5000) {
  const matching = () => liveProcesses().filter((p) => p.pid !== process.pid && p.cmdline.includes(marker));
  const deadline = Date.now() + graceMs;
  while (matching().length && Date.now() < deadline) await sleep(100);
  for (const p of matching()) {
    try {
      process.kill(p.pid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  while (matching().length && Date.now() < deadline + 5000) await sleep(100);
  const left = matching();
  if (left.length) throw new Error(`processes survived SIGKILL: ${left.map((p) => `${p.pid} ${p.cmdline.slice(0, 80)}`).join('; ')}`);
}

/** Blocks the thread (for 'exit' handlers, which cannot await). @param {number} ms */
function sleepSync(ms) {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms);
}

/**
 * For 'exit' handlers: SIGKILL the given groups and every process naming one of the markers on its
 * command line, wait (up to 3 s) until they are gone, then remove the marker dirs.
 * @param {{ groups?: Iterable<number>, dirs?: Iterable<string>, keepDirs?: boolean }} o
 */
export function killAndRemoveSync({ groups = [], dirs = [], keepDirs = false }) {
  const pgids = [...groups];
  const markers = [...dirs];
  const left = () => liveProcesses().filter((p) => p.pid !== process.pid && (pgids.includes(p.pgid) || markers.some((m) => p.cmdline.includes(m))));
  for (const pgid of pgids) {
    try {
      process.kill(-pgid, 'SIGKILL');
    } catch {
      /* gone */
    }
  }
  const deadline = Date.now() + 3000;
  for (let procs = left(); procs.length && Date.now() < deadline; procs = left()) {
    for (const p of procs) {
      try {
        process.kill(p.pid, 'SIGKILL');
      } catch {
        /* gone */
      }
    }
    sleepSync(50);
  }
  if (keepDirs) return;
  for (const dir of markers) {
    try {
      rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
    } catch {
      /* best effort while exiting */
    }
  }
}

/** @type {(() => void)[]} */
const exitCallbacks = [];

/**
 * Runs `fn` (synchronously) when the process exits, however that happens: normal end, uncaught
 * exception, process.exit(), SIGINT or SIGTERM. For the signals, the harness keeps their default
 * meaning: it exits with 128+n once the other handlers have run (Playwright's SIGTERM handler does
 * not exit by itself, which would leave the process hanging).
 * @param {() => void} fn
 */
export function onExit(fn) {
  if (exitCallbacks.length === 0) {
    process.on('exit', () => {
      for (const cb of exitCallbacks.splice(0)) cb();
    });
    for (const [signal, code] of /** @type {const} */ ([['SIGINT', 130], ['SIGTERM', 143]])) {
      process.on(signal, () => setImmediate(() => process.exit(code)));
    }
  }
  exitCallbacks.push(fn);
}
