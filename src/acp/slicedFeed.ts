import type { Readable } from 'node:stream';
import type { LineReader } from '../wire/lineReader';

/**
 * One read from the pipe holds up to 64 KB: hundreds of messages, ~6 ms of parsing, checking and
 * reducing (much more on a busy machine). Reads are queued and fed to the line reader in slices of
 * whole lines, one task each, so the extension host's other work — timers, webview messages,
 * other chats — never waits behind a whole read (issue 20: event-loop delay while a reply
 * streams). The pipe keeps flowing; it is paused only while a megabyte waits.
 */
const sliceBytes = 16 * 1024;
const maxQueuedBytes = 1024 * 1024;

export class SlicedFeed {
  private readonly queue: Uint8Array[] = [];
  private offset = 0;
  private queuedBytes = 0;
  private scheduled = false;
  private waiters: (() => void)[] = [];

  constructor(
    private readonly stdout: Readable,
    private readonly reader: LineReader,
  ) {}

  /** Resolves once everything queued went to the reader. */
  drained(): Promise<void> {
    return this.scheduled ? new Promise((resolve) => this.waiters.push(resolve)) : Promise.resolve();
  }

  push(chunk: Uint8Array): void {
    if (this.queue.length === 0 && chunk.length <= sliceBytes) {
      this.reader.push(chunk);
      return;
    }
    this.queue.push(chunk);
    this.queuedBytes += chunk.length;
    if (this.queuedBytes > maxQueuedBytes) {
      this.stdout.pause();
    }
    if (!this.scheduled) {
      this.scheduled = true;
      this.next();
    }
  }

  private readonly next = (): void => {
    const chunk = this.queue[0];
    if (chunk === undefined) {
      this.scheduled = false;
      this.stdout.resume();
      for (const resolve of this.waiters.splice(0)) {
        resolve();
      }
      return;
    }
    let end = Math.min(chunk.length, this.offset + sliceBytes);
    if (end < chunk.length) {
      const nl = chunk.lastIndexOf(0x0a, end - 1);
      end = nl >= this.offset ? nl + 1 : end;
    }
    const piece = chunk.subarray(this.offset, end);
    this.offset = end;
    if (this.offset >= chunk.length) {
      this.queue.shift();
      this.queuedBytes -= chunk.length;
      this.offset = 0;
    }
    this.reader.push(piece);
    setImmediate(this.next);
  };
}
