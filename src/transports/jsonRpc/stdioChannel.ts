import { AgentProcess, type AgentCommand } from '../../wire/agentProcess';
import { decodeLine, LineReader } from '../../wire/lineReader';
import type { TrafficLog } from '../../wire/trafficLog';
import { TransportClosedError } from '../../agentPort/transportErrors';
import type { LineChannel } from './lineChannel';

/** Longest accepted frame; longer lines are skipped and logged, as on the ACP connection. */
const maxLineBytes = 64 * 1024 * 1024;

/**
 * A child process speaking newline-delimited JSON on stdio (the TUI Gateway's `tui_gateway.entry`).
 * Reuses the ACP connection's process handling: its own process group, stderr drained into a ring
 * and the traffic log, SIGTERM then SIGKILL on close.
 */
export class StdioChannel implements LineChannel {
  readonly description: string;
  readonly closed: Promise<Error>;

  private constructor(
    private readonly proc: AgentProcess,
    private readonly log: TrafficLog,
  ) {
    this.description = [proc.spec.command, ...proc.spec.args].join(' ');
    proc.onStderrLine((line) => log.append({ dir: 'stderr', kind: 'text', size: Buffer.byteLength(line), text: line }));
    this.closed = proc.exited.then((exit) => new TransportClosedError(exit.message, exit.stderrTail));
  }

  static async start(spec: AgentCommand, log: TrafficLog): Promise<StdioChannel> {
    log.note(`starting ${[spec.command, ...spec.args].join(' ')} (cwd ${spec.cwd})`);
    return new StdioChannel(await AgentProcess.start(spec), log);
  }

  start(sink: (frame: string, size: number) => void): void {
    const reader = new LineReader(
      {
        line: (bytes) => {
          const { text } = decodeLine(bytes);
          if (text.trim() !== '') {
            sink(text, bytes.length);
          }
        },
        oversized: (total, prefix) =>
          this.log.append({ dir: 'in', kind: 'oversized', size: total, text: decodeLine(prefix).text, note: `line of ${total} bytes skipped` }),
      },
      maxLineBytes,
    );
    this.proc.stdout.on('data', (chunk: Uint8Array) => {
      this.proc.markStdoutActivity();
      reader.push(chunk);
    });
    this.proc.stdout.once('end', () => reader.end());
  }

  send(frame: string): boolean {
    const stdin = this.proc.stdin;
    if (!this.proc.isRunning || stdin.destroyed || stdin.writableEnded) {
      return false;
    }
    stdin.write(`${frame}\n`);
    return true;
  }

  async close(): Promise<void> {
    this.proc.stdin.end();
    await this.proc.dispose();
  }
}
