import WebSocket from 'ws';
import type { TrafficLog } from '../../wire/trafficLog';
import { Deferred } from '../../util/deferred';
import { TransportClosedError } from '../../agentPort/transportErrors';
import type { LineChannel } from './lineChannel';

export interface WebSocketTarget {
  /** `ws://` or `wss://` URL of the gateway endpoint (Hermes' dashboard serves `/api/ws`). */
  readonly url: string;
  /** Sent as the `token` query parameter, which is how Hermes' `/api/ws` authenticates. */
  readonly token?: string;
  readonly connectTimeoutMs?: number;
}

/** Close codes Hermes' WebSocket endpoints use (hermes_cli web server, desktop shim). */
const closeReasons: Readonly<Record<number, string>> = {
  4401: 'the gateway rejected the token',
  4403: 'the gateway accepts connections from this machine only',
  4429: 'the gateway is busy with another client',
};

/** The URL without its query and user info, for logs and messages (tokens ride in the query). */
export function redactUrl(raw: string): string {
  try {
    const u = new URL(raw);
    return `${u.protocol}//${u.username !== '' || u.password !== '' ? '***@' : ''}${u.host}${u.pathname}${u.search !== '' ? '?***' : ''}`;
  } catch {
    return '(invalid URL)';
  }
}

function describeClose(code: number, reason: string): string {
  const why = closeReasons[code] ?? (reason !== '' ? reason : undefined);
  return `code ${code}${why !== undefined ? `: ${why}` : ''}`;
}

/**
 * A WebSocket to a running TUI Gateway (`tui_gateway/ws.py`): one JSON-RPC frame per text message,
 * wire-identical to stdio. Node 20 has no WebSocket client, hence the `ws` package. Listeners are
 * attached before the socket opens: the gateway sends `gateway.ready` the moment it accepts.
 */
export class WebSocketChannel implements LineChannel {
  readonly description: string;
  readonly closed: Promise<Error>;
  private readonly closedDeferred = new Deferred<Error>();
  private readonly openedDeferred = new Deferred<void>();
  private sink: ((frame: string, size: number) => void) | undefined;
  private readonly early: { text: string; size: number }[] = [];

  private constructor(
    private readonly socket: WebSocket,
    displayUrl: string,
  ) {
    this.description = displayUrl;
    this.closed = this.closedDeferred.promise;
    this.openedDeferred.promise.catch(() => undefined);
    socket.on('open', () => this.openedDeferred.resolve());
    socket.on('unexpected-response', (_req: unknown, res: { statusCode?: number }) => {
      this.fail(`The gateway at ${displayUrl} refused the connection (HTTP ${String(res.statusCode)}); check the URL and the token.`);
      socket.terminate();
    });
    socket.on('message', (data: WebSocket.RawData) => this.onMessage(data));
    socket.on('close', (code: number, reason: Buffer) => {
      const how = describeClose(code, reason.toString('utf8'));
      this.fail(`The gateway closed the connection while connecting (${how}).`);
      this.closedDeferred.resolve(new TransportClosedError(`The gateway connection closed (${how}).`));
    });
    socket.on('error', (e: Error) => {
      this.fail(`Could not connect to ${displayUrl}: ${e.message}`);
      this.closedDeferred.resolve(new TransportClosedError(`The gateway connection failed: ${e.message}`));
    });
  }

  static async connect(target: WebSocketTarget, log: TrafficLog): Promise<WebSocketChannel> {
    const url = new URL(target.url);
    if (url.protocol !== 'ws:' && url.protocol !== 'wss:') {
      throw new Error(`The gateway URL must start with ws:// or wss:// (got ${redactUrl(target.url)}).`);
    }
    if (target.token !== undefined && target.token !== '') {
      url.searchParams.set('token', target.token);
    }
    const display = redactUrl(url.toString());
    log.note(`connecting to ${display}`);
    const socket = new WebSocket(url, { handshakeTimeout: target.connectTimeoutMs ?? 15_000, perMessageDeflate: false });
    const channel = new WebSocketChannel(socket, display);
    await channel.openedDeferred.promise;
    return channel;
  }

  start(sink: (frame: string, size: number) => void): void {
    this.sink = sink;
    for (const f of this.early.splice(0)) {
      sink(f.text, f.size);
    }
  }

  send(frame: string): boolean {
    if (this.socket.readyState !== WebSocket.OPEN) {
      return false;
    }
    this.socket.send(frame);
    return true;
  }

  async close(): Promise<void> {
    if (this.socket.readyState === WebSocket.OPEN || this.socket.readyState === WebSocket.CONNECTING) {
      this.socket.close(1000);
    }
    const timer = setTimeout(() => this.socket.terminate(), 2000);
    await this.closed;
    clearTimeout(timer);
  }

  private fail(message: string): void {
    this.openedDeferred.reject(new TransportClosedError(message));
  }

  private onMessage(data: WebSocket.RawData): void {
    const buf = Array.isArray(data) ? Buffer.concat(data) : Buffer.from(data instanceof ArrayBuffer ? new Uint8Array(data) : data);
    // One frame per message, but tolerate several newline-joined frames (a batching proxy).
    for (const part of buf.toString('utf8').split('\n')) {
      if (part.trim() === '') {
        continue;
      }
      const size = Buffer.byteLength(part);
      if (this.sink === undefined) {
        this.early.push({ text: part, size });
      } else {
        this.sink(part, size);
      }
    }
  }
}
