/**
 * The state of the fake Hermes TUI Gateway: live sessions with durable rows, subscribers (attached
 * clients), running turns and open server→client requests. Built from the wire format in Hermes'
 * `tui_gateway/contracts/*.py` and the programmatic-integration docs (revisions in
 * src/transports/tuiGateway/wire.ts); see fakeTuiGateway.md for the behaviour tests rely on.
 */
import { appendFileSync } from 'node:fs';

export type Frame = Record<string, unknown>;

/** One connected client (a stdio peer or a WebSocket). */
export class FakeConn {
  static nextId = 1;
  readonly id = FakeConn.nextId++;
  /** Declared with `client.capabilities {server_requests: true}` (stdio: implied). */
  serverRequests: boolean;
  closed = false;

  constructor(
    private readonly write: (line: string) => void,
    stdio: boolean,
  ) {
    this.serverRequests = stdio;
  }

  send(frame: Frame): void {
    if (!this.closed) {
      record(this.id, 'out', frame);
      this.write(JSON.stringify(frame));
    }
  }

  /** A line that is not a JSON-RPC frame (garbage on the wire). */
  sendRaw(line: string): void {
    if (!this.closed) {
      this.write(line);
    }
  }
}

export function record(conn: number, dir: 'in' | 'out', frame: unknown): void {
  const file = process.env.FAKE_GATEWAY_RECORD;
  if (file !== undefined && file !== '') {
    appendFileSync(file, `${JSON.stringify({ conn, dir, frame })}\n`);
  }
}

export interface Row {
  row_id: number;
  role: 'user' | 'assistant' | 'tool';
  text: string;
  tool_call_id?: string;
  name?: string;
}

export interface OpenRequest {
  readonly id: string;
  readonly method: string;
  readonly params: Frame;
  readonly targets: Set<FakeConn>;
  /** Batch clarify locks accepted so far (`clarify.lock`). */
  readonly locks: Record<string, unknown>;
  /** First answer wins; every other target is told `request.cancel` with `reason`. */
  settle(answer: Answer, answeredBy?: FakeConn, reason?: string): void;
}

/** What a question got: a result, an error code, or nothing (withdrawn / nobody to ask). */
export type Answer = { readonly result: unknown } | { readonly error: number } | undefined;

export interface Turn {
  aborted: boolean;
  readonly user: string;
  assistant: string;
}

export class FakeSession {
  readonly subscribers = new Set<FakeConn>();
  rows: Row[] = [];
  turn: Turn | undefined;
  readonly queue: string[] = [];
  title = '';
  closed = false;
  readonly startedAt = Date.now() / 1000;

  constructor(
    readonly id: string,
    readonly stored: string,
    readonly model: string,
    readonly provider: string,
  ) {}

  emit(type: string, payload: Frame): void {
    for (const c of this.subscribers) {
      c.send({ jsonrpc: '2.0', method: 'event', params: { type, session_id: this.id, payload } });
    }
  }

  userRows(): Row[] {
    return this.rows.filter((r) => r.role === 'user');
  }

  projected(): Frame[] {
    return this.rows.map((r) => ({ role: r.role, text: r.text, row_id: r.row_id, ...(r.tool_call_id !== undefined ? { tool_call_id: r.tool_call_id, name: r.name } : {}) }));
  }
}

let nextRow = 100;
export function newRowId(): number {
  return nextRow++;
}

/** Server→client requests of every session, by id. */
export const openRequests = new Map<string, OpenRequest & { readonly session: FakeSession }>();
let nextRequest = 1;

/**
 * Sends a question to every attached client that declared server requests; the first answer
 * settles it and the others get `request.cancel {reason: resolved}`. With nobody to ask it fails
 * at once (a WebSocket client that never sent `client.capabilities`).
 */
export function ask(session: FakeSession, method: string, params: Frame): Promise<Answer> {
  const targets = new Set([...session.subscribers].filter((c) => c.serverRequests));
  if (targets.size === 0) {
    return Promise.resolve(undefined);
  }
  const id = `srq-${nextRequest++}`;
  const full = { session_id: session.id, ...params };
  return new Promise<Answer>((resolve) => {
    const req: OpenRequest & { readonly session: FakeSession } = {
      id,
      method,
      params: full,
      targets,
      session,
      locks: {},
      settle: (answer, answeredBy, reason = 'resolved') => {
        if (!openRequests.delete(id)) {
          return;
        }
        for (const c of req.targets) {
          if (c !== answeredBy) {
            c.send({ jsonrpc: '2.0', method: 'event', params: { type: 'request.cancel', session_id: session.id, payload: { id, method, reason } } });
          }
        }
        resolve(answer);
      },
    };
    openRequests.set(id, req);
    for (const c of targets) {
      c.send({ jsonrpc: '2.0', id, method, params: full });
    }
  });
}

/** A response frame from a client to one of our questions. */
export function onAnswer(conn: FakeConn, id: string, frame: Frame): void {
  const req = openRequests.get(id);
  if (!req?.targets.has(conn)) {
    return;
  }
  const err = frame.error as { code?: unknown } | undefined;
  const answer: Answer = err !== undefined ? { error: typeof err.code === 'number' ? err.code : -32603 } : { result: frame.result };
  req.settle(answer, conn);
}

/** The turn was interrupted / the session closed: every open question of the session is withdrawn. */
export function withdrawAll(session: FakeSession, reason: string): void {
  for (const req of [...openRequests.values()]) {
    if (req.session === session) {
      req.settle(undefined, undefined, reason);
    }
  }
}

export function withdraw(id: string, reason: string): void {
  const req = openRequests.get(id);
  if (req !== undefined) {
    req.settle(undefined, undefined, reason);
  }
}
