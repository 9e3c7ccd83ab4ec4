import { AgentTimeoutError, RpcCode } from '../../agentPort/agentErrors';
import type { TrafficLog } from '../../wire/trafficLog';
import { isObject } from '../../util/json';
import { TransportClosedError, TransportRpcError } from '../../agentPort/transportErrors';
import type { LineChannel } from './lineChannel';

/** A request the peer sent us (a server→client question). */
export interface IncomingRequest {
  readonly id: string | number;
  readonly method: string;
  readonly params: unknown;
  /** Aborted when the peer withdraws the request ({@link JsonRpcPeer.withdraw}) or the channel ends. */
  readonly signal: AbortSignal;
}

export interface JsonRpcPeerOptions {
  readonly log: TrafficLog;
  /** Deadline for a request without its own. */
  readonly defaultTimeoutMs: number;
  readonly onNotification: (method: string, params: unknown) => void;
  /** Resolves with the result, or throws a {@link TransportRpcError} to answer with that error. */
  readonly onRequest: (request: IncomingRequest) => Promise<unknown>;
  /** What an answer looks like in the traffic log: masked values must never reach it. */
  readonly redactAnswer?: (method: string, result: unknown) => unknown;
}

export interface RequestOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
  /** What the traffic log shows instead of the params (a secret being forwarded). */
  readonly logParams?: unknown;
}

interface Pending {
  readonly method: string;
  readonly resolve: (value: unknown) => void;
  readonly reject: (reason: Error) => void;
}

/**
 * JSON-RPC 2.0 over a {@link LineChannel}, both directions. Every outgoing request races its
 * deadline, the caller's signal and the channel's end; every incoming request is answered (the
 * handler's result, its error, or -32603 when it throws something else) unless the peer withdrew
 * it first. Malformed frames are logged and dropped; nothing on the wire closes the connection.
 */
export class JsonRpcPeer {
  private nextId = 1;
  private readonly pending = new Map<string, Pending>();
  private readonly incoming = new Map<string, { method: string; abort: AbortController; withdrawn: boolean }>();
  private closedError: Error | undefined;
  readonly closed: Promise<Error>;

  constructor(
    private readonly channel: LineChannel,
    private readonly options: JsonRpcPeerOptions,
  ) {
    this.closed = channel.closed.then((error) => {
      this.closedError = error;
      options.log.note(`connection closed: ${error.message}`);
      for (const p of this.pending.values()) {
        p.reject(error);
      }
      this.pending.clear();
      for (const r of this.incoming.values()) {
        r.abort.abort(error);
      }
      return error;
    });
    channel.start((frame, size) => this.onFrame(frame, size));
  }

  get isClosed(): boolean {
    return this.closedError !== undefined;
  }

  request<T = unknown>(method: string, params: unknown, options: RequestOptions = {}): Promise<T> {
    if (this.closedError !== undefined) {
      return Promise.reject(this.closedError);
    }
    const id = `c${this.nextId++}`;
    const timeoutMs = options.timeoutMs ?? this.options.defaultTimeoutMs;
    return new Promise<T>((resolve, reject) => {
      const done = (): void => {
        clearTimeout(timer);
        options.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(id);
      };
      const onAbort = (): void => {
        done();
        const reason: unknown = options.signal?.reason;
        reject(reason instanceof Error ? reason : new Error(`${method} was cancelled`));
      };
      this.pending.set(id, {
        method,
        resolve: (v) => {
          done();
          resolve(v as T);
        },
        reject: (e) => {
          done();
          reject(e);
        },
      });
      const timer = setTimeout(() => {
        const error = new AgentTimeoutError(method, timeoutMs);
        this.options.log.note(error.message);
        done();
        reject(error);
      }, timeoutMs);
      options.signal?.addEventListener('abort', onAbort, { once: true });
      const frame = { jsonrpc: '2.0', id, method, params };
      const logged = options.logParams !== undefined ? { ...frame, params: options.logParams } : frame;
      if (!this.write(frame, logged, 'request', method, id)) {
        done();
        reject(this.closedError ?? new TransportClosedError(`Could not send \`${method}\`: the connection is closed.`));
      }
    });
  }

  notify(method: string, params: unknown): void {
    const frame = { jsonrpc: '2.0', method, params };
    this.write(frame, frame, 'notification', method, undefined);
  }

  /** The peer withdrew a request it sent us: abort its handler and send no answer. */
  withdraw(id: string | number, reason: string): boolean {
    const r = this.incoming.get(String(id));
    if (r === undefined || r.withdrawn) {
      return false;
    }
    r.withdrawn = true;
    r.abort.abort(new Error(reason));
    return true;
  }

  async close(): Promise<void> {
    await this.channel.close();
    await this.closed;
  }

  private onFrame(text: string, size: number): void {
    const log = this.options.log;
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      log.append({ dir: 'in', kind: 'invalid', size, text, note: `not JSON: ${(e as Error).message}` });
      return;
    }
    if (!isObject(msg)) {
      log.append({ dir: 'in', kind: 'invalid', size, text, note: 'not a JSON-RPC object' });
      return;
    }
    const { method, id } = msg;
    const hasId = typeof id === 'string' || typeof id === 'number';
    if (typeof method === 'string') {
      if (hasId) {
        log.append({ dir: 'in', kind: 'request', method, id, size, text });
        this.handleRequest(id, method, msg.params);
      } else {
        log.append({ dir: 'in', kind: 'notification', method, size, text });
        this.options.onNotification(method, msg.params);
      }
      return;
    }
    if (hasId && ('result' in msg || 'error' in msg)) {
      const p = this.pending.get(String(id));
      if (p === undefined) {
        log.append({ dir: 'in', kind: 'ignored', id, size, text, note: 'response to an unknown request id' });
        return;
      }
      const err = msg.error;
      log.append({ dir: 'in', kind: err !== undefined ? 'error' : 'response', method: p.method, id, size, text });
      if (err !== undefined) {
        const e = isObject(err) ? err : {};
        p.reject(
          new TransportRpcError(p.method, typeof e.code === 'number' ? e.code : RpcCode.internalError, typeof e.message === 'string' ? e.message : `${p.method} failed`, e.data),
        );
      } else {
        p.resolve(msg.result);
      }
      return;
    }
    log.append({ dir: 'in', kind: 'invalid', size, text, note: 'not a JSON-RPC request, response or notification' });
  }

  private handleRequest(id: string | number, method: string, params: unknown): void {
    const key = String(id);
    const abort = new AbortController();
    const entry = { method, abort, withdrawn: false };
    this.incoming.set(key, entry);
    let answer: Promise<unknown>;
    try {
      answer = this.options.onRequest({ id, method, params, signal: abort.signal });
    } catch (e) {
      answer = Promise.reject(e instanceof Error ? e : new Error(String(e)));
    }
    answer.then(
      (result) => this.answer(key, entry, { jsonrpc: '2.0', id, result }, result),
      (e: unknown) => {
        const error = TransportRpcError.is(e)
          ? { code: e.code, message: e.message, ...(e.data !== undefined ? { data: e.data } : {}) }
          : { code: RpcCode.internalError, message: e instanceof Error ? e.message : String(e) };
        this.answer(key, entry, { jsonrpc: '2.0', id, error }, undefined);
      },
    );
  }

  private answer(key: string, entry: { method: string; withdrawn: boolean }, frame: Record<string, unknown>, result: unknown): void {
    if (this.incoming.get(key) === entry) {
      this.incoming.delete(key);
    }
    if (entry.withdrawn || this.closedError !== undefined) {
      this.options.log.note(`${entry.method} #${key} was withdrawn; its answer was not sent`);
      return;
    }
    const redact = this.options.redactAnswer;
    const logged = 'result' in frame && redact !== undefined ? { ...frame, result: redact(entry.method, result) } : frame;
    this.write(frame, logged, 'error' in frame ? 'error' : 'response', entry.method, frame.id as string | number);
  }

  private write(frame: object, logged: object, kind: 'request' | 'response' | 'error' | 'notification', method: string, id: string | number | undefined): boolean {
    const line = JSON.stringify(frame);
    const sent = this.closedError === undefined && this.channel.send(line);
    this.options.log.append({
      dir: 'out',
      kind,
      method,
      ...(id !== undefined ? { id } : {}),
      size: Buffer.byteLength(line) + 1,
      text: logged === frame ? line : JSON.stringify(logged),
      ...(sent ? {} : { note: 'not sent: the connection is closed' }),
    });
    return sent;
  }
}
