/**
 * Splits a byte stream into newline-delimited lines (ACP stdio framing: one JSON-RPC message per
 * `\n`-terminated line). Unlike the SDK's ndJsonStream, an over-long line is *skipped* with a
 * report instead of closing the connection, and memory stays bounded while skipping: only a
 * short prefix of the oversized line is kept for the traffic log.
 */
export interface LineSink {
  line(bytes: Uint8Array): void;
  oversized(totalBytes: number, prefix: Uint8Array): void;
}

const NEWLINE = 0x0a;
const PREFIX_BYTES = 512;

export class LineReader {
  private parts: Uint8Array[] = [];
  private partBytes = 0;
  /** While > 0 we are discarding the rest of an oversized line; counts its bytes so far. */
  private skipping = 0;
  private skippedPrefix: Uint8Array | undefined;

  constructor(
    private readonly sink: LineSink,
    private readonly maxLineBytes: number,
  ) {}

  /** Feeds a chunk. Chunks are kept by reference, so callers must not mutate them afterwards. */
  push(chunk: Uint8Array): void {
    let start = 0;
    for (;;) {
      const nl = chunk.indexOf(NEWLINE, start);
      if (nl === -1) {
        this.take(chunk.subarray(start));
        return;
      }
      if (this.partBytes === 0 && this.skipping === 0) {
        // Fast path: the whole line is inside this chunk; no copy.
        const length = nl - start;
        if (length > this.maxLineBytes) {
          this.sink.oversized(length, chunk.slice(start, start + PREFIX_BYTES));
        } else if (length > 0) {
          this.sink.line(chunk.subarray(start, nl));
        }
      } else {
        this.take(chunk.subarray(start, nl));
        this.finishLine();
      }
      start = nl + 1;
    }
  }

  /** The stream ended: a final unterminated line still counts. */
  end(): void {
    if (this.partBytes > 0 || this.skipping > 0) {
      this.finishLine();
    }
  }

  private take(piece: Uint8Array): void {
    if (piece.length === 0) {
      return;
    }
    if (this.skipping > 0) {
      this.skipping += piece.length;
      return;
    }
    if (this.partBytes + piece.length > this.maxLineBytes) {
      // Keep only a short prefix for the log; copying everything buffered just for it would double
      // the memory held while the rest of the line is skipped.
      this.skippedPrefix = firstBytes([...this.parts, piece], PREFIX_BYTES);
      this.skipping = this.partBytes + piece.length;
      this.parts = [];
      this.partBytes = 0;
      return;
    }
    this.parts.push(piece);
    this.partBytes += piece.length;
  }

  private finishLine(): void {
    if (this.skipping > 0) {
      const total = this.skipping;
      const prefix = this.skippedPrefix ?? new Uint8Array();
      this.skipping = 0;
      this.skippedPrefix = undefined;
      this.sink.oversized(total, prefix);
      return;
    }
    const line = this.parts.length === 1 && this.parts[0] !== undefined ? this.parts[0] : concat(this.parts, this.partBytes);
    this.parts = [];
    this.partBytes = 0;
    this.sink.line(line);
  }
}

function firstBytes(parts: readonly Uint8Array[], n: number): Uint8Array {
  const out = new Uint8Array(n);
  let offset = 0;
  for (const p of parts) {
    if (offset >= n) {
      break;
    }
    const take = p.subarray(0, n - offset);
    out.set(take, offset);
    offset += take.length;
  }
  return out.slice(0, offset);
}

function concat(parts: readonly Uint8Array[], total: number): Uint8Array {
  const out = new Uint8Array(total);
  let offset = 0;
  for (const p of parts) {
    out.set(p, offset);
    offset += p.length;
  }
  return out;
}

const strictDecoder = new TextDecoder('utf-8', { fatal: true });
const lenientDecoder = new TextDecoder('utf-8');

/** Decodes a line as UTF-8; invalid sequences are replaced and reported rather than thrown. */
export function decodeLine(bytes: Uint8Array): { text: string; invalidUtf8: boolean } {
  try {
    return { text: strictDecoder.decode(bytes), invalidUtf8: false };
  } catch {
    return { text: lenientDecoder.decode(bytes), invalidUtf8: true };
  }
}
