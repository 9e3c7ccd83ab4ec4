import * as fs from 'node:fs';

/**
 * Still running: signal 0 reaches it and, on Linux, it is not a zombie (a killed orphan stays one
 * until PID 1 reaps it, and runs no code meanwhile).
 */
export function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
  } catch {
    return false;
  }
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2).split(' ')[0];
    return state !== 'Z' && state !== 'X';
  } catch {
    return process.platform !== 'linux';
  }
}
