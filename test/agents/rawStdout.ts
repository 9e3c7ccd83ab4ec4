/**
 * One serialized writer for the agent's stdout.
 *
 * The SDK's `ndJsonStream` writes each JSON-RPC message as one chunk ending in `\n`. Some scenarios
 * (`[garbage]`, `[huge-line]`) deliberately write non-ACP bytes to stdout; if those went straight to
 * `process.stdout` they could land in the middle of an SDK frame. So both paths go through the same
 * FIFO queue, and a raw write is always a complete line.
 *
 * The writer also lets handlers wait until the response to a given request id has been written,
 * which is how the agent sends notifications strictly *after* a response (Hermes sends
 * `available_commands_update` after the `session/new` response and `session_info_update` after the
 * `session/prompt` response).
 */

type ResponseWaiter = { id: string | number; resolve: (wasSuccess: boolean) => void };

export class SerialStdout {
  private tail: Promise<void> = Promise.resolve();
  private readonly waiters: ResponseWaiter[] = [];
  private readonly decoder = new TextDecoder();
  private broken = false;

  constructor(private readonly out: NodeJS.WritableStream = process.stdout) {
    out.on('error', () => {
      // EPIPE: the client has gone away. Nothing more can be delivered; writes become no-ops.
      this.broken = true;
    });
  }

  /** The byte sink handed to `acp.ndJsonStream`. */
  sdkSink(): WritableStream<Uint8Array> {
    return new WritableStream<Uint8Array>({
      write: (chunk) => this.enqueue(chunk, true),
    });
  }

  /** Writes bytes that bypass the SDK. `line` must end with `\n` to keep the framing intact. */
  writeRaw(line: Uint8Array | string): Promise<void> {
    const bytes = typeof line === 'string' ? Buffer.from(line, 'utf8') : line;
    return this.enqueue(bytes, false);
  }

  /**
   * Resolves once the JSON-RPC response with this id has been written (true for a result, false for
   * an error). Register it before the handler returns; the SDK writes the response afterwards.
   */
  afterResponse(id: string | number): Promise<boolean> {
    return new Promise<boolean>((resolve) => {
      this.waiters.push({ id, resolve });
    });
  }

  /** Resolves when everything queued so far has been handed to the OS. */
  drain(): Promise<void> {
    return this.tail;
  }

  private enqueue(bytes: Uint8Array, fromSdk: boolean): Promise<void> {
    const write = this.tail.then(() => this.writeNow(bytes));
    this.tail = write.catch(() => undefined);
    if (fromSdk && this.waiters.length > 0) {
      void write.then(() => this.checkWaiters(bytes));
    }
    return write;
  }

  private writeNow(bytes: Uint8Array): Promise<void> {
    if (this.broken) {
      return Promise.resolve();
    }
    return new Promise<void>((resolve) => {
      // The callback fires once the chunk is flushed (or failed); failures are handled by the
      // 'error' listener, so the queue always moves on.
      this.out.write(bytes, () => resolve());
    });
  }

  private checkWaiters(bytes: Uint8Array): void {
    let parsed: unknown;
    try {
      parsed = JSON.parse(this.decoder.decode(bytes));
    } catch {
      return;
    }
    if (typeof parsed !== 'object' || parsed === null || 'method' in parsed || !('id' in parsed)) {
      return;
    }
    const id = parsed.id;
    const index = this.waiters.findIndex((w) => w.id === id);
    if (index < 0) {
      return;
    }
    const [waiter] = this.waiters.splice(index, 1);
    waiter?.resolve('result' in parsed);
  }
}
