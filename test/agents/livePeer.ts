/**
 * The replay agent's view of the live client: NDJSON lines from stdin sorted into requests,
 * notifications and responses that the replay walk can wait for, and one ordered stdout writer.
 */

export interface LiveRequest {
  readonly id: unknown;
  readonly method: string;
}

export interface LiveNotification {
  readonly method: string;
}

export class EndOfInput extends Error {
  constructor() {
    super('stdin ended');
    this.name = 'EndOfInput';
  }
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Key for maps of JSON-RPC ids: `1` and `"1"` are different ids. */
export function idKey(id: unknown): string {
  return JSON.stringify(id) ?? 'undefined';
}

export class LivePeer {
  readonly requests: LiveRequest[] = [];
  readonly notifications: LiveNotification[] = [];
  private readonly responses = new Set<string>();
  private ended = false;
  private wakers: (() => void)[] = [];
  private pending = Buffer.alloc(0);
  private writeTail: Promise<void> = Promise.resolve();

  constructor(
    private readonly log: (message: string) => void,
    input: NodeJS.ReadableStream = process.stdin,
    private readonly output: NodeJS.WritableStream = process.stdout,
  ) {
    input.on('data', (chunk: Buffer | string) => this.onData(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    input.on('end', () => {
      this.ended = true;
      this.wake();
    });
    output.on('error', () => {
      this.ended = true;
      this.wake();
    });
  }

  get inputEnded(): boolean {
    return this.ended;
  }

  /** Writes one line; lines are written in call order. */
  send(line: string): Promise<void> {
    const write = this.writeTail.then(
      () => new Promise<void>((resolve) => this.output.write(`${line}\n`, () => resolve())),
    );
    this.writeTail = write;
    return write;
  }

  drain(): Promise<void> {
    return this.writeTail;
  }

  /** Waits for something new from the client (or the end of its input). */
  async changed(timeoutMs?: number): Promise<void> {
    if (this.ended) {
      throw new EndOfInput();
    }
    await new Promise<void>((resolve) => {
      let timer: NodeJS.Timeout | undefined;
      const waker = (): void => {
        clearTimeout(timer);
        resolve();
      };
      this.wakers.push(waker);
      if (timeoutMs !== undefined) {
        timer = setTimeout(() => {
          this.wakers = this.wakers.filter((w) => w !== waker);
          resolve();
        }, timeoutMs);
      }
    });
  }

  /** True (and forgets it) if the client has answered the agent request with this id. */
  takeResponse(id: unknown): boolean {
    return this.responses.delete(idKey(id));
  }

  private wake(): void {
    const wakers = this.wakers;
    this.wakers = [];
    for (const w of wakers) {
      w();
    }
  }

  private onData(chunk: Buffer): void {
    this.pending = Buffer.concat([this.pending, chunk]);
    let nl: number;
    while ((nl = this.pending.indexOf(0x0a)) >= 0) {
      const line = this.pending.subarray(0, nl).toString('utf8').trim();
      this.pending = this.pending.subarray(nl + 1);
      if (line !== '') {
        this.onLine(line);
      }
    }
    this.wake();
  }

  /** Called with every line the client sent, as sent (the replay agent's `--received` log). */
  onReceived: ((line: string) => void) | undefined;

  private onLine(line: string): void {
    this.onReceived?.(line);
    let msg: unknown;
    try {
      msg = JSON.parse(line);
    } catch {
      this.log(`client sent a line that is not JSON: ${line.slice(0, 120)}`);
      void this.send(JSON.stringify({ jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error' } }));
      return;
    }
    if (!isRecord(msg)) {
      this.log(`client sent a non-object: ${line.slice(0, 120)}`);
      return;
    }
    if (typeof msg.method === 'string') {
      if ('id' in msg) {
        this.log(`live request ${msg.method} id=${idKey(msg.id)}`);
        this.requests.push({ id: msg.id, method: msg.method });
      } else {
        this.log(`live notification ${msg.method}`);
        this.notifications.push({ method: msg.method });
      }
    } else if ('id' in msg) {
      this.log(`live response to id=${idKey(msg.id)}: ${line.slice(0, 160)}`);
      this.responses.add(idKey(msg.id));
    }
  }
}
