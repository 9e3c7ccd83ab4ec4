import { AgentTimeoutError } from '../../agentPort/agentErrors';
import type { TrafficLog } from '../../wire/trafficLog';
import { isObject } from '../../util/json';
import { HttpStatusError, TransportClosedError } from '../../agentPort/transportErrors';
import { SseParser, type SseEvent } from './sse';

export interface ApiTarget {
  /** e.g. `http://127.0.0.1:8642` (Hermes' API server default port); a trailing `/v1` is accepted. */
  readonly baseUrl: string;
  /** `API_SERVER_KEY`, sent as a bearer token; never logged. */
  readonly apiKey?: string;
}

export interface CallOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  readonly headers?: Readonly<Record<string, string>>;
}

export interface StreamOptions extends CallOptions {
  /** The stream is abandoned when nothing (not even a keepalive) arrives for this long. */
  readonly idleTimeoutMs: number;
  readonly onHeaders?: (headers: Headers) => void;
}

/**
 * HTTP for the API Server with Node's own `fetch` (no dependency): JSON calls and SSE streams, each
 * bounded by a deadline (JSON) or an idle deadline (streams) and the caller's signal; every request,
 * answer and event goes to the traffic log, the key never does.
 */
export class ApiHttp {
  private readonly base: string;

  constructor(
    private readonly target: ApiTarget,
    private readonly log: TrafficLog,
    private readonly defaultTimeoutMs: number,
  ) {
    this.base = target.baseUrl.replace(/\/+$/, '').replace(/\/v1$/, '');
  }

  get description(): string {
    return this.base;
  }

  async json(method: 'GET' | 'POST', path: string, body?: unknown, options: CallOptions = {}): Promise<unknown> {
    const timeoutMs = options.timeoutMs ?? this.defaultTimeoutMs;
    const controller = new AbortController();
    const timer = setTimeout(() => controller.abort(new AgentTimeoutError(`${method} ${path}`, timeoutMs)), timeoutMs);
    const onAbort = (): void => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    try {
      const res = await this.send(method, path, body, options.headers, controller.signal);
      const text = await res.text();
      this.log.append({ dir: 'in', kind: res.ok ? 'response' : 'error', method: `${method} ${path}`, size: Buffer.byteLength(text), text, note: `HTTP ${res.status}` });
      if (!res.ok) {
        throw statusError(res.status, text);
      }
      return text === '' ? undefined : (JSON.parse(text) as unknown);
    } catch (e) {
      throw aborted(controller.signal, e);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  /** POSTs or GETs and delivers the SSE events until the stream ends; rejects on HTTP errors. */
  async stream(method: 'GET' | 'POST', path: string, body: unknown, onEvent: (e: SseEvent) => void, options: StreamOptions): Promise<void> {
    const controller = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const arm = (): void => {
      clearTimeout(timer);
      timer = setTimeout(() => controller.abort(new TransportClosedError(`The API server sent nothing for ${Math.round(options.idleTimeoutMs / 1000)} s; the stream was abandoned.`)), options.idleTimeoutMs);
    };
    const onAbort = (): void => controller.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onAbort, { once: true });
    arm();
    try {
      const res = await this.send(method, path, body, { Accept: 'text/event-stream', ...options.headers }, controller.signal);
      if (!res.ok || res.body === null) {
        const text = await res.text();
        this.log.append({ dir: 'in', kind: 'error', method: `${method} ${path}`, size: Buffer.byteLength(text), text, note: `HTTP ${res.status}` });
        throw statusError(res.status, text);
      }
      this.log.note(`${method} ${path}: HTTP ${res.status}, streaming`);
      options.onHeaders?.(res.headers);
      const parser = new SseParser((e) => {
        this.log.append({ dir: 'in', kind: 'notification', method: e.event ?? 'data', size: Buffer.byteLength(e.data), text: e.data });
        onEvent(e);
      });
      const decoder = new TextDecoder();
      const reader = (res.body as ReadableStream<Uint8Array>).getReader();
      for (;;) {
        const { done, value } = await reader.read();
        if (done) {
          break;
        }
        arm();
        parser.push(decoder.decode(value, { stream: true }));
      }
      parser.push(decoder.decode());
      parser.end();
    } catch (e) {
      if (!controller.signal.aborted && !TransportClosedError.is(e) && !HttpStatusError.is(e)) {
        // Node's fetch says only "terminated" when the server goes away mid-stream.
        throw new TransportClosedError(`Lost the connection to the API server at ${this.base} during ${method} ${path}: ${causeOf(e)}.`);
      }
      throw aborted(controller.signal, e);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onAbort);
    }
  }

  private async send(method: string, path: string, body: unknown, headers: Readonly<Record<string, string>> | undefined, signal: AbortSignal): Promise<Response> {
    const line = body === undefined ? '' : JSON.stringify(body);
    this.log.append({ dir: 'out', kind: 'request', method: `${method} ${path}`, size: Buffer.byteLength(line), text: line });
    const key = this.target.apiKey;
    try {
      return await fetch(`${this.base}${path}`, {
        method,
        headers: {
          ...(body !== undefined ? { 'Content-Type': 'application/json' } : {}),
          ...(key !== undefined && key !== '' ? { Authorization: `Bearer ${key}` } : {}),
          ...headers,
        },
        ...(body !== undefined ? { body: line } : {}),
        signal,
      });
    } catch (e) {
      if (signal.aborted) {
        throw e;
      }
      throw new TransportClosedError(`Could not reach the API server at ${this.base}: ${causeOf(e)}`);
    }
  }
}

function causeOf(e: unknown): string {
  const cause = e instanceof Error && e.cause instanceof Error ? e.cause.message : undefined;
  return cause ?? (e instanceof Error ? e.message : String(e));
}

/** A caller's abort or our deadline reads as its reason, not as fetch's generic AbortError. */
function aborted(signal: AbortSignal, e: unknown): unknown {
  if (signal.aborted) {
    const reason: unknown = signal.reason;
    return reason instanceof Error ? reason : new TransportClosedError('The request was cancelled.');
  }
  return e;
}

/** The OpenAI error envelope (`{error: {message, code}}`) when the body has one. */
export function statusError(status: number, text: string): HttpStatusError {
  let message = text.trim() === '' ? `HTTP ${status}` : text.slice(0, 500);
  let code: string | undefined;
  try {
    const body = JSON.parse(text) as unknown;
    const err = isObject(body) && isObject(body.error) ? body.error : undefined;
    if (err !== undefined) {
      message = typeof err.message === 'string' ? err.message : message;
      code = typeof err.code === 'string' ? err.code : undefined;
    }
  } catch {
    // not JSON: keep the text
  }
  const hint = status === 401 ? ' Check the API key (API_SERVER_KEY on the server).' : '';
  return new HttpStatusError(status, code, `The API server answered HTTP ${status}: ${message}${hint}`);
}
