import * as vscode from 'vscode';
import { formatTrafficEntry, type TrafficEntry, type TrafficLog } from '../wire/trafficLog';
import type { Disposable } from '../util/disposable';
import type { TraceLevel } from './configuration';

/**
 * "Hermes Traffic": a LogOutputChannel fed by the agents' traffic logs at the `hermes.trace`
 * level (like vscode-languageclient's `*.trace.server`). Problems (bad lines, exits, stderr) are
 * always written; message lines depend on the level.
 */
export class TrafficChannel implements Disposable {
  readonly channel: vscode.LogOutputChannel;
  private readonly subscriptions: Disposable[] = [];

  constructor(private readonly trace: () => TraceLevel) {
    this.channel = vscode.window.createOutputChannel('Hermes Traffic', { log: true });
  }

  attach(agentName: string, log: TrafficLog): Disposable {
    const sub = log.onDidAppend((e) => this.write(agentName, e));
    this.subscriptions.push(sub);
    return sub;
  }

  /** Shows the channel; with tracing off, first replays the recent problems so there is something to see. */
  show(logs: readonly { readonly name: string; readonly log: TrafficLog }[]): void {
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
    for (const s of this.subscriptions) {
      s.dispose();
    }
    this.channel.dispose();
  }

  private write(agentName: string, e: TrafficEntry): void {
    const level = this.trace();
    const problem = e.kind === 'invalid' || e.kind === 'oversized' || e.kind === 'ignored' || e.kind === 'error';
    if (level === 'off' && !problem && e.dir !== 'stderr' && e.dir !== 'note') {
      return;
    }
    const line = `[${agentName}] ${formatTrafficEntry(e, level === 'verbose')}`;
    if (e.kind === 'invalid' || e.kind === 'oversized') {
      this.channel.warn(line);
    } else if (e.kind === 'error') {
      this.channel.error(line);
    } else {
      this.channel.info(line);
    }
  }
}
