import * as http from 'node:http';
import type { AddressInfo, Socket } from 'node:net';

/** A route's answer: a body (200), or a handler for odd servers (slow, lying, silent). */
export type Route = Buffer | string | ((req: http.IncomingMessage, res: http.ServerResponse) => void);

/**
 * An HTTP server on 127.0.0.1 only (a random port), serving fixed routes: the registry index,
 * archives and icons of the registry tests. Records every path requested.
 */
export class LoopbackServer {
  readonly requests: string[] = [];
  private readonly routes = new Map<string, Route>();
  private fallback: Route | undefined;
  private readonly sockets = new Set<Socket>();
  private port = 0;
  private readonly server = http.createServer((req, res) => this.handle(req, res));

  static async start(routes: Record<string, Route> = {}): Promise<LoopbackServer> {
    const s = new LoopbackServer();
    for (const [p, r] of Object.entries(routes)) {
      s.set(p, r);
    }
    s.server.on('connection', (socket) => {
      s.sockets.add(socket);
      socket.once('close', () => s.sockets.delete(socket));
    });
    await new Promise<void>((resolve) => s.server.listen(0, '127.0.0.1', resolve));
    s.port = (s.server.address() as AddressInfo).port;
    return s;
  }

  set(pathname: string, route: Route): void {
    this.routes.set(pathname, route);
  }

  /** What every path without a route gets (default: 404 "not found"). */
  setFallback(route: Route): void {
    this.fallback = route;
  }

  url(pathname: string): string {
    return `http://127.0.0.1:${this.port}${pathname}`;
  }

  private handle(req: http.IncomingMessage, res: http.ServerResponse): void {
    const pathname = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
    this.requests.push(pathname);
    const route = this.routes.get(pathname) ?? this.fallback;
    if (route === undefined) {
      res.writeHead(404).end('not found');
    } else if (typeof route === 'function') {
      route(req, res);
    } else {
      const body = typeof route === 'string' ? Buffer.from(route) : route;
      res.writeHead(200, { 'content-type': 'application/octet-stream', 'content-length': String(body.length) }).end(body);
    }
  }

  /** Stops listening and drops open connections (a silent route's socket included). */
  async close(): Promise<void> {
    for (const socket of this.sockets) {
      socket.destroy();
    }
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}
