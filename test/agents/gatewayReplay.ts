/**
 * The replay generation of the fake TUI Gateway (fakeTuiGateway.md, "Hermes v0.19.0, replayed"):
 * every frame it sends was recorded from the real Hermes v0.19.0 (gatewayRecordings.ts), with the
 * live ids and paths put in. A client method is answered with the frame Hermes answered it with; a
 * `prompt.submit` plays the recorded turn of the prompt's kind (gatewayPlayback.ts). As recorded,
 * a turn's events go only to the connection that submitted it, and `session.info` /
 * `gateway.ready` to the connection they belong to.
 */
import { randomBytes } from 'node:crypto';
import { isJson, loadGatewayLibrary, str, turnKind, type GatewayLibrary, type Json, type RecordedAnswer, type RecordedTurn } from './gatewayRecordings';
import { Playback, type LiveCall, type PlaybackHost } from './gatewayPlayback';

export interface ReplayConn {
  readonly id: number;
  send(frame: Json): void;
}

interface LiveSession {
  readonly sid: string;
  readonly stored: string;
  readonly cwd: string;
  readonly owner: ReplayConn;
  readonly totals: { input: number; output: number; calls: number };
  readonly history: { role: 'user' | 'assistant'; text: string }[];
  readonly startedAt: number;
  playback: Playback | undefined;
  readonly queue: { conn: ReplayConn; text: string }[];
  closed: boolean;
}

export interface ReplayOptions {
  /** Recorded gaps are divided by this (FAKE_GATEWAY_SPEED, default 10). */
  readonly speed: number;
  /** `noprovider`: the recorded HERMES_HOME without a provider (stdio-noprovider.jsonl). */
  readonly home: 'ok' | 'noprovider';
  /** The process ends when a turn's prompt holds `[die]` (a variant: the `[slow]` turn cut short). */
  readonly die: (reason: string) => void;
}

export class GatewayReplay implements PlaybackHost {
  private readonly lib: GatewayLibrary = loadGatewayLibrary();
  private readonly sessions = new Map<string, LiveSession>();
  readonly streamingAnswer: Json;
  private readonly queuedAnswer: Json;

  constructor(private readonly options: ReplayOptions) {
    const submits = this.lib.turns.flatMap((t) => t.steps.flatMap((s) => (s.kind === 'out' && s.frame.id === t.submitId && isJson(s.frame.result) ? [s.frame] : [])));
    this.streamingAnswer = submits.find((f) => isJson(f.result) && f.result.status === 'streaming') ?? {};
    this.queuedAnswer = submits.find((f) => isJson(f.result) && f.result.status === 'queued') ?? {};
  }

  get speed(): number {
    return this.options.speed;
  }

  alternatives(kind: string): readonly RecordedTurn[] {
    return this.lib.turns.filter((t) => t.kind === kind);
  }

  interruptTail(): RecordedTurn | undefined {
    return this.lib.turns.find((t) => t.kind === 'slow' && t.steps.some((s) => s.kind === 'in' && s.frame.method === 'session.interrupt'));
  }

  /** The first frame of every connection. */
  ready(conn: ReplayConn): void {
    conn.send(this.lib.ready);
  }

  /** A request from a client: answered now, or by the turn playing when it waits for it. */
  onRequest(conn: ReplayConn, method: string, id: unknown, params: Json): void {
    const key = str(params.session_id);
    const session = this.sessions.get(key) ?? [...this.sessions.values()].find((s) => s.stored === key && !s.closed);
    const call: LiveCall = { method, id, params, reply: (frame) => conn.send(frame) };
    if (method.endsWith('.respond') || method === 'session.interrupt') {
      const target = session ?? [...this.sessions.values()].find((s) => s.playback !== undefined);
      if (target?.playback?.offer(call) === true) {
        if (method === 'session.interrupt') {
          target.queue.length = 0;
        }
        return;
      }
    }
    switch (method) {
      case 'session.create':
        this.create(conn, id, params);
        return;
      case 'prompt.submit':
        this.submit(conn, id, params, session);
        return;
      case 'session.resume':
        this.resume(conn, id, session);
        return;
      default:
        this.answerRecorded(conn, method, id, session);
    }
  }

  /** A client went away: its turns stop (as recorded, a turn's events go to its own connection only). */
  disconnect(conn: ReplayConn): void {
    for (const s of this.sessions.values()) {
      if (s.owner === conn && s.playback !== undefined) {
        s.playback.stop();
      }
    }
  }

  private create(conn: ReplayConn, id: unknown, params: Json): void {
    const recorded = this.options.home === 'noprovider' ? this.lib.noProvider.create : this.answer('session.create');
    const result = isJson(recorded.response.result) ? recorded.response.result : {};
    const sid = randomBytes(4).toString('hex');
    const stored = `${new Date().toISOString().slice(0, 10).replace(/-/g, '')}_000000_${randomBytes(3).toString('hex')}`;
    const cwd = typeof params.cwd === 'string' ? params.cwd : process.cwd();
    const session: LiveSession = { sid, stored, cwd, owner: conn, totals: { input: 0, output: 0, calls: 0 }, history: [], startedAt: Date.now() / 1000, playback: undefined, queue: [], closed: false };
    this.sessions.set(sid, session);
    const subst = this.substituter(String(result.session_id), String(result.stored_session_id), session);
    conn.send({ ...subst(recorded.response), id });
    this.after(conn, recorded, subst);
  }

  /** A stored session in a live session of its own, as recorded in stdio-resume.jsonl (the live id is new; tokens count from 0). */
  private resume(conn: ReplayConn, id: unknown, from: LiveSession | undefined): void {
    if (from === undefined) {
      conn.send({ jsonrpc: '2.0', id, error: { code: 4001, message: 'session not found' } });
      return;
    }
    const recorded = this.answer('session.resume');
    const result = isJson(recorded.response.result) ? recorded.response.result : {};
    const session: LiveSession = { ...from, sid: randomBytes(4).toString('hex'), owner: conn, totals: { input: 0, output: 0, calls: 0 }, history: [...from.history], playback: undefined, queue: [], closed: false };
    this.sessions.set(session.sid, session);
    const subst = this.substituter(String(result.session_id), String(result.resumed), session);
    const live = { ...result, message_count: session.history.length, messages: session.history.map((h) => ({ role: h.role, text: h.text })) };
    conn.send({ ...subst({ ...recorded.response, result: live }), id });
    this.after(conn, recorded, subst);
  }

  private submit(conn: ReplayConn, id: unknown, params: Json, session: LiveSession | undefined): void {
    if (session === undefined || session.closed) {
      conn.send({ jsonrpc: '2.0', id, error: { code: 4001, message: 'session not found' } });
      return;
    }
    const text = typeof params.text === 'string' ? params.text : '';
    if (session.playback !== undefined) {
      session.queue.push({ conn, text });
      conn.send({ ...this.queuedAnswer, id });
      return;
    }
    this.play(session, conn, text, { id, answered: false });
  }

  private play(session: LiveSession, conn: ReplayConn, text: string, submit: { id: unknown; answered: boolean }): void {
    const die = text.includes('[die]');
    const turn = this.options.home === 'noprovider' ? this.lib.noProvider.turn : this.alternatives(die ? 'slow' : turnKind(text))[0];
    if (turn === undefined) {
      conn.send({ jsonrpc: '2.0', id: submit.id, error: { code: -32603, message: `no recorded turn of kind ${turnKind(text)}` } });
      return;
    }
    session.history.push({ role: 'user', text });
    let deltas = 0;
    const send = (frame: Json): void => {
      conn.send(frame);
      const type = frame.method === 'event' && isJson(frame.params) ? frame.params.type : undefined;
      if (die && type === 'message.delta' && ++deltas === 3) {
        this.options.die('the process died in the middle of a [slow] turn ([die], a variant of the recording)');
      }
      if (type === 'message.complete' && isJson(frame.params) && isJson(frame.params.payload) && typeof frame.params.payload.text === 'string') {
        session.history.push({ role: 'assistant', text: frame.params.payload.text });
      }
    };
    const playback = new Playback(this, session, send, turn, text, submit);
    session.playback = playback;
    void playback.done.then(() => {
      session.playback = undefined;
      const next = session.queue.shift();
      if (next !== undefined && !session.closed) {
        this.play(session, next.conn, next.text, { id: undefined, answered: true });
      }
    });
  }

  /** Every other method: the frame Hermes answered it with, with the live ids and the live session's facts. */
  private answerRecorded(conn: ReplayConn, method: string, id: unknown, session: LiveSession | undefined): void {
    const recorded = this.lib.answers.get(method)?.[0];
    if (recorded === undefined) {
      // As recorded for `client.capabilities`: `-32601 "unknown method: …"`.
      conn.send({ jsonrpc: '2.0', id, error: { code: -32601, message: `unknown method: ${method}` } });
      return;
    }
    const params = isJson(recorded.request.params) ? recorded.request.params : {};
    const recordedSid = str(params.session_id);
    if (session === undefined && recordedSid !== '') {
      conn.send({ jsonrpc: '2.0', id, error: { code: 4001, message: 'session not found' } });
      return;
    }
    let result = isJson(recorded.response.result) ? { ...recorded.response.result } : undefined;
    const live = session;
    if (result !== undefined) {
      result = this.liveFacts(method, result, live);
    }
    const subst = live !== undefined ? this.substituter(recordedSid, storedIn(recorded), live) : (f: Json): Json => f;
    conn.send({ ...subst({ ...recorded.response, ...(result !== undefined ? { result } : {}) }), id });
    if (method === 'session.close' && session !== undefined) {
      session.closed = true;
      session.playback?.stop();
    }
    if (live !== undefined && method === 'session.activate') {
      this.after(conn, recorded, subst);
    }
  }

  /** A recorded listing or snapshot, filled with the live sessions' own ids, texts and counts. */
  private liveFacts(method: string, result: Json, session: LiveSession | undefined): Json {
    const messages = (s: LiveSession): Json[] => s.history.map((h) => ({ role: h.role, text: h.text }));
    const template = (list: unknown): Json => (Array.isArray(list) && isJson(list[0]) ? list[0] : {});
    const open = [...this.sessions.values()].filter((s) => !s.closed);
    switch (method) {
      case 'session.list':
        return { ...result, sessions: open.map((s) => ({ ...template(result.sessions), id: s.stored, preview: s.history[0]?.text ?? '', started_at: s.startedAt, message_count: s.history.length })) };
      case 'session.active_list':
        return {
          ...result,
          sessions: open.map((s) => ({ ...template(result.sessions), id: s.sid, session_key: s.stored, preview: s.history[0]?.text ?? '', message_count: s.history.length, status: s.playback !== undefined ? 'working' : 'idle', started_at: s.startedAt, last_active: s.startedAt })),
        };
      case 'session.usage': {
        const t = session?.totals ?? { input: 0, output: 0, calls: 0 };
        return { ...result, input: t.input, output: t.output, prompt: t.input, completion: t.output, total: t.input + t.output, calls: t.calls };
      }
      case 'session.history':
        return session !== undefined ? { ...result, count: session.history.length, messages: messages(session) } : result;
      case 'session.activate':
        return session !== undefined ? { ...result, message_count: session.history.length, messages: messages(session), ...('running' in result ? { running: session.playback !== undefined } : {}) } : result;
      default:
        return result;
    }
  }

  /** The events that followed the recorded answer (`session.info` after `session.create`, the `error` of a home without a provider). */
  private after(conn: ReplayConn, recorded: RecordedAnswer, subst: (f: Json) => Json): void {
    let delay = 0;
    for (const e of recorded.after) {
      delay += (Math.min(e.gap, 2) * 1000) / this.options.speed;
      setTimeout(() => conn.send(subst(e.frame)), delay);
    }
  }

  private answer(method: string): RecordedAnswer {
    const a = this.lib.answers.get(method)?.[0];
    if (a === undefined) {
      throw new Error(`no recorded answer to ${method}`);
    }
    return a;
  }

  private substituter(recordedSid: string, recordedStored: string | undefined, live: LiveSession): (f: Json) => Json {
    return (frame) => {
      let text = JSON.stringify(frame);
      const pairs: [string, string][] = [['<WS>', live.cwd]];
      if (recordedSid !== '') {
        pairs.push([recordedSid, live.sid]);
      }
      if (recordedStored !== undefined && recordedStored !== '') {
        pairs.push([recordedStored, live.stored]);
      }
      for (const [from, to] of pairs) {
        text = text.split(from).join(JSON.stringify(to).slice(1, -1));
      }
      return JSON.parse(text) as Json;
    };
  }
}

function storedIn(recorded: RecordedAnswer): string | undefined {
  const r = isJson(recorded.response.result) ? recorded.response.result : {};
  const v = r.stored_session_id ?? r.session_key ?? r.resumed;
  return typeof v === 'string' ? v : undefined;
}
