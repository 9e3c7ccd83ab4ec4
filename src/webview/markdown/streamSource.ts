/**
 * The text of a streaming Markdown view, line endings normalized, from the start of its open tail
 * on (`open`). What finished blocks took is dropped: a refresh reads the open tail, never the
 * whole message. V8 copies a string built by appending whole the first time it is read, so
 * keeping the message here would cost its length per refresh (quadratic over a long reply).
 */
export class StreamSource {
  /** The normalized text from the start of the open tail on. */
  open = '';
  /** Characters of the normalized text before `open`: shown for good. */
  dropped = 0;
  private pendingCR = false;

  /** The normalized text's length. */
  get length(): number {
    return this.dropped + this.open.length;
  }

  /** Appends `chunk` (a CRLF split between two chunks still makes one line break). */
  append(chunk: string): void {
    if (chunk === '') {
      return;
    }
    let c = chunk;
    if (this.pendingCR && c.startsWith('\n')) {
      c = c.slice(1);
    }
    this.pendingCR = chunk.endsWith('\r');
    this.open += c.includes('\r') ? c.replace(/\r\n?/g, '\n') : c;
  }

  /** Drops `count` characters from the front of `open` (they are shown for good). */
  drop(count: number): void {
    this.open = this.open.slice(count);
    this.dropped += count;
  }

  clear(): void {
    this.open = '';
    this.dropped = 0;
    this.pendingCR = false;
  }
}
