/**
 * Writes a transcript in the line format of `../shared/fixtures/hermes-gateway/README.md` and
 * `hermes-api-server/README.md`: `{"t": <s>, "dir": "->"|"<-"|"##", "msg": …}`, every frame both
 * ways in order, notes as `##`; paths, keys and secret values replaced by placeholders on save.
 * `peer()` is a JSON-RPC client over lines (the stdio gateway), `http()` an HTTP/SSE client.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';

export type Json = Record<string, unknown>;

function isJson(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

interface Line {
  readonly t: number;
  readonly dir: '->' | '<-' | '##';
  readonly msg: unknown;
}

export class WireRecorder {
  private readonly t0 = Date.now();
  private readonly lines: Line[] = [];

  constructor(
    readonly name: string,
    private readonly subs: readonly (readonly [string, string])[],
  ) {}

  add(dir: Line['dir'], msg: unknown): void {
    this.lines.push({ t: Math.round(Date.now() - this.t0) / 1000, dir, msg });
  }

  note(text: string): void {
    process.stdout.write(`[${this.name} ${((Date.now() - this.t0) / 1000).toFixed(2)}] ${text}\n`);
    this.add('##', text);
  }

  save(file: string): void {
    let text = this.lines.map((l) => JSON.stringify(l)).join('\n') + '\n';
    const home = os.homedir();
    const subs = [...this.subs, [`${home}/`, '<USERHOME>/'] as const].sort((a, b) => b[0].length - a[0].length);
    for (const [from, to] of subs) {
      // Inside JSON text a path may also appear JSON-escaped (it has no characters that need it here).
      text = text.split(from).join(to);
    }
    fs.writeFileSync(file, text);
    process.stdout.write(`wrote ${file} (${this.lines.length} lines)\n`);
  }

  peer(write: (line: string) => void): RecordingPeer {
    return new RecordingPeer(this, write);
  }

  http(baseUrl: string, key: string): RecordingHttp {
    return new RecordingHttp(this, baseUrl, key);
  }
}

export class RecordingPeer {
  private readonly frames: Json[] = [];
  private readonly waiters = new Set<() => void>();
  private next = 0;

  constructor(
    private readonly rec: WireRecorder,
    private readonly write: (line: string) => void,
  ) {}

  received(line: string): void {
    if (line.trim() === '') {
      return;
    }
    let frame: unknown;
    try {
      frame = JSON.parse(line);
    } catch {
      this.rec.note(`non-JSON line: ${line.slice(0, 300)}`);
      return;
    }
    this.rec.add('<-', frame);
    if (isJson(frame)) {
      this.frames.push(frame);
      for (const w of this.waiters) {
        w();
      }
    }
  }

  mark(): number {
    return this.frames.length;
  }

  async call(method: string, params: Json, timeoutMs = 180_000): Promise<Json> {
    const id = ++this.next;
    const since = this.mark();
    const frame = { jsonrpc: '2.0', id, method, params };
    this.rec.add('->', frame);
    this.write(JSON.stringify(frame));
    return this.wait((f) => f.id === id && ('result' in f || 'error' in f), since, timeoutMs, `the answer to ${method}`);
  }

  /** The payload of the first event of this type (and session) since `since`. */
  async event(type: string, since: number, timeoutMs: number, sessionId?: string): Promise<Json> {
    const frame = await this.wait(
      (f) => f.method === 'event' && isJson(f.params) && f.params.type === type && (sessionId === undefined || f.params.session_id === sessionId),
      since,
      timeoutMs,
      `a ${type} event`,
    );
    const params = isJson(frame.params) ? frame.params : {};
    return isJson(params.payload) ? params.payload : {};
  }

  private wait(match: (f: Json) => boolean, since: number, timeoutMs: number, what: string): Promise<Json> {
    return new Promise((resolve, reject) => {
      const check = (): boolean => {
        const found = this.frames.slice(since).find(match);
        if (found !== undefined) {
          this.waiters.delete(waiter);
          clearTimeout(timer);
          resolve(found);
          return true;
        }
        return false;
      };
      const waiter = (): void => void check();
      const timer = setTimeout(() => {
        this.waiters.delete(waiter);
        this.rec.note(`no ${what} within ${timeoutMs / 1000} s`);
        reject(new Error(`no ${what} within ${timeoutMs / 1000} s`));
      }, timeoutMs);
      this.waiters.add(waiter);
      check();
    });
  }
}

export interface HttpResult {
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: unknown;
}

const keptHeaders = ['Content-Type', 'Cache-Control', 'Retry-After', 'X-Hermes-Session-Id', 'X-Hermes-Run-Id', 'Location'];

export class RecordingHttp {
  constructor(
    private readonly rec: WireRecorder,
    private readonly baseUrl: string,
    private readonly key: string,
  ) {}

  async call(
    method: 'GET' | 'POST',
    path: string,
    body?: unknown,
    options: { readonly auth?: boolean; readonly headers?: Readonly<Record<string, string>>; readonly dropAfterDeltas?: number; readonly onEvent?: (data: Json) => void; readonly label?: string } = {},
  ): Promise<HttpResult> {
    const headers: Record<string, string> = {
      ...(options.auth !== false ? { Authorization: `Bearer ${this.key}` } : {}),
      ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
      ...options.headers,
    };
    const tag = options.label !== undefined ? { stream: options.label } : {};
    this.rec.add('->', { http: `${method} ${path}`, ...tag, headers, ...(body !== undefined ? { body } : {}) });
    const abort = new AbortController();
    const res = await fetch(`${this.baseUrl}${path}`, { method, headers, ...(body !== undefined ? { body: JSON.stringify(body) } : {}), signal: abort.signal });
    const kept: Record<string, string> = {};
    for (const name of keptHeaders) {
      const v = res.headers.get(name);
      if (v !== null) {
        kept[name] = v;
      }
    }
    this.rec.add('<-', { http_status: res.status, ...tag, headers: kept });
    if (!(res.headers.get('Content-Type') ?? '').includes('text/event-stream') || res.body === null) {
      const text = await res.text();
      let parsed: unknown = text;
      try {
        parsed = JSON.parse(text);
      } catch {
        // keep the text
      }
      this.rec.add('<-', { body: parsed, ...tag });
      return { status: res.status, headers: kept, body: parsed };
    }
    await this.readSse(res.body, abort, tag, options.dropAfterDeltas, options.onEvent);
    return { status: res.status, headers: kept };
  }

  private async readSse(stream: ReadableStream<Uint8Array>, abort: AbortController, tag: Json, dropAfterDeltas: number | undefined, onEvent?: (data: Json) => void): Promise<void> {
    const reader = stream.getReader();
    const decoder = new TextDecoder();
    let buffer = '';
    let event: string | undefined;
    let data: string[] = [];
    let deltas = 0;
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          break;
        }
        buffer += decoder.decode(value, { stream: true });
        let nl: number;
        while ((nl = buffer.indexOf('\n')) >= 0) {
          const line = buffer.slice(0, nl).replace(/\r$/, '');
          buffer = buffer.slice(nl + 1);
          if (line.startsWith(':')) {
            this.rec.add('<-', { sse_comment: line.slice(1).trim(), ...tag });
          } else if (line.startsWith('event:')) {
            event = line.slice(6).trim();
          } else if (line.startsWith('data:')) {
            data.push(line.slice(5).replace(/^ /, ''));
          } else if (line === '' && (data.length > 0 || event !== undefined)) {
            const raw = data.join('\n');
            let parsed: unknown = raw;
            try {
              parsed = JSON.parse(raw);
            } catch {
              // `[DONE]`
            }
            this.rec.add('<-', { sse: { ...(event !== undefined ? { event } : {}), data: parsed }, ...tag });
            if (isJson(parsed)) {
              onEvent?.(parsed);
            }
            if (raw.includes('"content"')) {
              deltas++;
            }
            event = undefined;
            data = [];
            if (dropAfterDeltas !== undefined && deltas >= dropAfterDeltas) {
              this.rec.note(`client drops the connection after ${deltas} deltas`);
              abort.abort();
              return;
            }
          }
        }
      }
      this.rec.note(`${typeof tag.stream === 'string' ? `${tag.stream}: ` : ''}stream ended`);
    } catch (e) {
      if (!abort.signal.aborted) {
        throw e;
      }
    }
  }
}
