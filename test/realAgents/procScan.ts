/**
 * Finds what a run left behind: every process whose environment carries the run's marker variable
 * (inherited by everything the agent starts, also by daemons that leave its process group) or whose
 * environment or command line names the run's temporary HOME. Linux only (`/proc`).
 */
import { readdirSync, readFileSync } from 'node:fs';

export interface FoundProcess {
  readonly pid: number;
  readonly ppid: number;
  readonly pgid: number;
  readonly name: string;
  readonly cmdline: string;
}

function read(file: string): string | undefined {
  try {
    return readFileSync(file, 'latin1');
  } catch {
    return undefined;
  }
}

function stat(pid: number): { name: string; ppid: number; pgid: number; state: string } | undefined {
  const text = read(`/proc/${String(pid)}/stat`);
  if (text === undefined) {
    return undefined;
  }
  // `pid (comm) state ppid pgrp …`; comm may itself contain spaces and parentheses.
  const close = text.lastIndexOf(')');
  const rest = text.slice(close + 2).split(' ');
  return { name: text.slice(text.indexOf('(') + 1, close), state: rest[0] ?? '', ppid: Number(rest[1]), pgid: Number(rest[2]) };
}

/** Live (non-zombie) processes carrying `marker=value` in their environment, or naming `home`. */
export function findRunProcesses(marker: string, value: string, home: string, exclude: readonly number[] = []): FoundProcess[] {
  const found: FoundProcess[] = [];
  const needle = `${marker}=${value}`;
  for (const entry of readdirSync('/proc')) {
    const pid = Number(entry);
    if (!Number.isInteger(pid) || pid === process.pid || exclude.includes(pid)) {
      continue;
    }
    const env = read(`/proc/${entry}/environ`);
    const cmd = read(`/proc/${entry}/cmdline`);
    const envVars = env?.split('\0') ?? [];
    const hit = envVars.includes(needle) || envVars.includes(`HOME=${home}`) || (cmd?.includes(home) ?? false);
    if (!hit) {
      continue;
    }
    const s = stat(pid);
    if (s === undefined || s.state === 'Z') {
      continue;
    }
    found.push({ pid, ppid: s.ppid, pgid: s.pgid, name: s.name, cmdline: (cmd ?? '').split('\0').join(' ').trim() });
  }
  return found;
}

function alive(pid: number): boolean {
  const s = stat(pid);
  return s !== undefined && s.state !== 'Z';
}

/** SIGTERM each, then SIGKILL what is still there after `graceMs`; by PID only. Returns the PIDs that survived both. */
export async function stopProcesses(pids: readonly number[], graceMs = 2000): Promise<number[]> {
  const signal = (pid: number, sig: NodeJS.Signals): void => {
    try {
      process.kill(pid, sig);
    } catch {
      // gone already
    }
  };
  pids.forEach((pid) => signal(pid, 'SIGTERM'));
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && pids.some(alive)) {
    await new Promise((r) => setTimeout(r, 100));
  }
  pids.filter(alive).forEach((pid) => signal(pid, 'SIGKILL'));
  await new Promise((r) => setTimeout(r, 300));
  return pids.filter(alive);
}
