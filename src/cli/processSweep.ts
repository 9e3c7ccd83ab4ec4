/**
 * Nothing left behind: every process the agent started carries the run's marker in its
 * environment (inherited from the agent), also those that left its process group (`setsid`,
 * Cline's hub daemon). On Linux, `/proc/<pid>/environ` finds them after the agent is gone; they
 * get SIGTERM, then SIGKILL, and whatever still runs is named in the `result`.
 *
 * A process that clears its environment (`env -i`) escapes the marker; on other platforms only the
 * agent's process group is stopped (agentProcess.ts).
 */
import { randomUUID } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import type { LeftProcess } from './events';

export const runMarkerVariable = 'HERMES_ACP_RUN_ID';

export function newRunMarker(): string {
  return randomUUID();
}

export interface SweepOptions {
  /** Between SIGTERM and SIGKILL. */
  readonly graceMs: number;
  /** Defaults to `/proc`; tests point it elsewhere only to simulate other systems. */
  readonly procRoot?: string;
  readonly kill?: (pid: number, signal: NodeJS.Signals) => void;
}

/** Pids whose environment holds `HERMES_ACP_RUN_ID=<marker>`, except this process. */
export function findMarked(marker: string, procRoot = '/proc'): number[] {
  const entry = Buffer.from(`${runMarkerVariable}=${marker}`);
  let names: string[];
  try {
    names = readdirSync(procRoot);
  } catch {
    return [];
  }
  const found: number[] = [];
  for (const name of names) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) {
      continue;
    }
    let environ: Buffer;
    try {
      environ = readFileSync(path.join(procRoot, name, 'environ'));
    } catch {
      continue; // gone, or not ours to read
    }
    if (hasEntry(environ, entry)) {
      found.push(Number(name));
    }
  }
  return found;
}

function hasEntry(environ: Buffer, entry: Buffer): boolean {
  let at = environ.indexOf(entry);
  while (at >= 0) {
    const startsEntry = at === 0 || environ[at - 1] === 0;
    const end = at + entry.length;
    if (startsEntry && (end === environ.length || environ[end] === 0)) {
      return true;
    }
    at = environ.indexOf(entry, at + 1);
  }
  return false;
}

function commandOf(pid: number, procRoot: string): string {
  try {
    const raw = readFileSync(path.join(procRoot, String(pid), 'cmdline'));
    const text = raw.toString('utf8').split('\0').filter((s) => s !== '').join(' ');
    return text.length > 300 ? `${text.slice(0, 299)}…` : text;
  } catch {
    return '';
  }
}

/** Stops every marked process; resolves with those still running afterwards (empty when none, or not Linux). */
export async function stopMarked(marker: string, options: SweepOptions): Promise<LeftProcess[]> {
  const procRoot = options.procRoot ?? '/proc';
  if (options.procRoot === undefined && process.platform !== 'linux') {
    return [];
  }
  const kill =
    options.kill ??
    ((pid: number, signal: NodeJS.Signals): void => {
      process.kill(pid, signal);
    });
  const send = (pids: readonly number[], signal: NodeJS.Signals): void => {
    for (const pid of pids) {
      try {
        kill(pid, signal);
      } catch {
        // exited meanwhile, or not allowed: the next look says which
      }
    }
  };
  let alive = findMarked(marker, procRoot);
  if (alive.length === 0) {
    return [];
  }
  send(alive, 'SIGTERM');
  alive = await waitForExit(marker, procRoot, options.graceMs);
  if (alive.length > 0) {
    send(alive, 'SIGKILL');
    alive = await waitForExit(marker, procRoot, 1000);
  }
  return alive.map((pid) => ({ pid, command: commandOf(pid, procRoot) }));
}

async function waitForExit(marker: string, procRoot: string, ms: number): Promise<number[]> {
  const deadline = Date.now() + ms;
  let alive = findMarked(marker, procRoot);
  while (alive.length > 0 && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 50));
    alive = findMarked(marker, procRoot);
  }
  return alive;
}
