/**
 * A fake of Hermes' API Server (OpenAI-compatible HTTP + SSE) that replays the recordings of Hermes
 * v0.19.0 (test/fixtures/hermes-api-server/; apiReplay.ts). Run from the compiled tests:
 *   node out/test/agents/fakeApiServer.js [--key <API_SERVER_KEY>] [--generation next]
 * Listens on 127.0.0.1 (free port) and prints `FAKE_API_SERVER_READY {"port":N}`; exits when its
 * stdin closes. `--generation next` adds what only the documentation describes, unrecorded:
 * `features.run_unknown_resolution` and `POST /v1/runs/{id}/resolve-unknown` (apiResolveUnknown.ts).
 * See fakeApiServer.md.
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { ResolveUnknown } from './apiResolveUnknown';
import { ApiReplay } from './apiReplay';
import { isJson, type Json } from './gatewayRecordings';

const args = process.argv.slice(2);
const keyIndex = args.indexOf('--key');
const apiKey = keyIndex >= 0 ? args[keyIndex + 1] : undefined;
const next = args.includes('--generation') && args[args.indexOf('--generation') + 1] === 'next';

function record(entry: Json): void {
  const file = process.env.FAKE_API_RECORD;
  if (file !== undefined && file !== '') {
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
  }
}

const replay = new ApiReplay(Number(process.env.FAKE_API_SPEED ?? '10') || 10, (what) => record({ event: 'client disconnected', what }));
const resolver = next ? new ResolveUnknown() : undefined;

function notFound(res: ServerResponse, what: string): void {
  res.writeHead(404, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: what, code: 'not_found' } }));
}

async function route(req: IncomingMessage, res: ServerResponse, body: Json): Promise<void> {
  const pathname = new URL(req.url ?? '/', 'http://127.0.0.1').pathname;
  const method = req.method ?? 'GET';
  if (method === 'GET' && (pathname === '/health' || pathname === '/v1/models' || pathname === '/v1/capabilities')) {
    const ex = replay.recorded('GET', pathname);
    if (ex === undefined) {
      notFound(res, pathname);
      return;
    }
    const caps = isJson(ex.body) ? ex.body : {};
    replay.sendRecorded(res, ex, pathname === '/v1/capabilities' && resolver !== undefined ? resolver.capabilities(caps) : ex.body);
    return;
  }
  if (method === 'POST' && pathname === '/v1/chat/completions') {
    const header = req.headers['x-hermes-session-id'];
    await replay.chat(res, body, typeof header === 'string' && header !== '' ? header : undefined);
    return;
  }
  const session = /^\/api\/sessions\/([^/]+)\/messages$/.exec(pathname)?.[1];
  if (method === 'GET' && session !== undefined) {
    replay.messages(res, decodeURIComponent(session));
    return;
  }
  if (method === 'POST' && pathname === '/v1/runs') {
    replay.startRun(res, body);
    return;
  }
  const m = /^\/v1\/runs\/([^/]+)(\/[a-z-]+)?$/.exec(pathname);
  const id = m?.[1] !== undefined ? decodeURIComponent(m[1]) : '';
  const action = m?.[2];
  if (resolver?.handles(id) === true) {
    resolver.route(res, method, action, body);
    return;
  }
  const run = replay.run(id);
  if (run === undefined) {
    notFound(res, `Run not found: ${id || pathname}`);
  } else if (method === 'GET' && action === undefined) {
    replay.status(res, run);
  } else if (method === 'GET' && action === '/events') {
    await replay.events(res, run);
  } else if (method === 'POST' && action === '/approval') {
    replay.approve(res, run, typeof body.choice === 'string' ? body.choice : 'deny');
  } else if (method === 'POST' && action === '/stop') {
    replay.stop(res, run);
  } else {
    notFound(res, `no route ${method} ${pathname}`);
  }
}

const server = createServer((req, res) => {
  const chunks: Buffer[] = [];
  req.on('data', (c: Buffer) => chunks.push(c));
  req.on('end', () => {
    const raw = Buffer.concat(chunks).toString('utf8');
    let body: unknown;
    try {
      body = raw === '' ? undefined : JSON.parse(raw);
    } catch {
      res.writeHead(400, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: 'Invalid JSON in request body', code: 'invalid_json' } }));
      return;
    }
    const auth = req.headers.authorization;
    record({ method: req.method, path: req.url, authorized: auth === `Bearer ${apiKey ?? ''}`, sessionHeader: req.headers['x-hermes-session-id'], body });
    // `/health` answers without a key (recorded); everything else needs it when one is set.
    const unauthorized = replay.unauthorized();
    if (apiKey !== undefined && auth !== `Bearer ${apiKey}` && req.url !== '/health' && unauthorized !== undefined) {
      replay.sendRecorded(res, unauthorized);
      return;
    }
    route(req, res, isJson(body) ? body : {}).catch((e: unknown) => {
      if (!res.headersSent) {
        res.writeHead(500).end(String(e));
      }
    });
  });
});

server.listen(0, '127.0.0.1', () => {
  const address = server.address();
  process.stdout.write(`FAKE_API_SERVER_READY ${JSON.stringify({ port: typeof address === 'object' && address !== null ? address.port : 0 })}\n`);
});
process.stdin.resume();
process.stdin.on('end', () => process.exit(0));
