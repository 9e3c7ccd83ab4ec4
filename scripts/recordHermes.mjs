// Records `hermes acp` (the real Hermes of the lab, /work/shared/hermes-lab) on stdio into the
// Hermes transcript format of test/fixtures/README.md: `{"t", "dir": "->"|"<-"|"##", "msg"}`, every
// frame in both directions as it was on the wire, `<LAB>` for the recording's root directory.
//
//   node scripts/recordHermes.mjs --lab /work/lab --port 28461 --out test/fixtures/hermes [scenario…]
//
// The model is the lab's scripted server (`$LAB/bin/fake-server`, started here on port+1) behind a
// small pass-through on `--port` that can answer the next N model calls with HTTP 429 itself (a
// transient rate limit the lab's markers cannot script: a `[ratelimit]` prompt fails on every call,
// so nothing sent after it could succeed). Each main model call's last user message is written into
// the transcript as a `##` note ("model received: …"): what the model was actually sent. Side calls
// (titles, the approval reviewer) are recognised by their system prompt, as the lab's server does.
// Scenarios are below (`scenarios`); each gets its own HERMES_HOME and workspace under a new root.
import { spawn } from 'node:child_process';
import { mkdtempSync, mkdirSync, readFileSync, realpathSync, writeFileSync, cpSync, existsSync } from 'node:fs';
import http from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const args = process.argv.slice(2);
function option(name, fallback) {
  const i = args.indexOf(name);
  if (i < 0) {
    return fallback;
  }
  const v = args[i + 1];
  args.splice(i, 2);
  return v;
}
const lab = resolve(option('--lab', '/work/lab'));
const port = Number(option('--port', '28461'));
const out = resolve(option('--out', 'test/fixtures/hermes'));
const wanted = args;

/** The pass-through in front of the lab's model server: counts calls, fails the next N with 429, reports what the model got. */
class ModelFront {
  constructor(listenPort, upstreamPort) {
    this.upstreamPort = upstreamPort;
    this.failNext = 0;
    this.onMainCall = () => undefined;
    this.server = http.createServer((req, res) => this.handle(req, res));
    this.ready = new Promise((r) => this.server.listen(listenPort, '127.0.0.1', r));
  }

  handle(req, res) {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      let body;
      try {
        body = JSON.parse(raw.toString('utf8') || '{}');
      } catch {
        body = {};
      }
      const main = req.method === 'POST' && isMainCall(body);
      if (main && this.failNext > 0) {
        this.failNext--;
        this.onMainCall(`HTTP 429 (answered by the recorder) for: ${JSON.stringify(lastUser(body))}`);
        const data = JSON.stringify({ error: { message: 'Rate limit reached (fake)', type: 'rate_limit_exceeded', code: 'rate_limit_exceeded' } });
        res.writeHead(429, { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(data), 'Retry-After': '1' });
        res.end(data);
        return;
      }
      if (main) {
        this.onMainCall(`model received: ${JSON.stringify(lastUser(body))}`);
      }
      const up = http.request({ host: '127.0.0.1', port: this.upstreamPort, method: req.method, path: req.url, headers: req.headers }, (upRes) => {
        res.writeHead(upRes.statusCode ?? 502, upRes.headers);
        upRes.pipe(res);
      });
      up.on('error', (e) => {
        res.writeHead(502);
        res.end(String(e));
      });
      up.end(raw);
    });
  }

  close() {
    this.server.closeAllConnections?.();
    return new Promise((r) => this.server.close(r));
  }
}

function systemText(body) {
  return (body.messages ?? []).filter((m) => m.role === 'system').map((m) => String(m.content ?? '')).join('\n').toLowerCase();
}
function isMainCall(body) {
  const sys = systemText(body);
  if (!Array.isArray(body.messages)) {
    return false;
  }
  if (sys.includes('security reviewer')) {
    return false;
  }
  return !(sys.length < 3000 && sys.includes('title') && (sys.includes('conversation') || sys.includes('session')));
}
function lastUser(body) {
  for (const m of [...(body.messages ?? [])].reverse()) {
    if (m.role === 'user') {
      return Array.isArray(m.content) ? m.content.map((p) => p.text ?? '').join('\n') : String(m.content ?? '');
    }
    if (m.role === 'tool') {
      return '(a tool result)';
    }
  }
  return '';
}

/** One recording: the agent processes, the transcript lines, the JSON-RPC plumbing. */
class Recording {
  constructor(name, root, home, front) {
    this.name = name;
    this.root = root;
    this.home = home;
    this.front = front;
    this.lines = [];
    this.t0 = Date.now();
    this.nextId = 1;
    this.processes = 0;
    this.permissionAnswer = () => ({ outcome: { outcome: 'cancelled' } });
    front.onMainCall = (text) => this.note(text);
  }

  time() {
    return Math.round(Date.now() - this.t0) / 1000;
  }

  scrub(text) {
    return text.split(this.root).join('<LAB>');
  }

  write(dir, msgText) {
    this.lines.push(`{"t": ${this.time()}, "dir": "${dir}", "msg": ${this.scrub(msgText)}}`);
  }

  note(text) {
    this.write('##', JSON.stringify(text));
  }

  spawnAgent() {
    this.processes++;
    if (this.processes > 1) {
      this.note(`spawned agent (process ${this.processes})`);
    }
    const child = spawn(join(lab, 'bin', 'hermes'), ['acp'], {
      cwd: join(this.root, 'ws'),
      env: { ...process.env, HERMES_HOME: this.home },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    this.child = child;
    this.pending = new Map();
    this.updates = [];
    let buffer = '';
    child.stdout.on('data', (d) => {
      buffer += d.toString('utf8');
      let nl;
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl).trim();
        buffer = buffer.slice(nl + 1);
        if (line !== '') {
          this.onLine(line);
        }
      }
    });
    child.stderr.on('data', (d) => process.stderr.write(`[hermes ${this.name}] ${d}`));
    this.exited = new Promise((r) => child.on('exit', (code) => r(code)));
  }

  onLine(line) {
    this.write('<-', line);
    const msg = JSON.parse(line);
    if (msg.method !== undefined && msg.id !== undefined) {
      if (msg.method === 'session/request_permission') {
        const result = this.permissionAnswer(msg.params);
        this.send({ jsonrpc: '2.0', id: msg.id, result });
      } else {
        this.send({ jsonrpc: '2.0', id: msg.id, error: { code: -32601, message: 'Method not found' } });
      }
      return;
    }
    if (msg.method === 'session/update') {
      this.updates.push(msg.params);
      return;
    }
    const waiter = this.pending.get(msg.id);
    if (waiter !== undefined) {
      this.pending.delete(msg.id);
      waiter(msg);
    }
  }

  send(msg) {
    const text = JSON.stringify(msg);
    this.write('->', text);
    this.child.stdin.write(`${text}\n`);
  }

  request(method, params) {
    const id = this.nextId++;
    const answer = new Promise((r) => this.pending.set(id, r));
    this.send({ jsonrpc: '2.0', id, method, params });
    return answer.then((m) => {
      if (m.error !== undefined) {
        return { error: m.error };
      }
      return m.result;
    });
  }

  notify(method, params) {
    this.send({ jsonrpc: '2.0', method, params });
  }

  async setup() {
    await this.request('initialize', {
      protocolVersion: 1,
      clientCapabilities: { fs: { readTextFile: true, writeTextFile: true }, terminal: true },
      clientInfo: { name: 'hermes-acp-recorder', title: 'Hermes ACP fixture recorder', version: '0.0.1' },
    });
  }

  async newSession() {
    const res = await this.request('session/new', { cwd: join(this.root, 'ws'), mcpServers: [] });
    await settle(300);
    return res.sessionId;
  }

  prompt(sessionId, text) {
    return this.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  }

  async stopAgent() {
    this.child.stdin.end();
    const code = await this.exited;
    this.note(`agent exited (code ${code})`);
  }
}

const settle = (ms) => new Promise((r) => setTimeout(r, ms));

/** Waits until a turn's update arrives (e.g. a first text chunk), then a little more. */
async function waitForUpdate(rec, test, ms = 30_000) {
  const start = Date.now();
  while (Date.now() - start < ms) {
    if (rec.updates.some(test)) {
      return;
    }
    await settle(50);
  }
  throw new Error('timed out waiting for an update');
}

const scenarios = {
  /** A transient 429 on the first prompt, then the same prompt again in the same session, then a fresh session that sends it once. */
  async retry(rec) {
    await rec.setup();
    const sessionId = await rec.newSession();
    rec.note('the model answers the next 4 calls with HTTP 429 (a transient rate limit)');
    rec.front.failNext = 4;
    await rec.prompt(sessionId, 'Say hello to the team');
    rec.front.failNext = 0;
    await settle(500);
    rec.note('the rate limit is over; the same prompt again in the SAME session (what a plain Retry sends)');
    await rec.prompt(sessionId, 'Say hello to the team');
    await settle(1500);
    rec.note('the same prompt in a new session (what Retry sends for an agent that holds failed prompts)');
    const fresh = await rec.newSession();
    await rec.prompt(fresh, 'Say hello to the team');
    await settle(1500);
    await rec.stopAgent();
  },
  /** A streamed reply cancelled mid-way; the next message (Hermes merges it); a slash command after a cancel does not take it. */
  async cancel(rec) {
    await rec.setup();
    const sessionId = await rec.newSession();
    rec.note('[slow] stream, session/cancel once text has streamed');
    rec.updates = [];
    const turn = rec.prompt(sessionId, '[slow] count for me');
    await waitForUpdate(rec, (u) => u.update?.sessionUpdate === 'agent_message_chunk' && /tick 3/.test(u.update.content?.text ?? ''));
    rec.notify('session/cancel', { sessionId });
    await turn;
    await settle(500);
    rec.note('next message after the cancel: Hermes puts the cancelled prompt in front of it');
    await rec.prompt(sessionId, 'never mind, just say ok');
    await settle(1500);
    await rec.stopAgent();
  },
  /** Edit cards: patch allowed, write_file of a new file allowed, write_file denied, an edit in accept_edits mode. */
  async edits(rec) {
    writeFileSync(join(rec.root, 'ws', 'hello.txt'), 'hello world\n');
    writeFileSync(join(rec.root, 'ws', 'auto.txt'), 'auto world\n');
    await rec.setup();
    const sessionId = await rec.newSession();
    rec.permissionAnswer = () => ({ outcome: { outcome: 'selected', optionId: 'allow_once' } });
    rec.note('patch of hello.txt, permission answered allow_once');
    await rec.prompt(sessionId, `[edit path=${join(rec.root, 'ws', 'hello.txt')}] fix the greeting`);
    rec.note(`hello.txt now: ${JSON.stringify(readFileSync(join(rec.root, 'ws', 'hello.txt'), 'utf8'))}`);
    rec.note('write_file of a new file, permission answered allow_once');
    await rec.prompt(sessionId, `[write path=${join(rec.root, 'ws', 'notes.txt')}] write the notes`);
    rec.note(`notes.txt exists after allow: ${existsSync(join(rec.root, 'ws', 'notes.txt'))}`);
    rec.permissionAnswer = (params) => ({ outcome: { outcome: 'selected', optionId: params.options.find((o) => o.kind === 'reject_once')?.optionId ?? 'deny' } });
    rec.note('write_file of another new file, permission answered with the reject option');
    await rec.prompt(sessionId, `[write path=${join(rec.root, 'ws', 'denied.txt')}] write another file`);
    rec.note(`denied.txt exists after deny: ${existsSync(join(rec.root, 'ws', 'denied.txt'))}`);
    rec.note('session/set_mode accept_edits, then a patch (no permission request)');
    await rec.request('session/set_mode', { sessionId, modeId: 'accept_edits' });
    await rec.prompt(sessionId, `[edit path=${join(rec.root, 'ws', 'auto.txt')}] fix it too`);
    rec.note(`auto.txt now: ${JSON.stringify(readFileSync(join(rec.root, 'ws', 'auto.txt'), 'utf8'))}`);
    await settle(1500);
    await rec.stopAgent();
  },
  /** A prompt, then the agent stopped and started again (Restart), the session loaded, and a prompt after it. */
  async restart(rec) {
    await rec.setup();
    const sessionId = await rec.newSession();
    await rec.prompt(sessionId, '[plain] before the restart');
    await settle(1500);
    await rec.stopAgent();
    rec.spawnAgent();
    await rec.setup();
    await rec.request('session/load', { sessionId, cwd: join(rec.root, 'ws'), mcpServers: [] });
    await settle(500);
    await rec.prompt(sessionId, '[plain] after the restart');
    await settle(1500);
    await rec.stopAgent();
  },
  /** The same first prompt in a new session (a fork from the first message is a plain new session). */
  async probe(rec) {
    await rec.setup();
    const sessionId = await rec.newSession();
    rec.front.failNext = 4;
    await rec.prompt(sessionId, 'first');
    rec.front.failNext = 0;
    rec.note('empty prompt after the failure');
    await rec.request('session/prompt', { sessionId, prompt: [{ type: 'text', text: '' }] });
    await settle(500);
    rec.note('session/fork after the failure');
    const fork = await rec.request('session/fork', { sessionId, cwd: join(rec.root, 'ws'), mcpServers: [] });
    await rec.prompt(fork.sessionId, 'in the fork');
    await settle(500);
    rec.note('cancel, then a slash command, then a prompt');
    rec.updates = [];
    const turn = rec.prompt(sessionId, '[slow] count');
    await waitForUpdate(rec, (u) => u.update?.sessionUpdate === 'agent_message_chunk' && /tick 2/.test(u.update.content?.text ?? ''));
    rec.notify('session/cancel', { sessionId });
    await turn;
    await rec.prompt(sessionId, '/help');
    await rec.prompt(sessionId, 'after help');
    await settle(500);
    await rec.stopAgent();
  },
};

async function record(name) {
  const root = realpathSync(mkdtempSync(join(tmpdir(), `hermes-rec-${name}-`)));
  mkdirSync(join(root, 'ws'), { recursive: true });
  const home = join(root, 'home');
  cpSync(join(lab, 'home'), home, { recursive: true });
  const config = readFileSync(join(home, 'config.yaml'), 'utf8').replace(/http:\/\/127\.0\.0\.1:\d+\/v1/, `http://127.0.0.1:${port}/v1`);
  writeFileSync(join(home, 'config.yaml'), config);
  const front = new ModelFront(port, port + 1);
  await front.ready;
  const rec = new Recording(name, root, home, front);
  rec.note(`scenario ${name}: hermes acp (the lab at ${lab === '/work/lab' ? '/work/lab' : '<lab>'}), scripted model server`);
  rec.spawnAgent();
  try {
    await scenarios[name](rec);
  } finally {
    rec.child.kill();
    await front.close();
  }
  mkdirSync(out, { recursive: true });
  const file = join(out, `${name}.jsonl`);
  writeFileSync(file, `${rec.lines.join('\n')}\n`);
  process.stdout.write(`${file}: ${rec.lines.length} lines (root ${root})\n`);
}

const server = spawn(join(lab, 'bin', 'fake-server'), [String(port + 1)], { stdio: ['ignore', 'pipe', 'inherit'] });
await new Promise((r) => server.stdout.once('data', r));
try {
  for (const name of wanted.length > 0 ? wanted : ['retry', 'cancel', 'edits', 'restart']) {
    if (scenarios[name] === undefined) {
      throw new Error(`unknown scenario ${name}; known: ${Object.keys(scenarios).join(', ')}`);
    }
    await record(name);
  }
} finally {
  server.kill();
}
