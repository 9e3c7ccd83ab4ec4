/**
 * Records what the fixtures copied from `../shared/fixtures/hermes-{gateway,api-server}/` lack, from
 * the real Hermes v0.19.0 of the lab, in their line format (`{"t", "dir": "->"|"<-"|"##", "msg"}`,
 * placeholders `<WS>`, `<HOME>`, `<LAB>`, `<RUN>`, `<USERHOME>`, `<TOKEN>`, `<SECRET>`):
 *
 *   HERMES_LAB=/work/lab node out/test/hermes/recordWire.js [--out test/fixtures] [gw-questions] [api-session]
 *
 * - `gw-questions` → `hermes-gateway/stdio-questions.jsonl`: `client.capabilities` (v0.19.0 has
 *   none), clarify answered and answered empty, sudo declined, a skill's secret provided, an
 *   approval and a clarify left pending when the turn is interrupted, `approval.respond` with nothing pending.
 * - `api-session` → `hermes-api-server/chat-session.jsonl`: `/health`, `/v1/capabilities`, a
 *   dangerous command over chat completions and the session's stored messages
 *   (`/api/sessions/{id}/messages`: the parked `pending_approval`), a session continued with
 *   `X-Hermes-Session-Id`, a `[slow]` stream the client drops.
 *
 * The model is labModel.ts (markers `[clarify]`, `[skill name=…]` besides the lab server's own).
 */
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { findLab, LabRun } from './lab';
import { WireRecorder, type Json } from './wireRecorder';

const secretValue = 'lab-secret-value-7f3a91';

async function gatewayQuestions(run: LabRun, out: string): Promise<void> {
  const ws = run.workspace('questions');
  const home = run.home({ skills: { 'lab-keyed': ['LAB_SERVICE_TOKEN'] } });
  const rec = new WireRecorder('stdio-questions', [
    [ws, '<WS>'],
    [home, '<HOME>'],
    [run.lab, '<LAB>'],
    [run.dir, '<RUN>'],
    [secretValue, '<SECRET>'],
  ]);
  rec.note('spawn: <LAB>/bin/python -m tui_gateway.entry (cwd <WS>, HERMES_HOME=<HOME> with a skill `lab-keyed` requiring LAB_SERVICE_TOKEN, PYTHONPATH=<LAB>/hermes-agent)');
  const child = spawn(run.python, ['-m', 'tui_gateway.entry'], { cwd: ws, env: run.env(home, { PYTHONPATH: run.hermesRoot }), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stderr.resume();
  const peer = rec.peer((line) => child.stdin.write(`${line}\n`));
  createInterface({ input: child.stdout }).on('line', (line) => peer.received(line));
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));

  await peer.event('gateway.ready', 0, 60_000);
  rec.note('client.capabilities {server_requests: true}: the newer gateway declares server requests this way');
  await peer.call('client.capabilities', { server_requests: true });
  const since = peer.mark();
  const created = await peer.call('session.create', { cols: 100, cwd: ws });
  const result = created.result as Json | undefined;
  const sid = typeof result?.session_id === 'string' ? result.session_id : '';
  rec.note(`session.create -> session_id ${sid}; waiting for session.info (agent built)`);
  await peer.event('session.info', since, 120_000, sid);

  const ask = async (text: string, event: string, answer: (payload: Json) => Promise<void>, note: string): Promise<void> => {
    rec.note(note);
    const mark = peer.mark();
    await peer.call('prompt.submit', { session_id: sid, text });
    const asked = await peer.event(event, mark, 120_000, sid);
    await delay(300);
    await answer(asked);
    await peer.event('message.complete', mark, 120_000, sid);
  };
  const requestId = (p: Json): string => (typeof p.request_id === 'string' ? p.request_id : '');
  await ask('[clarify] Ask me something.', 'clarify.request', (p) => peer.call('clarify.respond', { request_id: requestId(p), answer: 'blue' }).then(() => undefined), 'a clarify answered "blue"');
  await ask('[clarify] Ask again.', 'clarify.request', (p) => peer.call('clarify.respond', { request_id: requestId(p), answer: '' }).then(() => undefined), 'a clarify answered with the empty string (what Hermes itself sends for a dismissed prompt)');
  await ask('[terminal cmd=sudo true] Check.', 'sudo.request', (p) => peer.call('sudo.respond', { request_id: requestId(p), password: '' }).then(() => undefined), 'sudo: the password request declined (empty)');
  await ask('[skill name=lab-keyed] Load it.', 'secret.request', (p) => peer.call('secret.respond', { request_id: requestId(p), value: secretValue }).then(() => undefined), 'a skill requiring LAB_SERVICE_TOKEN: the secret provided (value shown as <SECRET>)');

  const victim = path.join(ws, 'victim3');
  fs.mkdirSync(path.join(victim, 'sub'), { recursive: true });
  await ask(`[terminal cmd=rm -r ${victim}] Clean up.`, 'approval.request', () => peer.call('session.interrupt', { session_id: sid }).then(() => undefined), 'dangerous command; the turn is interrupted while the approval is pending (never answered)');
  rec.note(`victim3 exists after the interrupt: ${fs.existsSync(victim)}`);
  await delay(1500);
  await ask('[clarify] Once more.', 'clarify.request', () => peer.call('session.interrupt', { session_id: sid }).then(() => undefined), 'a clarify pending when the turn is interrupted');
  await delay(1500);
  rec.note('approval.respond with no approval pending');
  await peer.call('approval.respond', { session_id: sid, choice: 'once' });
  rec.note('stdin closed');
  child.stdin.end();
  rec.note(`gateway exited (exit code ${String(await exited)})`);
  rec.save(path.join(out, 'hermes-gateway', 'stdio-questions.jsonl'));
}

async function apiSession(run: LabRun, out: string): Promise<void> {
  const ws = run.workspace('api');
  const home = run.home();
  const key = `lab-key-${Math.random().toString(16).slice(2)}${Math.random().toString(16).slice(2)}`;
  const server = await run.apiServer(home, key);
  const rec = new WireRecorder('chat-session', [
    [ws, '<WS>'],
    [home, '<HOME>'],
    [run.lab, '<LAB>'],
    [run.dir, '<RUN>'],
    [key, '<TOKEN>'],
  ]);
  const http = rec.http(server.baseUrl, key);
  rec.note(`\`hermes gateway run\` with API_SERVER_ENABLED=true API_SERVER_KEY=<TOKEN> API_SERVER_PORT=${server.port} up`);
  await http.call('GET', '/health', undefined, { auth: false });
  await http.call('GET', '/v1/capabilities');
  fs.mkdirSync(path.join(ws, 'victim', 'sub'), { recursive: true });
  rec.note('[terminal cmd=rm -r …] streamed: the dangerous command is parked, not run');
  const parked = await http.call('POST', '/v1/chat/completions', { model: 'hermes-agent', stream: true, messages: [{ role: 'user', content: `[terminal cmd=rm -r ${ws}/victim] Clean up.` }] });
  rec.note(`victim exists after: ${fs.existsSync(path.join(ws, 'victim'))}`);
  const session = parked.headers['X-Hermes-Session-Id'] ?? '';
  rec.note('the session the answer named (X-Hermes-Session-Id): its stored messages');
  await http.call('GET', `/api/sessions/${encodeURIComponent(session)}/messages`);
  rec.note('a session continued with X-Hermes-Session-Id (two requests, the history in the body too)');
  const first = [{ role: 'user', content: '[plain] Say hello.' }];
  await http.call('POST', '/v1/chat/completions', { model: 'hermes-agent', stream: true, messages: first }, { headers: { 'X-Hermes-Session-Id': 'lab-continued-1' } });
  await http.call(
    'POST',
    '/v1/chat/completions',
    { model: 'hermes-agent', stream: true, messages: [...first, { role: 'assistant', content: 'Hello from the fake model!' }, { role: 'user', content: '[plain] Again.' }] },
    { headers: { 'X-Hermes-Session-Id': 'lab-continued-1' } },
  );
  await http.call('GET', '/api/sessions/lab-continued-1/messages');
  fs.writeFileSync(path.join(ws, 'hello.txt'), 'hello world\n');
  rec.note('[edit path=…] streamed: the patch runs without asking; its stored messages');
  const edited = await http.call('POST', '/v1/chat/completions', { model: 'hermes-agent', stream: true, messages: [{ role: 'user', content: `[edit path=${ws}/hello.txt] Replace world.` }] });
  await http.call('GET', `/api/sessions/${encodeURIComponent(edited.headers['X-Hermes-Session-Id'] ?? '')}/messages`);
  rec.note('a session that does not exist');
  await http.call('GET', '/api/sessions/no-such-session/messages');
  fs.mkdirSync(path.join(ws, 'victim-run', 'sub'), { recursive: true });
  rec.note('runs API with a session_id: approval answered "once", then the session\'s stored messages');
  const admitted = await http.call('POST', '/v1/runs', { input: `[terminal cmd=rm -r ${ws}/victim-run] Clean up.`, session_id: 'lab-run-session-1', model: 'hermes-agent' });
  const runId = typeof (admitted.body as Json | undefined)?.run_id === 'string' ? String((admitted.body as Json).run_id) : '';
  await http.call('GET', `/v1/runs/${runId}/events`, undefined, {
    label: 'events',
    onEvent: (data) => {
      if (data.event === 'approval.request') {
        setTimeout(() => void http.call('POST', `/v1/runs/${runId}/approval`, { choice: 'once' }), 300);
      }
    },
  });
  rec.note(`victim-run exists after 'once': ${fs.existsSync(path.join(ws, 'victim-run'))}`);
  await http.call('GET', '/api/sessions/lab-run-session-1/messages');
  rec.note('[slow] streamed; the client drops the connection after three deltas');
  await http.call('POST', '/v1/chat/completions', { model: 'hermes-agent', stream: true, messages: [{ role: 'user', content: '[slow] count' }] }, { dropAfterDeltas: 3 });
  await delay(2000);
  rec.save(path.join(out, 'hermes-api-server', 'chat-session.jsonl'));
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

async function main(): Promise<void> {
  const args = process.argv.slice(2);
  const outAt = args.indexOf('--out');
  const out = path.resolve(outAt >= 0 ? (args[outAt + 1] ?? '') : path.join(__dirname, '../../../test/fixtures'));
  const chosen = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--out');
  const scenarios = chosen.length > 0 ? chosen : ['gw-questions', 'api-session'];
  const lab = findLab();
  if ('missing' in lab) {
    throw new Error(lab.missing);
  }
  const run = await LabRun.open(lab.root, 'record');
  try {
    for (const s of scenarios) {
      const t0 = Date.now();
      if (s === 'gw-questions') {
        await gatewayQuestions(run, out);
      } else if (s === 'api-session') {
        await apiSession(run, out);
      } else {
        throw new Error(`unknown scenario ${s} (gw-questions, api-session)`);
      }
      process.stdout.write(`== ${s}: ${Math.round((Date.now() - t0) / 1000)} s (home ${os.homedir()})\n`);
    }
  } finally {
    await run.dispose();
  }
}

main().catch((e: unknown) => {
  process.stderr.write(`recordWire: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
  process.exit(1);
});
