import * as vscode from 'vscode';
import { formatTrafficEntry, type TrafficLog } from '../wire/trafficLog';
import { TrafficLines } from '../wire/trafficLines';
import type { Disposable } from '../util/disposable';
import type { TraceLevel } from './configuration';

/**
 * "Hermes Traffic": a LogOutputChannel fed by the agents' traffic logs at the `hermes.trace`
 * level (like vscode-languageclient's `*.trace.server`). Problems (bad lines, exits, stderr) are
 * always written; message lines depend on the level, and at `messages` streamed updates are summed
 * up (`TrafficLines`).
 */
export class TrafficChannel implements Disposable {
  readonly channel: vscode.LogOutputChannel;
  private readonly subscriptions: Disposable[] = [];
  private readonly lines: TrafficLines;

  constructor(private readonly trace: () => TraceLevel) {
    const channel = vscode.window.createOutputChannel('Hermes Traffic', { log: true });
    this.channel = channel;
    // Read once and on each change, not per traffic entry: VS Code's getConfiguration for every
    // streamed update was 22% of the extension host's CPU while eight agents streamed (P9's bursts).
    let level = trace();
    this.subscriptions.push(
      vscode.workspace.onDidChangeConfiguration((e) => {
        if (e.affectsConfiguration('hermes.trace')) {
          level = trace();
        }
      }),
    );
    this.lines = new TrafficLines(() => level, {
      write: (level, line) => (level === 'warn' ? channel.warn(line) : level === 'error' ? channel.error(line) : channel.info(line)),
      setTimeout: (callback, ms) => setTimeout(callback, ms),
      clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
      now: () => Date.now(),
    });
  }

  /** Lines written to the channel (for tests). */
  get linesWritten(): number {
    return this.lines.written;
  }

  attach(agentName: string, log: TrafficLog): Disposable {
    const sub = log.onDidAppend((e) => this.lines.append(agentName, e));
    this.subscriptions.push(sub);
    return sub;
  }

  /** Shows the channel; with tracing off, first replays the recent problems so there is something to see. */
  show(logs: readonly { readonly name: string; readonly log: TrafficLog }[]): void {
    this.lines.flushAll();
    if (this.trace() === 'off') {
      for (const { name, log } of logs) {
        const recent = log.snapshot().slice(-200);
        this.channel.info(`[${name}] last ${recent.length} traffic entries (hermes.trace is "off"; set it to "messages" to log as it happens):`);
        for (const e of recent) {
          this.channel.info(`[${name}] ${formatTrafficEntry(e, false)}`);
        }
      }
    }
    this.channel.show(true);
  }

  dispose(): void {
    this.lines.flushAll();
    for (const s of this.subscriptions) {
      s.dispose();
    }
    this.channel.dispose();
  }
}
