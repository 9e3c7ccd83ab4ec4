/**
 * A fake of Hermes' TUI Gateway (see fakeTuiGateway.md). Run from the compiled tests:
 *   node out/test/agents/fakeTuiGateway.js --stdio [--generation next]
 *   node out/test/agents/fakeTuiGateway.js --ws --token <token> [--generation next]
 * By default it replays the recordings of Hermes v0.19.0 (gatewayReplay.ts); `--generation next`
 * is the newer gateway as Hermes' documentation describes it (server requests after
 * `client.capabilities`), which has no recording: fakeTuiGatewayMethods.ts.
 * Stdio serves one client on stdin/stdout. WebSocket serves any number on 127.0.0.1 (`/api/ws`,
 * `?token=`), all sharing the same sessions, and prints `FAKE_TUI_GATEWAY_READY {"port":N}`; it
 * exits when its stdin closes.
 */
import { createServer } from 'node:http';
import { createInterface } from 'node:readline';
import { WebSocketServer } from 'ws';
import { disconnect, handle, RpcFailure } from './fakeTuiGatewayMethods';
import { FakeConn, onAnswer, record, type Frame } from './fakeTuiGatewayState';
import { GatewayReplay } from './gatewayReplay';

const args = process.argv.slice(2);
const generation = args.includes('--generation') ? args[args.indexOf('--generation') + 1] : 'v0.19';
const replay =
  generation === 'next'
    ? undefined
    : new GatewayReplay({
        speed: Number(process.env.FAKE_GATEWAY_SPEED ?? '10') || 10,
        home: process.env.FAKE_GATEWAY_HOME === 'noprovider' ? 'noprovider' : 'ok',
        die: (reason) => {
          process.stderr.write(`fake gateway: ${reason}\n`);
          process.exit(3);
        },
      });

function ready(conn: FakeConn): void {
  if (replay !== undefined) {
    replay.ready(conn);
    return;
  }
  conn.send({ jsonrpc: '2.0', method: 'event', params: { type: 'gateway.ready', payload: { skin: {}, change_events: false, replay_epoch: 'fake-epoch' } } });
}

function onFrame(conn: FakeConn, line: string): void {
  let frame: Frame;
  try {
    frame = JSON.parse(line) as Frame;
  } catch {
    conn.send({ jsonrpc: '2.0', error: { code: -32700, message: 'parse error' }, id: null });
    return;
  }
  record(conn.id, 'in', frame);
  const id = frame.id;
  if (typeof frame.method !== 'string') {
    if (typeof id === 'string') {
      onAnswer(conn, id, frame);
    }
    return;
  }
  const params = typeof frame.params === 'object' && frame.params !== null ? (frame.params as Frame) : {};
  if (replay !== undefined) {
    replay.onRequest(conn, frame.method, id, params);
    return;
  }
  try {
    const result = handle(conn, frame.method, params);
    conn.send({ jsonrpc: '2.0', id, result });
  } catch (e) {
    const f = e instanceof RpcFailure ? e : new RpcFailure(-32603, String(e));
    conn.send({ jsonrpc: '2.0', id, error: { code: f.code, message: f.message, ...(f.data !== undefined ? { data: f.data } : {}) } });
  }
}

function serveStdio(): void {
  const conn = new FakeConn((line) => process.stdout.write(`${line}\n`), true);
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line.trim() !== '') {
      onFrame(conn, line);
    }
  });
  process.stdin.on('end', () => process.exit(0));
  ready(conn);
}

function serveWebSocket(token: string): void {
  const http = createServer((_req, res) => {
    res.writeHead(404).end();
  });
  const wss = new WebSocketServer({ noServer: true });
  http.on('upgrade', (req, socket, head) => {
    const url = new URL(req.url ?? '/', 'http://127.0.0.1');
    if (url.pathname !== '/api/ws' || url.searchParams.get('token') !== token) {
      // Hermes closes before accepting, which the client sees as an HTTP 403 on the upgrade.
      socket.end('HTTP/1.1 403 Forbidden\r\nContent-Length: 0\r\n\r\n');
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      const conn = new FakeConn((line) => ws.send(line), false);
      ws.on('message', (data: Buffer) => onFrame(conn, data.toString('utf8')));
      ws.on('close', () => (replay !== undefined ? replay.disconnect(conn) : disconnect(conn)));
      ready(conn);
    });
  });
  http.listen(0, '127.0.0.1', () => {
    const address = http.address();
    const port = typeof address === 'object' && address !== null ? address.port : 0;
    process.stdout.write(`FAKE_TUI_GATEWAY_READY ${JSON.stringify({ port })}\n`);
  });
  process.stdin.resume();
  process.stdin.on('end', () => process.exit(0));
}

if (generation !== 'next' && generation !== 'v0.19') {
  process.stderr.write(`fakeTuiGateway: --generation is "v0.19" (replayed recordings, the default) or "next" (the documented protocol), not "${generation ?? ''}"\n`);
  process.exit(2);
}
if (args.includes('--stdio')) {
  serveStdio();
} else if (args.includes('--ws')) {
  const i = args.indexOf('--token');
  serveWebSocket(i >= 0 ? (args[i + 1] ?? '') : '');
} else {
  process.stderr.write('usage: fakeTuiGateway (--stdio | --ws --token <token>) [--generation v0.19|next]\n');
  process.exit(2);
}
