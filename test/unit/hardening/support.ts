/**
 * Shared pieces of the hardening suites (R1–R6): counts that shrink under `CI=true`, a seeded
 * random source, deadlines for every awaited operation, garbage collection on demand, and
 * process bookkeeping through /proc (Linux) by pid, process group and a per-run environment tag.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as v8 from 'node:v8';
import * as vm from 'node:vm';
import { repoRoot } from '../../support/paths';
import { DeadlineError } from '../../support/wait';

export { DeadlineError, sleep, until } from '../../support/wait';

/** `CI=true` runs every suite with reduced counts (2-core CI machines run other heavy suites too). */
export const reduced = process.env.CI === 'true';

/** `HERMES_SOAK=1` runs the longest loops at their soak length (e.g. 20 window reloads instead of 10). */
export const soak = process.env.HERMES_SOAK === '1';

/** The count to use: `normal`; `ci` when `CI=true`; `soakCount` (else `normal`) when `HERMES_SOAK=1`. */
export function scaled(normal: number, ci: number, soakCount = normal): number {
  return soak ? soakCount : reduced ? ci : normal;
}

/** Appended to every summary line so the figures say which mode produced them. */
export const modeNote = soak ? ' [HERMES_SOAK=1: soak counts]' : reduced ? ' [CI=true: reduced counts]' : '';

/** Prints a suite's one-line summary (and keeps it for a final recap). */
export function summary(line: string): void {
  console.log(`      ${line}${modeNote}`);
}

/** Seed of this run (`HARDENING_SEED=<n>` replays a run). Printed by the suites that use randomness. */
export const seed = ((): number => {
  const fromEnv = Number.parseInt(process.env.HARDENING_SEED ?? '', 10);
  return Number.isFinite(fromEnv) ? fromEnv : (Date.now() ^ (process.pid << 8)) >>> 0;
})();

/** A small deterministic generator (xorshift32), so a failing run can be replayed from its seed. */
export class Rng {
  private state: number;

  constructor(seedValue: number) {
    this.state = seedValue >>> 0 || 0x9e3779b9;
  }

  /** Uniform in [0, 1). */
  next(): number {
    let x = this.state;
    x ^= x << 13;
    x >>>= 0;
    x ^= x >>> 17;
    x ^= x << 5;
    x >>>= 0;
    this.state = x;
    return x / 0x1_0000_0000;
  }

  /** Integer in [min, max]. */
  int(min: number, max: number): number {
    return min + Math.floor(this.next() * (max - min + 1));
  }

  pick<T>(items: readonly T[]): T {
    const item = items[Math.floor(this.next() * items.length)];
    if (item === undefined) {
      throw new Error('pick from an empty list');
    }
    return item;
  }

  shuffle<T>(items: readonly T[]): T[] {
    const out = [...items];
    for (let i = out.length - 1; i > 0; i--) {
      const j = Math.floor(this.next() * (i + 1));
      const a = out[i];
      const b = out[j];
      if (a !== undefined && b !== undefined) {
        out[i] = b;
        out[j] = a;
      }
    }
    return out;
  }
}

/** Resolves like `p`, or rejects with {@link DeadlineError} after `ms` (the operation stayed pending). */
export function within<T>(p: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new DeadlineError(`${what}: still pending after ${ms} ms`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}

/** Settles a promise into a value or an error, never rejecting (for "did it settle" checks). */
export async function settle<T>(p: Promise<T>): Promise<{ ok: true; value: T } | { ok: false; error: unknown }> {
  try {
    return { ok: true, value: await p };
  } catch (error) {
    return { ok: false, error };
  }
}

let gcFn: (() => void) | undefined;

/**
 * A full garbage collection. Mocha runs without `--expose-gc` in `npm test`, so the flag is set at
 * run time and `gc` is taken from a fresh context (V8 installs it on contexts created afterwards).
 */
export function forceGc(): void {
  if (gcFn === undefined) {
    const existing = (globalThis as { gc?: () => void }).gc;
    if (typeof existing === 'function') {
      gcFn = existing;
    } else {
      v8.setFlagsFromString('--expose-gc');
      gcFn = vm.runInNewContext('gc') as () => void;
    }
  }
  gcFn();
  gcFn();
}

/** Heap in use after a full GC (bytes). */
export function heapAfterGc(): number {
  forceGc();
  return process.memoryUsage().heapUsed;
}

export const MiB = 1024 * 1024;

export function mb(bytes: number): string {
  return `${(bytes / MiB).toFixed(1)} MB`;
}

// ── processes (/proc) ────────────────────────────────────────────────────────────────────────

export interface ProcInfo {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly state: string;
  readonly cmdline: string;
}

/** Environment variable set on every agent a hardening suite spawns; its value is unique per run. */
export const TAG_VAR = 'HERMES_HARDENING_TAG';

export function newTag(name: string): string {
  return `${name}-${process.pid}-${Date.now().toString(36)}-${Math.floor(Math.random() * 1e9).toString(36)}`;
}

function procInfo(pid: number): ProcInfo | undefined {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const cmdline = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').replaceAll('\0', ' ').trim();
    return { pid, state: fields[0] ?? '?', ppid: Number(fields[1]), pgid: Number(fields[2]), cmdline };
  } catch {
    return undefined;
  }
}

/** Live processes (zombies excluded: they are dead and only wait to be reaped). */
export function liveProcesses(): ProcInfo[] {
  const out: ProcInfo[] = [];
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    const info = procInfo(Number(entry));
    if (info !== undefined && info.state !== 'Z' && info.state !== 'X') {
      out.push(info);
    }
  }
  return out;
}

/** Alive and not a zombie. */
export function isAlive(pid: number): boolean {
  const info = procInfo(pid);
  return info !== undefined && info.state !== 'Z' && info.state !== 'X';
}

/** Live (non-zombie) members of a process group. */
export function groupMembers(pgid: number): ProcInfo[] {
  try {
    process.kill(-pgid, 0);
  } catch {
    return [];
  }
  return liveProcesses().filter((p) => p.pgid === pgid);
}

/** Live processes whose environment carries `TAG_VAR=tag` (agents of one suite run, and anything they started). */
export function taggedProcesses(tag: string): ProcInfo[] {
  return processesWithEnv(TAG_VAR, tag);
}

/** Live processes whose environment holds `name=value` exactly. */
export function processesWithEnv(name: string, value: string): ProcInfo[] {
  const needle = `\0${name}=${value}\0`;
  return liveProcesses().filter((p) => {
    try {
      return `\0${fs.readFileSync(`/proc/${p.pid}/environ`, 'latin1')}`.includes(needle);
    } catch {
      return false;
    }
  });
}

/** Kills whatever is left of a tag (cleanup after a failed assertion, so one failure does not leak into other suites). */
export function killTagged(tag: string): number {
  let n = 0;
  for (const p of taggedProcesses(tag)) {
    try {
      process.kill(p.pid, 'SIGKILL');
      n++;
    } catch {
      // gone
    }
  }
  return n;
}

// ── code-server's process group (window reloads, R6) ─────────────────────────────────────────

/** What a process in code-server's group is: the `--type=` it was forked with, or code-server itself. */
export function role(p: ProcInfo): string {
  return /--type=(\S+)/.exec(p.cmdline)?.[1] ?? 'server';
}

export function roleCounts(list: ProcInfo[]): string {
  const counts = new Map<string, number>();
  for (const r of list.map(role)) {
    counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  return [...counts].map(([r, n]) => `${r} ×${n}`).join(', ');
}

/** Roles a window forks (extension host, file watcher, …) that appear more than once. */
export function repeatedRoles(list: ProcInfo[]): string[] {
  const seen = new Set<string>();
  const repeated = new Set<string>();
  for (const p of list) {
    const r = role(p);
    if (r !== 'server' && seen.has(r)) {
      repeated.add(r);
    }
    seen.add(r);
  }
  return [...repeated];
}

/** Whether `p` was started (directly or not) by a process the live window forked, per the ppid chain within `group`. */
export function descendsFromWindow(p: ProcInfo, group: ProcInfo[]): boolean {
  const byPid = new Map(group.map((m) => [m.pid, m]));
  for (let parent = byPid.get(p.ppid); parent !== undefined; parent = byPid.get(parent.ppid)) {
    if (role(parent) !== 'server') {
      return true;
    }
  }
  return false;
}

/** Counts of `process.getActiveResourcesInfo()` by type. */
export function activeResources(): Map<string, number> {
  const counts = new Map<string, number>();
  for (const r of process.getActiveResourcesInfo()) {
    counts.set(r, (counts.get(r) ?? 0) + 1);
  }
  return counts;
}

export function totalResources(m: ReadonlyMap<string, number>): number {
  let n = 0;
  for (const v of m.values()) {
    n += v;
  }
  return n;
}

export function formatResources(m: ReadonlyMap<string, number>): string {
  return [...m.entries()]
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([k, v]) => `${k}=${v}`)
    .join(' ');
}

// ── paths ────────────────────────────────────────────────────────────────────────────────────

/** The stdin/stderr tap wrapper (see agentTap.ts), compiled next to this file. */
export const agentTapPath = path.join(repoRoot, 'out', 'test', 'unit', 'hardening', 'agentTap.js');

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) {
    return 0;
  }
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? 0;
}
