/**
 * One recorded turn played back to a live client (gatewayReplay.ts): the recorded frames in order,
 * paced by the recorded gaps divided by the speed, with the recording's ids and paths replaced by
 * the live ones. Where the recording waited for a client call (an `approval.respond`, a
 * `clarify.respond`, a `session.interrupt`) playback waits for the live one; when the live call
 * differs (the other choice, an interrupt), playback continues in the recorded turn of the same kind
 * in which Hermes got that call — so every frame sent is one Hermes sent for that call.
 */
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { isJson, str, type Json, type RecordedTurn, type Step } from './gatewayRecordings';

export interface LiveCall {
  readonly method: string;
  readonly id: unknown;
  readonly params: Json;
  /** Where its answer goes: the connection that made the call (another client may answer an approval). */
  readonly reply: (frame: Json) => void;
}

export interface PlaybackHost {
  readonly speed: number;
  /** Recorded turns of a kind, the one being played first. */
  alternatives(kind: string): readonly RecordedTurn[];
  /** The recorded turn whose interrupt tail is played when the turn's kind has none (the `[slow]` one). */
  interruptTail(): RecordedTurn | undefined;
  /** `{"status": "streaming"}` as recorded, for a turn that was queued when recorded but starts at once live. */
  readonly streamingAnswer: Json;
}

export interface LiveSessionView {
  readonly sid: string;
  readonly stored: string;
  readonly cwd: string;
  readonly totals: { input: number; output: number; calls: number };
}

const placeholders = (cwd: string): [string, string][] => {
  const base = path.join(os.tmpdir(), 'fake-hermes');
  return [
    ['<WS>', cwd],
    ['<HOME>', path.join(base, 'home')],
    ['<LAB>', path.join(base, 'lab')],
    ['<RUN>', path.join(base, 'run')],
    ['<USERHOME>', path.join(base, 'user')],
  ];
};

function hex(n: number): string {
  return Array.from({ length: n }, () => Math.floor(Math.random() * 16).toString(16)).join('');
}

function eventType(f: Json): string | undefined {
  return f.method === 'event' && isJson(f.params) && typeof f.params.type === 'string' ? f.params.type : undefined;
}

function payloadOf(f: Json): Json {
  return isJson(f.params) && isJson(f.params.payload) ? f.params.payload : {};
}

export class Playback {
  private turn: RecordedTurn;
  private index = 0;
  /** Recorded id of a client call → the live call's id (its recorded answer goes out with it). */
  private readonly liveIds = new Map<string, LiveCall>();
  /** Fresh ids for the recording's call ids / request ids, by order of first appearance. */
  private readonly freshCalls: string[] = [];
  private readonly freshRequests: string[] = [];
  private waiting: ((call: LiveCall) => void) | undefined;
  private readonly inbox: LiveCall[] = [];
  private interrupt: LiveCall | undefined;
  private partial = '';
  private clarifyAnswer: string | undefined;
  private stopped = false;
  readonly done: Promise<void>;

  constructor(
    private readonly host: PlaybackHost,
    private readonly session: LiveSessionView,
    private readonly send: (frame: Json) => void,
    turn: RecordedTurn,
    private readonly livePrompt: string,
    private readonly submit: { readonly id: unknown; answered: boolean },
  ) {
    this.turn = turn;
    this.done = this.run();
  }

  /** A live client call of this session while the turn runs; false when the turn does not wait for it. */
  offer(call: LiveCall): boolean {
    if (call.method === 'session.interrupt') {
      this.interrupt ??= call;
      this.wake();
      return true;
    }
    // Only at a recorded wait, and only a call the recordings of this kind answered there.
    const step = this.turn.steps[this.index];
    if (step?.kind !== 'in' || ![this.turn, ...this.host.alternatives(this.turn.kind)].some((t) => t.steps.some((s) => s.kind === 'in' && s.frame.method === call.method))) {
      return false;
    }
    this.inbox.push(call);
    this.wake();
    return true;
  }

  stop(): void {
    this.stopped = true;
    this.wake();
  }

  private wake(): void {
    const w = this.waiting;
    this.waiting = undefined;
    w?.({ method: '', id: undefined, params: {}, reply: () => undefined });
  }

  private async run(): Promise<void> {
    while (this.index < this.turn.steps.length && !this.stopped) {
      if (this.interrupt !== undefined && this.jumpToInterrupt()) {
        continue;
      }
      const step = this.turn.steps[this.index];
      if (step === undefined) {
        break;
      }
      if (step.kind === 'out') {
        await this.pause(step.gap);
        if (this.interrupt !== undefined && this.jumpToInterrupt()) {
          continue;
        }
        this.index++;
        this.emit(step.frame);
        continue;
      }
      const call = await this.next();
      if (call === undefined) {
        continue; // woken by an interrupt or a stop
      }
      this.follow(step, call);
    }
  }

  /** The next live call, or undefined when woken for an interrupt / stop. */
  private async next(): Promise<LiveCall | undefined> {
    const queued = this.inbox.shift();
    if (queued !== undefined) {
      return queued;
    }
    const woken = await new Promise<LiveCall>((resolve) => (this.waiting = resolve));
    return woken.method === '' ? this.inbox.shift() : woken;
  }

  /** The live call at a recorded wait: the same call goes on; another continues where the recording got that one. */
  private follow(step: Extract<Step, { kind: 'in' }>, call: LiveCall): void {
    const wanted = (s: Step): boolean =>
      s.kind === 'in' && s.frame.method === call.method && (call.method !== 'approval.respond' || sameChoice(s.frame, call.params));
    if (!wanted(step)) {
      const questionAt = this.turn.steps.slice(0, this.index).filter((s) => s.kind === 'out' && (eventType(s.frame) ?? '').endsWith(".request")).length;
      const alt = this.host.alternatives(this.turn.kind).find((t) => t.steps.some(wanted));
      const at = alt?.steps.findIndex((s, i) => wanted(s) && alt.steps.slice(0, i).filter((x) => x.kind === 'out' && (eventType(x.frame) ?? '').endsWith(".request")).length === questionAt);
      // Nothing recorded for exactly this call here: it stands for the recorded one.
      if (alt !== undefined && at !== undefined && at >= 0) {
        this.turn = alt;
        this.index = at;
      }
    }
    const recorded = this.turn.steps[this.index];
    if (recorded?.kind === 'in') {
      this.liveIds.set(JSON.stringify(recorded.frame.id), call);
    }
    if (call.method === 'clarify.respond') {
      this.clarifyAnswer = typeof call.params.answer === 'string' ? call.params.answer : '';
    }
    this.index++;
  }

  /** Continues in the recorded turn of this kind that was interrupted, else with the `[slow]` turn's interrupt tail. */
  private jumpToInterrupt(): boolean {
    const call = this.interrupt;
    if (call === undefined) {
      return false;
    }
    this.interrupt = undefined;
    const isInterrupt = (s: Step): boolean => s.kind === 'in' && s.frame.method === 'session.interrupt';
    const current = this.turn.steps.findIndex((s, i) => i >= this.index && isInterrupt(s));
    const waitingAtQuestion = this.turn.steps[this.index]?.kind === 'in';
    const same = waitingAtQuestion ? this.host.alternatives(this.turn.kind).find((t) => t.steps.some(isInterrupt)) : undefined;
    const tail = current >= 0 ? this.turn : (same ?? this.host.interruptTail());
    const at = tail?.steps.findIndex(isInterrupt) ?? -1;
    if (tail === undefined || at < 0) {
      return false;
    }
    this.turn = tail;
    this.index = current >= 0 ? current : at;
    const step = this.turn.steps[this.index];
    if (step?.kind === 'in') {
      this.liveIds.set(JSON.stringify(step.frame.id), call);
    }
    this.index++;
    return true;
  }

  private pause(gap: number): Promise<void> {
    const ms = (Math.min(gap, 2) * 1000) / this.host.speed;
    return ms < 1 ? Promise.resolve() : new Promise((resolve) => setTimeout(resolve, ms));
  }

  private emit(recorded: Json): void {
    let frame = this.substitute(recorded);
    if (frame.id !== undefined && frame.method === undefined) {
      const key = JSON.stringify(recorded.id);
      if (recorded.id === this.turn.submitId) {
        if (this.submit.answered) {
          return;
        }
        this.submit.answered = true;
        const status = isJson(frame.result) ? frame.result.status : undefined;
        frame = { ...(status === 'queued' ? this.host.streamingAnswer : frame), id: this.submit.id };
      } else {
        const call = this.liveIds.get(key);
        // The answer to a call the live client did not make is not sent.
        call?.reply({ ...frame, id: call.id });
        return;
      }
    }
    const type = eventType(frame);
    if (type === 'message.delta') {
      this.partial += str(payloadOf(frame).text);
    } else if (type === 'message.complete') {
      frame = this.completed(frame);
    } else if (type === 'tool.complete') {
      frame = this.toolCompleted(frame);
    }
    this.send(frame);
  }

  /** The live session's running token total, and after an interrupt the text streamed so far. */
  private completed(frame: Json): Json {
    const p = payloadOf(frame);
    const t = this.session.totals;
    t.input += this.turn.usage.input;
    t.output += this.turn.usage.output;
    t.calls += this.turn.usage.calls;
    const usage = isJson(p.usage) ? { ...p.usage, input: t.input, output: t.output, prompt: t.input, completion: t.output, total: t.input + t.output, calls: t.calls } : p.usage;
    const text = p.status === 'interrupted' && this.partial !== '' ? this.partial : p.text;
    return withPayload(frame, { ...p, text, usage });
  }

  /** The live clarify answer in its result; an `rm -r` the user allowed really removes its (temporary) path, as Hermes did. */
  private toolCompleted(frame: Json): Json {
    const p = payloadOf(frame);
    const result = isJson(p.result) ? p.result : {};
    if (p.name === 'clarify' && this.clarifyAnswer !== undefined) {
      return withPayload(frame, { ...p, result: { ...result, user_response: this.clarifyAnswer } });
    }
    const command = isJson(p.args) && typeof p.args.command === 'string' ? p.args.command : '';
    const target = /^rm -r (\S+)$/.exec(command)?.[1];
    if (p.name === 'terminal' && target !== undefined && (result.error === null || result.error === '') && result.exit_code === 0) {
      const resolved = path.resolve(target);
      if (resolved.startsWith(path.resolve(os.tmpdir())) || resolved.startsWith(path.resolve(this.session.cwd))) {
        fs.rmSync(resolved, { recursive: true, force: true });
      }
    }
    return frame;
  }

  /** The recording's ids and paths as the live session has them. */
  private substitute(recorded: Json): Json {
    let text = JSON.stringify(recorded);
    const pairs: [string, string][] = [[this.turn.sessionId, this.session.sid], ...placeholders(this.session.cwd)];
    if (this.turn.storedId !== undefined) {
      pairs.push([this.turn.storedId, this.session.stored]);
    }
    const recordedCmd = /\[terminal cmd=([^\]]+)\]/.exec(this.turn.prompt)?.[1]?.trim();
    const liveCmd = /\[terminal cmd=([^\]]+)\]/.exec(this.livePrompt)?.[1]?.trim();
    if (recordedCmd !== undefined && liveCmd !== undefined && recordedCmd !== liveCmd) {
      pairs.unshift([recordedCmd, liveCmd]);
    }
    for (const [from, to] of pairs) {
      text = text.split(from).join(JSON.stringify(to).slice(1, -1));
    }
    text = text.replace(/call_[0-9a-f]{8}/g, (id) => this.fresh(this.freshCalls, this.callOrder(), id, () => `call_${hex(8)}`));
    text = text.replace(/"request_id":"([0-9a-f]{8})"/g, (_m, id: string) => `"request_id":"${this.fresh(this.freshRequests, this.requestOrder(), id, () => hex(8))}"`);
    return JSON.parse(text) as Json;
  }

  private fresh(pool: string[], order: readonly string[], recordedId: string, make: () => string): string {
    const i = order.indexOf(recordedId);
    if (i < 0) {
      return recordedId;
    }
    while (pool.length <= i) {
      pool.push(make());
    }
    return pool[i] ?? recordedId;
  }

  private callOrder(): string[] {
    return [...new Set(JSON.stringify(this.turn.steps).match(/call_[0-9a-f]{8}/g) ?? [])];
  }

  private requestOrder(): string[] {
    return [...new Set([...JSON.stringify(this.turn.steps).matchAll(/"request_id":"([0-9a-f]{8})"/g)].map((m) => m[1] ?? ''))];
  }
}

function sameChoice(recorded: Json, live: Json): boolean {
  const r = isJson(recorded.params) ? recorded.params.choice : undefined;
  // `session` and `always` allow the command as `once` does; only the remembered scope differs.
  const norm = (c: unknown): string => (c === 'deny' ? 'deny' : 'allow');
  return norm(r) === norm(live.choice);
}

function withPayload(frame: Json, payload: Json): Json {
  const params = isJson(frame.params) ? frame.params : {};
  return { ...frame, params: { ...params, payload } };
}
