import { formatTrafficEntry, type TrafficEntry } from './trafficLog';

export type TrafficTraceLevel = 'off' | 'messages' | 'verbose';

export type TrafficLineLevel = 'info' | 'warn' | 'error';

/** Where the lines go (the "Hermes Traffic" output channel), and the timer the summaries wait on. */
export interface TrafficLinesPorts {
  write(level: TrafficLineLevel, line: string): void;
  setTimeout(callback: () => void, ms: number): unknown;
  clearTimeout(handle: unknown): void;
  now(): number;
}

/** A run of streamed updates is summed up at least this often while it lasts. */
export const updateSummaryMs = 1_000;

interface Run {
  count: number;
  bytes: number;
  readonly since: number;
  timer: unknown;
}

/**
 * What the traffic log writes to the output channel at the `hermes.trace` level. At `messages`
 * (the default) requests, responses and every other notification are one line each, but the
 * `session/update` notifications an agent streams (a chunk each: 20,000 for one long reply) are
 * summed up, one line per second of them and one when something else comes, so a turn costs a few
 * lines, not one per chunk (issue 43: 160,008 lines for eight replies). `verbose` writes every
 * message in full; `off` only problems, stderr and notes.
 */
export class TrafficLines {
  private readonly runs = new Map<string, Run>();

  constructor(
    private readonly level: () => TrafficTraceLevel,
    private readonly ports: TrafficLinesPorts,
  ) {}

  /** Lines written (for tests and the trace's cost). */
  written = 0;

  append(agentName: string, e: TrafficEntry): void {
    const level = this.level();
    const problem = e.kind === 'invalid' || e.kind === 'oversized' || e.kind === 'ignored' || e.kind === 'error';
    if (level === 'off' && !problem && e.dir !== 'stderr' && e.dir !== 'note') {
      return;
    }
    if (level === 'messages' && !problem && e.dir === 'in' && e.method === 'session/update' && e.kind === 'notification') {
      this.count(agentName, e);
      return;
    }
    this.flush(agentName);
    this.line(e.kind === 'invalid' || e.kind === 'oversized' ? 'warn' : e.kind === 'error' ? 'error' : 'info', `[${agentName}] ${formatTrafficEntry(e, level === 'verbose')}`);
  }

  /** Writes what is pending (before the channel shows, and on dispose). */
  flushAll(): void {
    for (const name of [...this.runs.keys()]) {
      this.flush(name);
    }
  }

  private count(agentName: string, e: TrafficEntry): void {
    let run = this.runs.get(agentName);
    if (run === undefined) {
      run = { count: 0, bytes: 0, since: this.ports.now(), timer: undefined };
      this.runs.set(agentName, run);
      run.timer = this.ports.setTimeout(() => this.flush(agentName), updateSummaryMs);
    }
    run.count++;
    run.bytes += e.size;
  }

  private flush(agentName: string): void {
    const run = this.runs.get(agentName);
    if (run === undefined) {
      return;
    }
    this.runs.delete(agentName);
    this.ports.clearTimeout(run.timer);
    const seconds = (this.ports.now() - run.since) / 1000;
    const kb = run.bytes >= 10_240 ? `${Math.round(run.bytes / 1024).toLocaleString('en-US')} KB` : `${run.bytes.toLocaleString('en-US')} B`;
    this.line(
      'info',
      `[${agentName}] ← notification session/update ×${run.count.toLocaleString('en-US')} (${kb} in ${seconds.toFixed(1)} s; hermes.trace "verbose" shows each)`,
    );
  }

  private line(level: TrafficLineLevel, line: string): void {
    this.written++;
    this.ports.write(level, line);
  }
}
