/**
 * A scripted fake of Hermes' API Server (OpenAI-compatible HTTP + SSE), built from
 * `gateway/platforms/api_server_openai_routes.py` and `api_server_runs.py` (revisions in
 * src/transports/apiServer/). Run from the compiled tests:
 *   node out/test/agents/fakeApiServer.js [--key <API_SERVER_KEY>] [--no-resolve]
 * Listens on 127.0.0.1 (free port) and prints `FAKE_API_SERVER_READY {"port":N}`; exits when its
 * stdin closes. Behaviour by markers in the last user message (see fakeApiServer.md).
 */
import { appendFileSync } from 'node:fs';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';

type Json = Record<string, unknown>;

const args = process.argv.slice(2);
const keyIndex = args.indexOf('--key');
const apiKey = keyIndex >= 0 ? args[keyIndex + 1] : undefined;
const resolveFeature = !args.includes('--no-resolve');

function record(entry: Json): void {
  const file = process.env.FAKE_API_RECORD;
  if (file !== undefined && file !== '') {
    appendFileSync(file, `${JSON.stringify(entry)}\n`);
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

function fail(res: ServerResponse, status: number, message: string, code: string): void {
  send(res, status, { error: { message, type: 'invalid_request_error', code } });
}

function sse(res: ServerResponse, headers: Record<string, string> = {}): (frame: string) => void {
  res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', ...headers });
  return (frame) => {
    if (!res.writableEnded) {
      res.write(frame);
    }
  };
}

// ── chat completions ──────────────────────────────────────────────────────────────────────────

async function chat(req: IncomingMessage, res: ServerResponse, body: Json): Promise<void> {
  const messages = Array.isArray(body.messages) ? (body.messages as Json[]) : [];
  const last = messages.filter((m) => m.role === 'user').at(-1)?.content;
  const text = typeof last === 'string' ? last : '';
  const sessionId = req.headers['x-hermes-session-id'];
  const write = sse(res, typeof sessionId === 'string' ? { 'X-Hermes-Session-Id': sessionId } : {});
  let gone = false;
  res.on('close', () => {
    gone = true;
    if (!res.writableFinished) {
      record({ event: 'client disconnected', text });
    }
  });
  const chunk = (delta: Json, finish: string | null = null, extra: Json = {}): void =>
    write(`data: ${JSON.stringify({ id: 'chatcmpl-fake', object: 'chat.completion.chunk', created: 1, model: 'hermes-agent', choices: [{ index: 0, delta, finish_reason: finish }], ...extra })}\n\n`);
  const progress = (p: Json): void => write(`event: hermes.tool.progress\ndata: ${JSON.stringify(p)}\n\n`);
  write(': keepalive\n\n');
  chunk({ role: 'assistant' });
  if (text.includes('[tools]')) {
    chunk({ content: 'Let me look. ' });
    progress({ tool: 'search_files', emoji: '🔎', label: '*.ts', toolCallId: 'call_1', status: 'running' });
    await sleep(10);
    progress({ tool: 'search_files', toolCallId: 'call_1', status: 'completed' });
    progress({ tool: 'terminal', emoji: '💻', label: 'ls -F', toolCallId: 'call_2', status: 'running' });
    await sleep(10);
    // A tool that failed still reports `completed`: the failure would be in its result.
    progress({ tool: 'terminal', toolCallId: 'call_2', status: 'completed' });
    chunk({ content: 'Found 3 files.' });
  } else if (text.includes('[fail]') || text.includes('[429]')) {
    // `[429]`: the failure Hermes reports once its provider retries are spent (run_agent.py's wording).
    const message = text.includes('[429]') ? 'API call failed after 3 retries: HTTP 429 Too Many Requests' : 'provider exploded';
    chunk({ content: 'partial' });
    chunk({}, 'error', { error: { message, type: 'agent_error' }, hermes: { completed: false, partial: false, failed: true, error: message } });
    write('data: [DONE]\n\n');
    res.end();
    return;
  } else if (text.includes('[slow]')) {
    for (let i = 0; i < 500 && !gone; i++) {
      chunk({ content: `tick ${i} ` });
      await sleep(20);
    }
    res.end();
    return;
  } else if (text.includes('[cut]')) {
    chunk({ content: 'half a rep' });
    res.destroy();
    return;
  } else {
    chunk({ content: 'Echo: ' });
    chunk({ content: text.replace(/\[[^\]]*\]/g, '').trim() });
  }
  chunk({}, 'stop', { usage: { prompt_tokens: 10, completion_tokens: 5, total_tokens: 15 } });
  write('data: [DONE]\n\n');
  res.end();
}

// ── runs ──────────────────────────────────────────────────────────────────────────────────────

interface Run {
  readonly id: string;
  status: Json;
  readonly events: Json[];
  waiters: (() => void)[];
  approval: ((choice: string) => void) | undefined;
  stopped: boolean;
  done: boolean;
}

const runs = new Map<string, Run>();
let nextRun = 1;
runs.set('run_lost', {
  id: 'run_lost',
  status: { object: 'hermes.run', run_id: 'run_lost', status: 'unknown', admission_id: 'adm-7', execution_generation: 3, session_id: 'api-session' },
  events: [],
  waiters: [],
  approval: undefined,
  stopped: false,
  done: true,
});

function push(run: Run, event: string, fields: Json = {}): void {
  run.events.push({ event, run_id: run.id, timestamp: Date.now() / 1000, ...fields });
  for (const w of run.waiters.splice(0)) {
    w();
  }
}

async function execute(run: Run, text: string): Promise<void> {
  run.status = { ...run.status, status: 'running' };
  if (text.includes('[approval]')) {
    push(run, 'tool.started', { tool: 'terminal', preview: 'rm -rf build' });
    run.status = { ...run.status, status: 'waiting_for_approval' };
    const choice = await new Promise<string>((resolve) => {
      run.approval = resolve;
      push(run, 'approval.request', { command: 'rm -rf build', description: 'recursive delete', request_id: 'appr-1', choices: ['once', 'session', 'always', 'deny'] });
    });
    push(run, 'approval.responded', { choice, request_id: 'appr-1', resolved: 1 });
    push(run, 'tool.completed', { tool: 'terminal', duration: 0.01, error: choice === 'deny' });
    push(run, 'message.delta', { delta: `approval: ${choice}` });
  } else if (text.includes('[slow]')) {
    for (let i = 0; i < 500 && !run.stopped; i++) {
      push(run, 'message.delta', { delta: `tick ${i} ` });
      await sleep(20);
    }
  } else {
    push(run, 'tool.started', { tool: 'read_file', preview: 'README.md' });
    push(run, 'tool.completed', { tool: 'read_file', duration: 0.002, error: false });
    push(run, 'message.delta', { delta: `Echo: ${text}` });
  }
  const status = run.stopped ? 'cancelled' : 'completed';
  run.status = { ...run.status, status };
  push(run, `run.${status}`, status === 'completed' ? { output: '', usage: { input_tokens: 10, output_tokens: 5, total_tokens: 15 } } : {});
  run.done = true;
}

async function runEvents(res: ServerResponse, run: Run): Promise<void> {
  const write = sse(res);
  let sent = 0;
  for (;;) {
    while (sent < run.events.length) {
      write(`data: ${JSON.stringify(run.events[sent++])}\n\n`);
    }
    if (run.done) {
      write(': stream closed\n\n');
      res.end();
      return;
    }
    await new Promise<void>((resolve) => run.waiters.push(resolve));
  }
}

function resolveUnknown(res: ServerResponse, run: Run, body: unknown): void {
  const keys = typeof body === 'object' && body !== null && !Array.isArray(body) ? Object.keys(body) : [];
  if (keys.length !== 2 || !keys.includes('admission_id') || !keys.includes('execution_generation')) {
    fail(res, 409, 'expected exactly admission_id and execution_generation', 'invalid_params');
    return;
  }
  const b = body as Json;
  if (b.admission_id !== run.status.admission_id) {
    fail(res, 409, 'no such admission for this run', 'not_found');
    return;
  }
  if (run.status.status !== 'unknown' || typeof b.execution_generation !== 'number' || b.execution_generation !== run.status.execution_generation) {
    fail(res, 409, 'the admission moved on', 'stale_generation');
    return;
  }
  run.status = { ...run.status, status: 'interrupted', execution_generation: Number(run.status.execution_generation) + 1 };
  send(res, 200, { run_id: run.id, admission_id: b.admission_id, status: 'terminal', outcome: 'interrupted' });
}

// ── routing ───────────────────────────────────────────────────────────────────────────────────

async function route(req: IncomingMessage, res: ServerResponse, body: unknown): Promise<void> {
  const url = new URL(req.url ?? '/', 'http://127.0.0.1');
  const path = url.pathname;
  const json: Json = typeof body === 'object' && body !== null && !Array.isArray(body) ? (body as Json) : {};
  if (req.method === 'GET' && path === '/v1/capabilities') {
    send(res, 200, {
      object: 'hermes.capabilities',
      features: { runs: true, run_unknown_resolution: resolveFeature },
      ...(resolveFeature ? { endpoints: { run_unknown_resolution: { path: '/v1/runs/{run_id}/resolve-unknown' } } } : {}),
    });
  } else if (req.method === 'GET' && path === '/v1/models') {
    send(res, 200, { object: 'list', data: [{ id: 'hermes-agent', object: 'model' }] });
  } else if (req.method === 'POST' && path === '/v1/chat/completions') {
    await chat(req, res, json);
  } else if (req.method === 'POST' && path === '/v1/runs') {
    const run: Run = { id: `run_${nextRun++}`, status: {}, events: [], waiters: [], approval: undefined, stopped: false, done: false };
    run.status = { object: 'hermes.run', run_id: run.id, status: 'queued', session_id: json.session_id ?? run.id };
    runs.set(run.id, run);
    void execute(run, typeof json.input === 'string' ? json.input : '');
    send(res, 202, { run_id: run.id, status: 'started', replayed: false });
  } else {
    const m = /^\/v1\/runs\/([^/]+)(\/[a-z-]+)?$/.exec(path);
    const run = m?.[1] !== undefined ? runs.get(decodeURIComponent(m[1])) : undefined;
    const action = m?.[2];
    if (run === undefined) {
      fail(res, 404, `Run not found: ${m?.[1] ?? path}`, 'run_not_found');
    } else if (req.method === 'GET' && action === undefined) {
      send(res, 200, run.status);
    } else if (req.method === 'GET' && action === '/events') {
      await runEvents(res, run);
    } else if (req.method === 'POST' && action === '/approval') {
      if (run.approval === undefined) {
        fail(res, 409, `Run has no pending approval: ${run.id}`, 'approval_not_pending');
        return;
      }
      const choice = String(json.choice);
      run.approval(choice);
      run.approval = undefined;
      send(res, 200, { object: 'hermes.run.approval_response', run_id: run.id, choice, request_id: json.request_id, resolved: 1 });
    } else if (req.method === 'POST' && action === '/stop') {
      run.stopped = true;
      send(res, 200, { run_id: run.id, status: 'stopping' });
    } else if (req.method === 'POST' && action === '/resolve-unknown' && resolveFeature) {
      resolveUnknown(res, run, body);
    } else {
      fail(res, 404, `no route ${req.method ?? ''} ${path}`, 'not_found');
    }
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
      fail(res, 400, 'Invalid JSON in request body', 'invalid_json');
      return;
    }
    const auth = req.headers.authorization;
    record({ method: req.method, path: req.url, authorized: auth === `Bearer ${apiKey ?? ''}`, sessionHeader: req.headers['x-hermes-session-id'], body });
    if (apiKey !== undefined && auth !== `Bearer ${apiKey}`) {
      fail(res, 401, 'Invalid API key', 'invalid_api_key');
      return;
    }
    route(req, res, body).catch((e: unknown) => {
      if (!res.headersSent) {
        fail(res, 500, String(e), 'server_error');
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
