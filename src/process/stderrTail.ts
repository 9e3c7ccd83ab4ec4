import { Emitter } from '../util/emitter';

/** Longest stderr line kept (longer ones are cut with `…`). */
const maxLineChars = 4096;
/** A runaway line without newlines is flushed at this size, so it cannot grow without bound. */
const maxPartialChars = 64 * 1024;

/**
 * The last lines a process wrote to stderr, bounded in lines and in line length. A pipe nobody
 * reads blocks the writer, so the launcher's callers drain stderr into one of these. It also marks
 * where the last stdout activity was, so a crash report shows only what came after (Zed's
 * `trailing_stderr`).
 */
export class StderrTail {
  private readonly ring: string[] = [];
  private partial = '';
  private markAtStdout = 0;
  private total = 0;
  private readonly lineEmitter = new Emitter<string>();
  readonly onLine = this.lineEmitter.event;

  constructor(private readonly maxLines: number) {}

  /** Feeds decoded text; complete lines are stored and announced. */
  push(text: string): void {
    const lines = (this.partial + text).split('\n');
    this.partial = lines.pop() ?? '';
    for (const line of lines) {
      this.pushLine(line.replace(/\r$/, ''));
    }
    if (this.partial.length > maxPartialChars) {
      this.pushLine(this.partial);
      this.partial = '';
    }
  }

  /** The process ended: its last line has no newline. */
  flush(): void {
    if (this.partial !== '') {
      this.pushLine(this.partial);
      this.partial = '';
    }
  }

  markStdoutActivity(): void {
    this.markAtStdout = this.total;
  }

  /** The lines written after the last stdout activity, or the last lines when there are none. */
  tail(maxLines = 40): string {
    const trailing = this.total - this.markAtStdout;
    const count = Math.min(trailing > 0 ? trailing : maxLines, maxLines, this.ring.length);
    return this.ring.slice(this.ring.length - count).join('\n');
  }

  dispose(): void {
    this.lineEmitter.dispose();
  }

  private pushLine(line: string): void {
    const kept = line.length > maxLineChars ? `${flatPrefix(line, maxLineChars)}…` : line;
    this.ring.push(kept);
    this.total++;
    if (this.ring.length > this.maxLines) {
      this.ring.shift();
    }
    if (this.lineEmitter.hasListeners) {
      this.lineEmitter.fire(kept);
    }
  }
}

/** The first `n` UTF-16 units without a lone surrogate at the cut. */
function flatPrefix(text: string, n: number): string {
  return Buffer.from(text.slice(0, n), 'utf16le').toString('utf16le');
}
