/**
 * The captured output of one client terminal: the last `limit` bytes of stdout and stderr, in
 * arrival order, decoded as UTF-8 on demand.
 *
 * ACP `CreateTerminalRequest.outputByteLimit`: "When the limit is exceeded, the Client truncates from
 * the beginning of the output to stay within the limit. The Client MUST ensure truncation happens at
 * a character boundary to maintain valid string output, even if this means the retained output is
 * slightly less than the specified limit."
 *
 * Bytes live in a ring that grows (doubling) up to `limit`, so memory is bounded by the limit and
 * appending is O(chunk) however small the chunks are (a process printing byte by byte must not turn
 * trimming into O(n²) work).
 */
export class TerminalOutputBuffer {
  private ring: Buffer = Buffer.alloc(0);
  /** Index of the oldest retained byte in `ring`. */
  private start = 0;
  /** Retained bytes. */
  private size = 0;
  private dropped = false;
  private version = 0;
  private cache: { version: number; final: boolean; text: string } | undefined;

  constructor(readonly limit: number) {}

  /** True once any byte was discarded from the front. */
  get truncated(): boolean {
    return this.dropped;
  }

  /** Bytes currently retained (≤ limit). */
  get byteLength(): number {
    return this.size;
  }

  append(chunk: Uint8Array): void {
    if (chunk.length === 0) {
      return;
    }
    this.version++;
    if (this.limit === 0) {
      this.dropped = true;
      return;
    }
    if (chunk.length >= this.limit) {
      // The chunk alone fills the limit: keep its tail, forget everything before it.
      if (chunk.length > this.limit || this.size > 0) {
        this.dropped = true;
      }
      if (this.ring.length < this.limit) {
        this.ring = Buffer.alloc(this.limit);
      }
      this.ring.set(chunk.subarray(chunk.length - this.limit), 0);
      this.start = 0;
      this.size = this.limit;
      return;
    }
    const needed = this.size + chunk.length;
    if (needed > this.ring.length && this.ring.length < this.limit) {
      this.grow(Math.min(this.limit, Math.max(needed, this.ring.length * 2, 4096)));
    }
    const cap = this.ring.length;
    if (needed > cap) {
      // cap === limit here: drop the oldest bytes (the UTF-8 boundary is fixed when reading).
      const drop = needed - cap;
      this.start = (this.start + drop) % cap;
      this.size -= drop;
      this.dropped = true;
    }
    const at = (this.start + this.size) % cap;
    const first = Math.min(chunk.length, cap - at);
    this.ring.set(chunk.subarray(0, first), at);
    if (first < chunk.length) {
      this.ring.set(chunk.subarray(first), 0);
    }
    this.size += chunk.length;
  }

  /**
   * The retained output as a string. The front is moved past a partial character left by
   * truncation. While the process runs (`final` false) an incomplete character at the end is held
   * back (its remaining bytes are probably still in the pipe); once it has exited the bytes are
   * decoded as they are (invalid sequences become U+FFFD).
   */
  text(final: boolean): string {
    if (this.cache?.version === this.version && this.cache.final === final) {
      return this.cache.text;
    }
    let bytes = this.bytes();
    if (this.dropped) {
      bytes = bytes.subarray(leadingContinuationBytes(bytes));
    }
    if (!final) {
      bytes = bytes.subarray(0, completePrefixLength(bytes));
    }
    const text = bytes.toString('utf8');
    this.cache = { version: this.version, final, text };
    return text;
  }

  /** The retained bytes, oldest first (a copy). */
  bytes(): Buffer {
    const cap = this.ring.length;
    const out = Buffer.alloc(this.size);
    if (this.size === 0) {
      return out;
    }
    const first = Math.min(this.size, cap - this.start);
    this.ring.copy(out, 0, this.start, this.start + first);
    if (first < this.size) {
      this.ring.copy(out, first, 0, this.size - first);
    }
    return out;
  }

  private grow(capacity: number): void {
    const next = Buffer.alloc(capacity);
    this.bytes().copy(next, 0);
    this.ring = next;
    this.start = 0;
  }
}

function isContinuation(byte: number): boolean {
  return (byte & 0xc0) === 0x80;
}

/**
 * How many bytes at the front belong to a character whose lead byte was cut off. A UTF-8 character
 * has at most 3 continuation bytes, so more than 3 in a row are not a cut character but invalid
 * output, which is left for the decoder to replace.
 */
export function leadingContinuationBytes(bytes: Uint8Array): number {
  let n = 0;
  while (n < 3 && n < bytes.length && isContinuation(bytes[n] ?? 0)) {
    n++;
  }
  return n;
}

/** Length of `bytes` without a trailing incomplete UTF-8 sequence. */
export function completePrefixLength(bytes: Uint8Array): number {
  const len = bytes.length;
  // Find the last lead byte among the final 4 bytes.
  for (let i = len - 1; i >= Math.max(0, len - 4); i--) {
    const b = bytes[i] ?? 0;
    if (isContinuation(b)) {
      continue;
    }
    const expected = b < 0x80 ? 1 : (b & 0xe0) === 0xc0 ? 2 : (b & 0xf0) === 0xe0 ? 3 : (b & 0xf8) === 0xf0 ? 4 : 1;
    return i + expected > len ? i : len;
  }
  return len;
}
