/**
 * The recordings of Hermes v0.19.0's TUI Gateway (test/fixtures/hermes-gateway/, README there) cut
 * into what the replay fake plays back: the frames that answer each client method, and the
 * recorded turns — every frame Hermes sent between a `prompt.submit` and the turn's end, with the
 * client calls the recording waited on in between (`approval.respond`, `clarify.respond`,
 * `sudo.respond`, `secret.respond`, `session.interrupt`). Nothing here is written from a reading
 * of Hermes' source: a frame either was on the wire or is not played.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

export type Json = Record<string, unknown>;

export function isJson(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** A string value, else ''. */
export function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

/** One step of a recorded turn: a frame Hermes sent (`gap`: seconds since the previous step), or a client call it waited for. */
export type Step = { readonly kind: 'out'; readonly frame: Json; readonly gap: number } | { readonly kind: 'in'; readonly frame: Json };

export interface RecordedTurn {
  /** `file:line` of the `prompt.submit`. */
  readonly source: string;
  readonly prompt: string;
  readonly kind: string;
  readonly sessionId: string;
  readonly storedId: string | undefined;
  /** The recorded submit's id: the frame with it is the submit's answer. */
  readonly submitId: unknown;
  readonly steps: readonly Step[];
  /** Tokens this turn added to the session's running total (the recorded totals' difference). */
  readonly usage: { readonly input: number; readonly output: number; readonly calls: number };
  /** Notes recorded right after the turn (outcome checks such as "victim1 exists after 'once': False"). */
  readonly notes: readonly string[];
}

interface Line {
  readonly t: number;
  readonly dir: string;
  readonly client: string;
  readonly frame?: Json;
  readonly note?: string;
  readonly where: string;
}

export const fixtureDir = path.resolve(__dirname, '../../../test/fixtures/hermes-gateway');

function readLines(file: string): Line[] {
  const name = path.basename(file);
  return readFileSync(file, 'utf8')
    .split('\n')
    .map((text, i) => ({ text, i }))
    .filter((x) => x.text.trim() !== '')
    .map(({ text, i }): Line => {
      const rec = JSON.parse(text) as { t: number; dir: string; msg: unknown };
      const where = `${name}:${i + 1}`;
      if (rec.dir === '##') {
        return { t: rec.t, dir: rec.dir, client: '', note: String(rec.msg), where };
      }
      const msg = isJson(rec.msg) ? rec.msg : {};
      // ws-main.jsonl interleaves two connections: {client, frame}.
      const frame = isJson(msg.frame) && typeof msg.client === 'string' ? msg.frame : msg;
      return { t: rec.t, dir: rec.dir, client: typeof msg.client === 'string' ? msg.client : '', frame, where };
    });
}

/** What kind of turn a prompt asks for: the recorded turn of the same kind is played. */
export function turnKind(prompt: string): string {
  const cmd = /\[terminal cmd=([^\]]+)\]/.exec(prompt)?.[1]?.trim();
  if (cmd !== undefined) {
    return cmd.startsWith('rm -r') ? 'terminal-rm' : cmd.startsWith('sudo') ? 'terminal-sudo' : 'terminal';
  }
  for (const marker of ['plain', 'slow', 'ratelimit', 'error500', 'clarify', 'skill']) {
    if (new RegExp(`\\[${marker}[\\] ]`).test(prompt)) {
      return marker;
    }
  }
  return 'plain';
}

function eventType(f: Json | undefined): string | undefined {
  const p = f?.method === 'event' && isJson(f.params) ? f.params : undefined;
  return typeof p?.type === 'string' ? p.type : undefined;
}

function usageOf(f: Json): { input: number; output: number; calls: number } | undefined {
  const p = isJson(f.params) && isJson(f.params.payload) ? f.params.payload : undefined;
  const u = p !== undefined && isJson(p.usage) ? p.usage : undefined;
  return u === undefined ? undefined : { input: Number(u.input ?? 0), output: Number(u.output ?? 0), calls: Number(u.calls ?? 0) };
}

/** The turns of one connection of one recording. */
function turnsOf(lines: readonly Line[], client: string): RecordedTurn[] {
  const turns: RecordedTurn[] = [];
  let last = { input: 0, output: 0, calls: 0 };
  for (let i = 0; i < lines.length; i++) {
    const submit = lines[i];
    if (submit?.dir !== '->' || submit.client !== client || submit.frame?.method !== 'prompt.submit') {
      continue;
    }
    const params = isJson(submit.frame.params) ? submit.frame.params : {};
    const sessionId = str(params.session_id);
    const steps: Step[] = [];
    const notes: string[] = [];
    let prevT = submit.t;
    let answered = false;
    let ended: 'complete' | 'error' | undefined;
    let total = last;
    let j = i + 1;
    for (; j < lines.length; j++) {
      const l = lines[j];
      if (l === undefined) {
        break;
      }
      if (l.note !== undefined) {
        if (ended !== undefined) {
          notes.push(l.note);
        }
        continue;
      }
      if (l.client !== client || l.frame === undefined) {
        continue;
      }
      if (ended !== undefined && (l.dir === '->' || eventType(l.frame) !== 'session.info')) {
        break;
      }
      if (l.dir === '->') {
        if (l.frame.method === 'prompt.submit') {
          break;
        }
        steps.push({ kind: 'in', frame: l.frame });
        continue;
      }
      steps.push({ kind: 'out', frame: l.frame, gap: Math.max(0, l.t - prevT) });
      prevT = l.t;
      answered ||= l.frame.id === submit.frame.id;
      const type = eventType(l.frame);
      if (type === 'message.complete') {
        total = usageOf(l.frame) ?? total;
        ended = 'complete';
      } else if (type === 'error' && answered) {
        ended = 'error';
      } else if (l.frame.id === submit.frame.id && steps.some((s) => s.kind === 'out' && eventType(s.frame) === 'error')) {
        ended = 'error';
      }
    }
    const storedId = lines.map((l) => (isJson(l.frame?.result) && l.frame.result.session_id === sessionId ? l.frame.result.stored_session_id : undefined)).find((v) => typeof v === 'string');
    turns.push({
      source: submit.where,
      prompt: str(params.text),
      kind: turnKind(str(params.text)),
      sessionId,
      storedId: typeof storedId === 'string' ? storedId : undefined,
      submitId: submit.frame.id,
      steps,
      usage: { input: Math.max(0, total.input - last.input), output: Math.max(0, total.output - last.output), calls: Math.max(0, total.calls - last.calls) },
      notes: notes.filter((n) => n.includes(' exists after ')),
    });
    last = total;
  }
  return turns;
}

/** The answer Hermes recorded for a client method: the response frame to the first call of it. */
export interface RecordedAnswer {
  readonly request: Json;
  readonly response: Json;
  /** Events of the same connection that followed within the next second (e.g. `session.info` after `session.create`). */
  readonly after: readonly { readonly frame: Json; readonly gap: number }[];
}

function answersOf(lines: readonly Line[], answers: Map<string, RecordedAnswer[]>): void {
  lines.forEach((l, i) => {
    if (l.dir !== '->' || l.frame === undefined || typeof l.frame.method !== 'string' || l.frame.method === 'prompt.submit') {
      return;
    }
    const respIndex = lines.findIndex((r, k) => k > i && r.dir === '<-' && r.client === l.client && r.frame?.id === l.frame?.id && ('result' in (r.frame ?? {}) || 'error' in (r.frame ?? {})));
    const resp = lines[respIndex];
    if (resp?.frame === undefined) {
      return;
    }
    const after: { frame: Json; gap: number }[] = [];
    let prev = resp.t;
    for (const next of lines.slice(respIndex + 1)) {
      if (next.dir === '->' && next.client === l.client) {
        break;
      }
      if (next.dir === '<-' && next.client === l.client && next.frame !== undefined && eventType(next.frame) !== undefined && next.t - resp.t < 30) {
        after.push({ frame: next.frame, gap: next.t - prev });
        prev = next.t;
      }
    }
    const list = answers.get(l.frame.method) ?? [];
    list.push({ request: l.frame, response: resp.frame, after });
    answers.set(l.frame.method, list);
  });
}

export interface GatewayLibrary {
  /** The first frame of every connection. */
  readonly ready: Json;
  readonly turns: readonly RecordedTurn[];
  /** By method, in recorded order (`session.create` of stdio-main first, then the others). */
  readonly answers: ReadonlyMap<string, readonly RecordedAnswer[]>;
  /** `session.create` and what followed on a HERMES_HOME without a provider (stdio-noprovider.jsonl). */
  readonly noProvider: { readonly create: RecordedAnswer; readonly turn: RecordedTurn };
}

const files = ['stdio-main.jsonl', 'stdio-questions.jsonl', 'ws-main.jsonl', 'stdio-resume.jsonl'];

export function loadGatewayLibrary(dir = fixtureDir): GatewayLibrary {
  const turns: RecordedTurn[] = [];
  const answers = new Map<string, RecordedAnswer[]>();
  let ready: Json | undefined;
  for (const file of files) {
    const lines = readLines(path.join(dir, file));
    ready ??= lines.find((l) => eventType(l.frame) === 'gateway.ready')?.frame;
    for (const client of new Set(lines.filter((l) => l.frame !== undefined).map((l) => l.client))) {
      turns.push(...turnsOf(lines, client));
    }
    answersOf(lines, answers);
  }
  const np = readLines(path.join(dir, 'stdio-noprovider.jsonl'));
  const npAnswers = new Map<string, RecordedAnswer[]>();
  answersOf(np, npAnswers);
  const create = npAnswers.get('session.create')?.[0];
  const turn = turnsOf(np, '')[0];
  if (ready === undefined || create === undefined || turn === undefined) {
    throw new Error(`the gateway recordings in ${dir} lack gateway.ready, or the no-provider session`);
  }
  return { ready, turns, answers, noProvider: { create, turn } };
}
