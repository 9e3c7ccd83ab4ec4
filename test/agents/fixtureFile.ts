/**
 * Reads the two recorded-transcript formats into one list of entries:
 * - Hermes (`shared/fixtures/hermes/README.md`): `{"t": 1.2, "dir": "->"|"<-"|"##", "msg": …}`,
 *   where a `##` note carries its text in `msg`;
 * - other agents (`shared/fixtures/agents/README.md`): `{"ts": "1.200", "dir":
 *   "client->agent"|"agent->client"|"note", "msg"|"note": …}`.
 * Each frame keeps the raw text of its `msg`, so replays are byte-faithful.
 */
import { readFileSync } from 'node:fs';
import { rawMember } from './rawJson';

export type FrameKind = 'request' | 'notification' | 'response';

export interface FrameEntry {
  readonly type: 'frame';
  readonly line: number;
  /** Seconds since the recording started, when known. */
  readonly time: number | undefined;
  readonly from: 'client' | 'agent';
  readonly kind: FrameKind;
  readonly method: string | undefined;
  /** The recorded JSON-RPC id (number, string or null), or undefined for notifications. */
  readonly id: unknown;
  /** The message exactly as recorded. */
  readonly raw: string;
}

export interface NoteEntry {
  readonly type: 'note';
  readonly line: number;
  readonly time: number | undefined;
  readonly text: string;
}

export type FixtureEntry = FrameEntry | NoteEntry;

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function timeOf(rec: Record<string, unknown>): number | undefined {
  const t = rec.t ?? rec.ts;
  const n = typeof t === 'number' ? t : typeof t === 'string' ? Number.parseFloat(t) : Number.NaN;
  return Number.isFinite(n) ? n : undefined;
}

export function classify(msg: Record<string, unknown>): FrameKind {
  if (typeof msg.method === 'string') {
    return 'id' in msg ? 'request' : 'notification';
  }
  return 'response';
}

export function parseFixture(text: string): FixtureEntry[] {
  const entries: FixtureEntry[] = [];
  const lines = text.split('\n');
  for (const [index, lineText] of lines.entries()) {
    const line = index + 1;
    if (lineText.trim() === '') {
      continue;
    }
    const rec: unknown = JSON.parse(lineText);
    if (!isRecord(rec) || typeof rec.dir !== 'string') {
      throw new SyntaxError(`line ${line}: not a fixture entry`);
    }
    const time = timeOf(rec);
    const dir = rec.dir;
    if (dir === '##' || dir === 'note') {
      const note = dir === '##' ? rec.msg : rec.note;
      const extra = dir === 'note' ? Object.entries(rec).filter(([k]) => !['ts', 'dir', 'note'].includes(k)) : [];
      const suffix = extra.length > 0 ? ` ${JSON.stringify(Object.fromEntries(extra))}` : '';
      entries.push({ type: 'note', line, time, text: `${typeof note === 'string' ? note : JSON.stringify(note)}${suffix}` });
      continue;
    }
    const from = dir === '->' || dir === 'client->agent' ? 'client' : dir === '<-' || dir === 'agent->client' ? 'agent' : undefined;
    const raw = rawMember(lineText, 'msg');
    const msg: unknown = raw === undefined ? undefined : JSON.parse(raw);
    if (from === undefined || raw === undefined || !isRecord(msg)) {
      throw new SyntaxError(`line ${line}: unknown direction ${dir} or missing msg`);
    }
    entries.push({
      type: 'frame',
      line,
      time,
      from,
      kind: classify(msg),
      method: typeof msg.method === 'string' ? msg.method : undefined,
      id: msg.id,
      raw,
    });
  }
  return entries;
}

/**
 * Splits a recording into agent-process segments at `spawned agent…` / `…exited` notes
 * (claude-main and codex-main restart the agent for `session/load`). A file without such notes is
 * one segment.
 */
export function splitSegments(entries: readonly FixtureEntry[]): FixtureEntry[][] {
  const segments: FixtureEntry[][] = [];
  let current: FixtureEntry[] = [];
  const hasFrames = (seg: FixtureEntry[]): boolean => seg.some((e) => e.type === 'frame');
  for (const e of entries) {
    if (e.type === 'note' && e.text.startsWith('spawned agent') && hasFrames(current)) {
      segments.push(current);
      current = [];
    }
    current.push(e);
    if (e.type === 'note' && /^agent(#\d+)? exited/.test(e.text)) {
      segments.push(current);
      current = [];
    }
  }
  if (hasFrames(current) || segments.length === 0) {
    segments.push(current);
  } else if (current.length > 0) {
    // Trailing notes (e.g. "summary") belong to the last segment.
    segments[segments.length - 1]?.push(...current);
  }
  return segments;
}

export function readFixture(path: string): FixtureEntry[] {
  return parseFixture(readFileSync(path, 'utf8'));
}

function isClientRequest(e: FixtureEntry): boolean {
  return e.type === 'frame' && e.from === 'client' && e.kind === 'request';
}

/** From `from`: the index just past the agent's answer to client request `request`, and past what it sent before the client's next request. */
function exchangeEnd(entries: readonly FixtureEntry[], request: FrameEntry, from: number): number {
  const key = JSON.stringify(request.id);
  let i = from;
  while (i < entries.length) {
    const e = entries[i];
    i++;
    if (e?.type === 'frame' && e.from === 'agent' && e.kind === 'response' && JSON.stringify(e.id) === key) {
      break;
    }
  }
  for (let next = entries[i]; next !== undefined && !isClientRequest(next); next = entries[i]) {
    i++;
  }
  return i;
}

/**
 * One turn of a long recording, for a client that sends `initialize`, `session/new` and a single
 * prompt (hermes-acp-run): the setup (up to `session/new`'s answer and what the agent sent after
 * it) plus the exchange of the `n`-th `session/prompt` (1-based; its updates, permission requests
 * and answers, and what the agent sent after answering). Undefined when the recording has no such prompt.
 */
export function selectPrompt(entries: readonly FixtureEntry[], n: number): FixtureEntry[] | undefined {
  const frames = entries.map((e, i) => ({ e, i })).filter((x): x is { e: FrameEntry; i: number } => isClientRequest(x.e));
  const newSession = frames.find((x) => x.e.method === 'session/new');
  const prompt = frames.filter((x) => x.e.method === 'session/prompt')[n - 1];
  if (newSession === undefined || prompt === undefined) {
    return undefined;
  }
  const setupEnd = exchangeEnd(entries, newSession.e, newSession.i + 1);
  return [...entries.slice(0, setupEnd), ...entries.slice(prompt.i, exchangeEnd(entries, prompt.e, prompt.i + 1))];
}
