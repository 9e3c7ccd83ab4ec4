/**
 * The recordings of Hermes v0.19.0's API Server (test/fixtures/hermes-api-server/, README there)
 * as HTTP exchanges the replay fake (fakeApiServer.ts) answers with: the request, the status and
 * headers, and the JSON body or every SSE frame with its recorded gap. A run's event stream and the
 * calls made while it streams (`"stream": "events"` lines) are told apart as the files tell them.
 */
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isJson, str, type Json } from './gatewayRecordings';

export interface SseFrame {
  readonly gap: number;
  readonly event?: string;
  /** Parsed JSON, or the raw string (`[DONE]`). */
  readonly data?: unknown;
  readonly comment?: string;
}

export interface Exchange {
  readonly where: string;
  readonly method: string;
  readonly path: string;
  readonly requestHeaders: Json;
  readonly requestBody: unknown;
  readonly status: number;
  readonly headers: Readonly<Record<string, string>>;
  readonly body?: unknown;
  readonly sse?: readonly SseFrame[];
  /** The client dropped the stream here (the recording's note): a replay holds it open instead of ending it. */
  readonly droppedByClient: boolean;
  /** Notes recorded right after the exchange ("victim-once exists after 'once': False"). */
  readonly notes: readonly string[];
  /** When the request was sent, in seconds since its recording started. */
  readonly t: number;
}

export const apiFixtureDir = path.resolve(__dirname, '../../../test/fixtures/hermes-api-server');

export interface ApiLibrary {
  readonly exchanges: readonly Exchange[];
}

interface Open {
  readonly ex: { -readonly [K in keyof Exchange]: Exchange[K] } & { sse: SseFrame[]; notes: string[] };
  last: number;
}

function parseFile(file: string): Exchange[] {
  const name = path.basename(file);
  const out: Exchange[] = [];
  const open = new Map<string, Open>();
  let lastClosed: Open | undefined;
  readFileSync(file, 'utf8')
    .split('\n')
    .forEach((text, i) => {
      if (text.trim() === '') {
        return;
      }
      const rec = JSON.parse(text) as { t: number; dir: string; msg: unknown };
      if (rec.dir === '##') {
        const note = str(rec.msg);
        if (note.includes('client drops the connection')) {
          const current = [...open.values()].at(-1) ?? lastClosed;
          if (current !== undefined) {
            current.ex.droppedByClient = true;
          }
        } else if (note.includes(' exists after ')) {
          (lastClosed ?? [...open.values()].at(-1))?.ex.notes.push(note);
        }
        return;
      }
      const msg = isJson(rec.msg) ? rec.msg : {};
      const label = str(msg.stream);
      if (rec.dir === '->') {
        const [method = 'GET', p = '/'] = str(msg.http).split(' ');
        const ex = { where: `${name}:${i + 1}`, method, path: p, requestHeaders: isJson(msg.headers) ? msg.headers : {}, requestBody: msg.body, status: 0, headers: {}, sse: [], notes: [], droppedByClient: false, t: rec.t };
        open.set(label, { ex, last: rec.t });
        out.push(ex);
        return;
      }
      const current = open.get(label);
      if (current === undefined) {
        return;
      }
      const gap = Math.max(0, rec.t - current.last);
      current.last = rec.t;
      if (typeof msg.http_status === 'number') {
        current.ex.status = msg.http_status;
        current.ex.headers = Object.fromEntries(Object.entries(isJson(msg.headers) ? msg.headers : {}).map(([k, v]) => [k, str(v)]));
      } else if ('body' in msg) {
        current.ex.body = msg.body;
        lastClosed = current;
        open.delete(label);
      } else if (isJson(msg.sse)) {
        current.ex.sse.push({ gap, ...(typeof msg.sse.event === 'string' ? { event: msg.sse.event } : {}), data: msg.sse.data });
        lastClosed = current;
      } else if (typeof msg.sse_comment === 'string') {
        current.ex.sse.push({ gap, comment: msg.sse_comment });
      }
    });
  return out.map((e): Exchange => {
    const { sse, ...rest } = e;
    return sse !== undefined && sse.length > 0 ? { ...rest, sse } : rest;
  });
}

export function loadApiLibrary(dir = apiFixtureDir): ApiLibrary {
  return { exchanges: ['chat-completions.jsonl', 'runs.jsonl', 'chat-session.jsonl'].flatMap((f) => parseFile(path.join(dir, f))) };
}

/** The last user message of a chat request, or a run's input. */
export function promptOf(body: unknown): string {
  if (!isJson(body)) {
    return '';
  }
  if (typeof body.input === 'string') {
    return body.input;
  }
  const users = Array.isArray(body.messages) ? body.messages.filter((m): m is Json => isJson(m) && m.role === 'user') : [];
  return str(users.at(-1)?.content);
}

/** The recorded frames' paths, keys and run ids in the live request's terms. */
export function substitute<T>(value: T, pairs: readonly (readonly [string, string])[]): T {
  let text = JSON.stringify(value);
  for (const [from, to] of pairs) {
    if (from !== '' && from !== to) {
      text = text.split(from).join(JSON.stringify(to).slice(1, -1));
    }
  }
  return JSON.parse(text) as T;
}
