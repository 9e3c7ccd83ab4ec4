/**
 * The replay generation of the fake API Server (fakeApiServer.md): chat completions, runs and the
 * stored session messages answered with the exchanges recorded from Hermes v0.19.0
 * (apiRecordings.ts), the live prompt's paths, run ids, call ids and session ids put in. A chat
 * request or a run plays the recording of its prompt's kind; a run that asks for an approval waits
 * for the live `POST …/approval` and continues in the recording that got the same choice.
 */
import { randomBytes } from 'node:crypto';
import * as fs from 'node:fs';
import type { ServerResponse } from 'node:http';
import * as os from 'node:os';
import * as path from 'node:path';
import { loadApiLibrary, promptOf, substitute, type ApiLibrary, type Exchange, type SseFrame } from './apiRecordings';
import { isJson, str, type Json } from './gatewayRecordings';

function hex(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Which recorded prompt a live one stands for. */
export function apiKind(prompt: string): string {
  const cmd = /\[terminal cmd=([^\]]+)\]/.exec(prompt)?.[1]?.trim();
  if (cmd !== undefined) {
    return cmd.startsWith('rm -r') ? 'terminal-rm' : 'terminal';
  }
  return ['edit', 'todo', 'slow', 'ratelimit', 'error500', 'plain'].find((m) => new RegExp(`\\[${m}[\\] ]`).test(prompt)) ?? 'plain';
}

function markerArg(prompt: string): string | undefined {
  return /\[(?:terminal cmd|edit path)=([^\]]+)\]/.exec(prompt)?.[1]?.trim();
}

/** Recorded → live: the marker's argument (a path, a command) and fresh call ids. */
function promptPairs(recordedPrompt: string, livePrompt: string, calls: Map<string, string>, recorded: unknown): [string, string][] {
  const pairs: [string, string][] = [];
  const from = markerArg(recordedPrompt);
  const to = markerArg(livePrompt);
  if (from !== undefined && to !== undefined) {
    pairs.push([from, to]);
  }
  for (const id of new Set(JSON.stringify(recorded).match(/call_[0-9a-f]{8}/g) ?? [])) {
    if (!calls.has(id)) {
      calls.set(id, `call_${hex(4)}`);
    }
    pairs.push([id, calls.get(id) ?? id]);
  }
  return pairs;
}

interface Run {
  readonly id: string;
  readonly kind: string;
  readonly input: string;
  readonly sessionId: string;
  /** The recorded run being played (its POST /v1/runs exchange). */
  recorded: Exchange;
  status: 'running' | 'waiting' | 'completed' | 'cancelled' | 'failed';
  approval: ((choice: string) => Exchange | undefined) | undefined;
  stop: (() => void) | undefined;
  readonly calls: Map<string, string>;
}

export class ApiReplay {
  private readonly lib: ApiLibrary = loadApiLibrary();
  private readonly runs = new Map<string, Run>();
  /** Stored session messages (`/api/sessions/{id}/messages`), by session id. */
  private readonly stored = new Map<string, Json[]>();

  constructor(
    private readonly speed: number,
    private readonly onDisconnect: (what: string) => void,
  ) {}

  /** A recorded exchange for this method and path (the first of them), e.g. `GET /health`. */
  recorded(method: string, pathname: string): Exchange | undefined {
    return this.lib.exchanges.find((e) => e.method === method && e.path === pathname && e.status < 400);
  }

  /** The recorded answer to a request with a wrong key (HTTP 401). */
  unauthorized(): Exchange | undefined {
    return this.lib.exchanges.find((e) => e.status === 401);
  }

  sendRecorded(res: ServerResponse, ex: Exchange, body?: unknown, headers: Record<string, string> = {}): void {
    res.writeHead(ex.status, { ...ex.headers, ...headers }).end(JSON.stringify(body ?? ex.body));
  }

  async chat(res: ServerResponse, body: Json, sessionHeader: string | undefined): Promise<void> {
    const prompt = promptOf(body);
    const cut = prompt.includes('[cut]');
    const kind = cut ? 'plain' : apiKind(prompt);
    const stream = body.stream !== false;
    const chats = this.lib.exchanges.filter((e) => e.method === 'POST' && e.path === '/v1/chat/completions' && apiKind(promptOf(e.requestBody)) === kind);
    // The recording whose stored rows were recorded too, when there is one.
    const rowsRecorded = (e: Exchange): boolean => this.lib.exchanges.some((m) => m.path === `/api/sessions/${e.headers['X-Hermes-Session-Id'] ?? ''}/messages`);
    const fits = chats.filter((e) => (e.sse !== undefined) === stream);
    const ex = fits.find(rowsRecorded) ?? fits[0];
    if (ex === undefined) {
      res.writeHead(501).end(`no recorded chat completion of kind ${kind} (stream: ${String(stream)})`);
      return;
    }
    const session = sessionHeader ?? `api-${hex(8)}`;
    const calls = new Map<string, string>();
    const pairs = promptPairs(promptOf(ex.requestBody), prompt, calls, ex);
    this.storeChat(session, ex, prompt, pairs);
    const headers = { ...ex.headers, 'X-Hermes-Session-Id': session };
    if (ex.sse === undefined) {
      res.writeHead(ex.status, headers).end(JSON.stringify(substitute(ex.body, pairs)));
      return;
    }
    res.writeHead(ex.status, headers);
    res.on('close', () => {
      if (!res.writableFinished) {
        this.onDisconnect(`client disconnected during ${kind}`);
      }
    });
    const frames = cut ? ex.sse.slice(0, 2) : ex.sse;
    await this.play(res, substitute(frames, pairs));
    if (cut) {
      res.destroy(); // variant: the recorded stream cut short by the server going away
    } else if (!ex.droppedByClient) {
      res.end();
    }
  }

  /** `/api/sessions/{id}/messages` as recorded: the rows of the live session, or the recorded 404. */
  messages(res: ServerResponse, sessionId: string): void {
    const rows = this.stored.get(sessionId);
    const template = this.lib.exchanges.find((e) => e.path.startsWith('/api/sessions/') && (rows === undefined ? e.status === 404 : e.status === 200));
    if (template === undefined) {
      res.writeHead(500).end('no recorded session messages');
      return;
    }
    this.sendRecorded(res, template, rows === undefined ? template.body : { ...(isJson(template.body) ? template.body : {}), session_id: sessionId, data: rows });
  }

  startRun(res: ServerResponse, body: Json): void {
    const input = promptOf(body);
    const kind = apiKind(input);
    const recorded = this.runsOf(kind)[0];
    if (recorded === undefined) {
      res.writeHead(500).end(`no recorded run of kind ${kind}`);
      return;
    }
    const id = `run_${hex(16)}`;
    const run: Run = { id, kind, input, sessionId: str(body.session_id) || id, recorded, status: 'running', approval: undefined, stop: undefined, calls: new Map() };
    this.runs.set(id, run);
    this.sendRecorded(res, recorded, { ...(isJson(recorded.body) ? recorded.body : {}), run_id: id });
  }

  run(id: string): Run | undefined {
    return this.runs.get(id);
  }

  async events(res: ServerResponse, run: Run): Promise<void> {
    const stream = this.eventsOf(run.recorded);
    if (stream?.sse === undefined) {
      res.writeHead(500).end('no recorded event stream');
      return;
    }
    res.writeHead(stream.status, stream.headers);
    res.on('close', () => run.stop?.());
    let frames = stream.sse;
    for (let i = 0; i < frames.length && !res.destroyed; i++) {
      const frame = frames[i];
      if (frame === undefined) {
        break;
      }
      const stopped = await this.paced(frame.gap, run);
      if (stopped) {
        frames = this.stopTail();
        i = -1;
        run.status = 'cancelled';
        continue;
      }
      const data = isJson(frame.data) ? frame.data : {};
      if (data.event === 'run.cancelled' && run.status !== 'cancelled') {
        // Recorded after the client's stop: the live run streams on until its own stop comes.
        await this.paced(Number.POSITIVE_INFINITY, run);
        run.status = 'cancelled';
      }
      this.write(res, this.liveFrame(run, frame));
      if (data.event === 'approval.request') {
        const branch = await this.approved(run);
        if (branch === undefined) {
          frames = this.stopTail();
          i = -1;
          run.status = 'cancelled';
          continue;
        }
        run.recorded = branch;
        frames = this.eventsOf(branch)?.sse ?? [];
        i = frames.findIndex((f) => isJson(f.data) && f.data.event === 'approval.request');
      } else if (typeof data.event === 'string' && data.event.startsWith('run.')) {
        run.status = data.event === 'run.completed' ? 'completed' : data.event === 'run.cancelled' ? 'cancelled' : 'failed';
      }
    }
    if (run.status === 'running') {
      // A recording the client stopped early ends here; the live run waits for its stop.
      await this.paced(Number.POSITIVE_INFINITY, run);
      run.status = 'cancelled';
      for (const f of this.stopTail()) {
        this.write(res, this.liveFrame(run, f));
      }
    }
    res.end();
  }

  approve(res: ServerResponse, run: Run, choice: string): void {
    const branch = run.approval?.(choice);
    if (branch === undefined) {
      res.writeHead(409, { 'Content-Type': 'application/json' }).end(JSON.stringify({ error: { message: `Run has no pending approval: ${run.id}`, code: 'approval_not_pending' } }));
      return;
    }
    const answer = this.lib.exchanges.find((e) => e.path === `/v1/runs/${isJson(branch.body) ? str(branch.body.run_id) : ''}/approval`);
    if (answer !== undefined) {
      this.sendRecorded(res, answer, { ...(isJson(answer.body) ? answer.body : {}), run_id: run.id, choice });
    }
  }

  stop(res: ServerResponse, run: Run): void {
    const answer = this.lib.exchanges.find((e) => e.path.endsWith('/stop'));
    if (answer !== undefined) {
      this.sendRecorded(res, answer, { ...(isJson(answer.body) ? answer.body : {}), run_id: run.id });
    }
    run.stop?.();
  }

  status(res: ServerResponse, run: Run): void {
    const statuses = this.lib.exchanges.filter((e) => e.method === 'GET' && /^\/v1\/runs\/[^/]+$/.test(e.path));
    const template = statuses.find((e) => isJson(e.body) && e.body.status === run.status) ?? statuses[0];
    if (template !== undefined) {
      this.sendRecorded(res, template, { ...(isJson(template.body) ? template.body : {}), run_id: run.id, session_id: run.sessionId, status: run.status === 'waiting' ? 'running' : run.status });
    }
  }

  private runsOf(kind: string): Exchange[] {
    return this.lib.exchanges.filter((e) => e.method === 'POST' && e.path === '/v1/runs' && apiKind(promptOf(e.requestBody)) === kind);
  }

  private eventsOf(admission: Exchange): Exchange | undefined {
    const runId = isJson(admission.body) ? str(admission.body.run_id) : '';
    return this.lib.exchanges.find((e) => e.path === `/v1/runs/${runId}/events`);
  }

  /** The frames after a recorded `POST …/stop`: `run.cancelled` and the stream's close. */
  private stopTail(): SseFrame[] {
    const slow = this.runsOf('slow')[0];
    const frames = slow !== undefined ? (this.eventsOf(slow)?.sse ?? []) : [];
    const at = frames.findIndex((f) => isJson(f.data) && f.data.event === 'run.cancelled');
    return at >= 0 ? frames.slice(at) : [];
  }

  /** Waits for the live answer to an approval; the recorded run of this kind that got that choice. */
  private approved(run: Run): Promise<Exchange | undefined> {
    run.status = 'waiting';
    return new Promise((resolve) => {
      run.stop = () => resolve(undefined);
      run.approval = (choice) => {
        const allow = choice !== 'deny';
        const branch = this.runsOf(run.kind).find((r) => {
          const answer = this.lib.exchanges.find((e) => e.path === `/v1/runs/${isJson(r.body) ? str(r.body.run_id) : ''}/approval`);
          return isJson(answer?.requestBody) && (answer.requestBody.choice !== 'deny') === allow;
        });
        run.approval = undefined;
        run.status = 'running';
        resolve(branch ?? run.recorded);
        return branch ?? run.recorded;
      };
    });
  }

  /** Sleeps a recorded gap (scaled); true when the run was stopped meanwhile. */
  private paced(gap: number, run: Run): Promise<boolean> {
    const ms = Number.isFinite(gap) ? (Math.min(gap, 2) * 1000) / this.speed : 2 ** 31 - 1;
    return new Promise((resolve) => {
      const timer = setTimeout(() => resolve(false), ms);
      run.stop = () => {
        clearTimeout(timer);
        resolve(true);
      };
    });
  }

  private liveFrame(run: Run, frame: SseFrame): SseFrame {
    const recordedId = isJson(run.recorded.body) ? str(run.recorded.body.run_id) : '';
    const live = substitute(frame, [[recordedId, run.id], ...promptPairs(promptOf(run.recorded.requestBody), run.input, run.calls, frame)]);
    const data = isJson(live.data) ? live.data : {};
    // An `rm -r` the user allowed really removes its (temporary) path, as Hermes did.
    const target = /^rm -r (\S+)$/.exec(markerArg(run.input) ?? '')?.[1];
    if (data.event === 'tool.completed' && data.error === false && target !== undefined && path.resolve(target).startsWith(path.resolve(os.tmpdir()))) {
      fs.rmSync(target, { recursive: true, force: true });
    }
    if (data.event === 'run.completed') {
      this.storeRun(run);
    }
    return live;
  }

  private async play(res: ServerResponse, frames: readonly SseFrame[]): Promise<void> {
    for (const f of frames) {
      const ms = (Math.min(f.gap, 2) * 1000) / this.speed;
      if (ms >= 1) {
        await new Promise((r) => setTimeout(r, ms));
      }
      if (res.destroyed) {
        return;
      }
      this.write(res, f);
    }
  }

  private write(res: ServerResponse, f: SseFrame): void {
    if (res.destroyed || res.writableEnded) {
      return;
    }
    if (f.comment !== undefined) {
      res.write(`: ${f.comment}\n\n`);
      return;
    }
    res.write(`${f.event !== undefined ? `event: ${f.event}\n` : ''}data: ${typeof f.data === 'string' ? f.data : JSON.stringify(f.data)}\n\n`);
  }

  /** The rows Hermes stored for a recorded request, for the live session (the recorded rows after the user's). */
  private storeChat(session: string, ex: Exchange, prompt: string, pairs: readonly (readonly [string, string])[]): void {
    const recordedSession = ex.headers['X-Hermes-Session-Id'] ?? '';
    const rows = this.recordedRows(recordedSession);
    // The rows' own prompt may be another recording's (the stream's call ids stay those of `pairs`).
    const own = promptPairs(str(rows[0]?.content), prompt, new Map(), []);
    this.append(session, prompt, substitute(rows.slice(1), [...own, ...pairs, [recordedSession, session]]), rows[0]);
  }

  private storeRun(run: Run): void {
    const rows = this.recordedRows(str(isJson(run.recorded.requestBody) ? run.recorded.requestBody.session_id : '') || 'lab-run-session-1');
    this.append(run.sessionId, run.input, substitute(rows.slice(1), promptPairs(str(rows[0]?.content), run.input, run.calls, rows)), rows[0]);
  }

  /** The recorded rows of one turn of a session: its user row first. */
  private recordedRows(session: string): Json[] {
    const stored = this.lib.exchanges.filter((e) => e.path.startsWith('/api/sessions/') && e.status === 200);
    // A request whose stored rows were not recorded gets those of a recorded turn without tool calls.
    const ex = stored.find((e) => e.path === `/api/sessions/${session}/messages`) ?? stored.find((e) => !JSON.stringify(e.body).includes('"tool_calls":['));
    const data = isJson(ex?.body) && Array.isArray(ex.body.data) ? ex.body.data.filter(isJson) : [];
    const first = data.findIndex((r) => r.role === 'user');
    const next = data.findIndex((r, i) => i > first && r.role === 'user');
    return data.slice(Math.max(0, first), next > 0 ? next : undefined);
  }

  private append(session: string, prompt: string, rest: readonly Json[], userTemplate: Json | undefined): void {
    const rows = this.stored.get(session) ?? [];
    let id = rows.length;
    const now = Date.now() / 1000;
    for (const r of [{ ...(userTemplate ?? { role: 'user' }), content: prompt }, ...rest]) {
      rows.push({ ...r, id: ++id, session_id: session, timestamp: now });
    }
    this.stored.set(session, rows);
  }
}
