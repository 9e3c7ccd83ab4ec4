/** One server-sent event: its `event:` name (absent = a plain `data:` frame) and its joined data lines. */
export interface SseEvent {
  readonly event: string | undefined;
  readonly data: string;
}

/**
 * An incremental `text/event-stream` parser (WHATWG HTML §9.2.6): lines end with LF, CR or CRLF; a
 * blank line dispatches; `data:` lines join with LF; `:` lines are comments (Hermes' keepalives);
 * one leading space after the colon is dropped. Chunks may split anywhere, even inside CRLF.
 */
export class SseParser {
  private buffer = '';
  private event: string | undefined;
  private data: string[] = [];
  private pendingCr = false;

  constructor(private readonly dispatch: (event: SseEvent) => void) {}

  push(chunk: string): void {
    let text = chunk;
    if (this.pendingCr && text.startsWith('\n')) {
      text = text.slice(1);
    }
    this.pendingCr = text.endsWith('\r');
    this.buffer += text;
    let start = 0;
    for (;;) {
      const lf = this.buffer.indexOf('\n', start);
      const cr = this.buffer.indexOf('\r', start);
      const end = lf < 0 ? cr : cr < 0 ? lf : Math.min(lf, cr);
      if (end < 0) {
        break;
      }
      this.line(this.buffer.slice(start, end));
      start = end + (this.buffer[end] === '\r' && this.buffer[end + 1] === '\n' ? 2 : 1);
    }
    this.buffer = this.buffer.slice(start);
  }

  /** The stream ended: an event without its blank line is incomplete and dropped (as the spec says). */
  end(): void {
    this.buffer = '';
    this.event = undefined;
    this.data = [];
  }

  private line(line: string): void {
    if (line === '') {
      if (this.data.length > 0) {
        this.dispatch({ event: this.event, data: this.data.join('\n') });
      }
      this.event = undefined;
      this.data = [];
      return;
    }
    if (line.startsWith(':')) {
      return;
    }
    const colon = line.indexOf(':');
    const field = colon < 0 ? line : line.slice(0, colon);
    let value = colon < 0 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) {
      value = value.slice(1);
    }
    if (field === 'data') {
      this.data.push(value);
    } else if (field === 'event') {
      this.event = value;
    }
  }
}
