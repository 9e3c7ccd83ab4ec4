/**
 * The fake TUI Gateway's client→server methods. Errors use the gateway's codes (wire.ts
 * `GatewayCode`): -32601 unknown method, -32602 bad params / model mismatch, 4004 / 4009 / 4018 /
 * 4029 / 4030 / 4033 for truncating submits.
 */
import { runTurn } from './fakeTuiGatewayScenarios';
import { FakeSession, newRowId, openRequests, record, withdrawAll, type FakeConn, type Frame } from './fakeTuiGatewayState';

export class RpcFailure extends Error {
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }
}

const sessions = new Map<string, FakeSession>();
let nextSession = 1;
const serverRequestMethods = ['approval', 'clarify', 'sudo', 'secret', 'vault.unlock_prompt', 'vault.code', 'connection', 'preview.act'];

function str(p: Frame, k: string): string | undefined {
  return typeof p[k] === 'string' ? p[k] : undefined;
}

function live(p: Frame): FakeSession {
  const id = str(p, 'session_id') ?? '';
  const s = sessions.get(id) ?? [...sessions.values()].find((x) => x.stored === id);
  if (s === undefined || s.closed) {
    throw new RpcFailure(-32602, `unknown session ${id}`);
  }
  return s;
}

function snapshot(s: FakeSession): Frame {
  const turn = s.turn;
  return {
    session_id: s.id,
    stored_session_id: s.stored,
    message_count: s.rows.length,
    messages: s.projected(),
    info: { model: s.model, provider: s.provider, title: s.title, running: turn !== undefined },
    running: turn !== undefined,
    ...(turn !== undefined ? { inflight: { user: turn.user, assistant: turn.assistant, streaming: true } } : {}),
    open_requests: [...openRequests.values()].filter((r) => r.session === s).map((r) => ({ id: r.id, method: r.method, params: r.params })),
  };
}

/** Starts a turn now; the next queued prompt follows when it ends. */
function startTurn(s: FakeSession, text: string): void {
  s.turn = { aborted: false, user: text, assistant: '' };
  s.emit('message.start', { input: { role: 'user', text } });
  const toolRows = s.rows.length;
  void runTurn(s, text).then(({ text: reply, status, error }) => {
    // The running turn is `inflight` until it ends; then its rows join the history (docs).
    s.rows.splice(toolRows, 0, { row_id: newRowId(), role: 'user', text });
    s.rows.push({ row_id: newRowId(), role: 'assistant', text: reply });
    s.turn = undefined;
    s.emit('message.complete', { text: reply, status, ...(error !== undefined ? { error } : {}), usage: { input: 10, output: 5, total: 15, context_used: 1200, context_max: 128000 } });
    const next = s.queue.shift();
    if (next !== undefined) {
      startTurn(s, next);
    }
  });
}

/** Truncating submit (docs "Rewinding history on prompt.submit"); returns the survivors' new row ids. */
function truncate(s: FakeSession, p: Frame): number[] {
  const hasRow = p.truncate_before_row_id !== undefined;
  const hasOrdinal = p.truncate_before_user_ordinal !== undefined;
  if (p.confirm_truncate !== true) {
    throw new RpcFailure(4004, 'truncation needs confirm_truncate');
  }
  if (!hasRow && !hasOrdinal) {
    throw new RpcFailure(4004, 'confirm_truncate without a target');
  }
  if (typeof p.truncate_before_user_ordinal === 'boolean') {
    throw new RpcFailure(4004, 'truncate_before_user_ordinal must be an integer');
  }
  if (s.turn !== undefined) {
    throw new RpcFailure(4009, 'session busy');
  }
  const users = s.userRows();
  let index: number;
  if (hasRow) {
    index = users.findIndex((r) => r.row_id === p.truncate_before_row_id);
    if (index < 0) {
      throw new RpcFailure(4018, `unknown or stale row id ${String(p.truncate_before_row_id)}`);
    }
    if (hasOrdinal && p.truncate_before_user_ordinal !== index) {
      throw new RpcFailure(4030, 'truncate_before_user_ordinal and truncate_before_row_id disagree');
    }
  } else {
    index = Number(p.truncate_before_user_ordinal);
    if (!Number.isInteger(index) || index < 0 || index >= users.length) {
      throw new RpcFailure(4004, `no user turn ${String(p.truncate_before_user_ordinal)}`);
    }
  }
  if (index === 0 && p.confirm_empty_truncate !== true) {
    throw new RpcFailure(4029, 'the cut would leave nothing: send confirm_empty_truncate');
  }
  const target = users[index];
  const cutAt = target === undefined ? s.rows.length : s.rows.indexOf(target);
  const archivedUserTurns = users.length - index;
  if (archivedUserTurns > 1 && p.confirm_deep_truncate !== true && process.env.FAKE_GATEWAY_DEEP !== 'log') {
    throw new RpcFailure(4033, 'truncation would archive later user turns', { archived_messages: s.rows.length - cutAt, archived_user_turns: archivedUserTurns });
  }
  // The kept prefix is re-inserted as new rows: every cached id is stale afterwards.
  s.rows = s.rows.slice(0, cutAt).map((r) => ({ ...r, row_id: newRowId() }));
  return s.userRows().map((r) => r.row_id);
}

export function handle(conn: FakeConn, method: string, p: Frame): unknown {
  switch (method) {
    case 'client.capabilities':
      conn.serverRequests = p.server_requests === true;
      return { server_requests: serverRequestMethods };
    case 'gateway.capabilities':
      return { per_session_exclusive_submit: true };
    case 'ping':
      return { pong: true };
    case 'session.create': {
      const model = str(p, 'model') ?? 'hermes-default';
      const provider = str(p, 'provider') ?? 'nous';
      if (provider === 'anthropic' && model.startsWith('gpt-')) {
        const suggestions = ['claude-opus-4.7', 'claude-sonnet-4.6', 'claude-haiku-4.5', 'claude-opus-4.1', 'claude-sonnet-4.5'];
        throw new RpcFailure(-32602, `${model} is not served by ${provider}; try ${suggestions.join(', ')}`, { model, provider, suggestions });
      }
      const n = nextSession++;
      const s = new FakeSession(`rt-${n}`, `st-${n}`, model, provider);
      sessions.set(s.id, s);
      s.subscribers.add(conn);
      return { session_id: s.id, stored_session_id: s.stored, message_count: 0, messages: [], info: { model, provider, title: '', running: false } };
    }
    case 'session.resume':
    case 'session.activate': {
      const s = live(p);
      s.subscribers.add(conn);
      return snapshot(s);
    }
    case 'session.active_list':
      return {
        sessions: [...sessions.values()]
          .filter((s) => !s.closed)
          .map((s) => ({ current: false, id: s.id, last_active: s.startedAt, message_count: s.rows.length, model: s.model, preview: s.userRows()[0]?.text ?? '', session_key: s.stored, started_at: s.startedAt, status: s.turn !== undefined ? 'working' : 'idle', title: s.title })),
      };
    case 'session.list':
      return { sessions: [...sessions.values()].map((s) => ({ id: s.stored, title: s.title, preview: s.userRows()[0]?.text ?? '', started_at: s.startedAt, message_count: s.rows.length, source: 'tui' })) };
    case 'session.history': {
      const s = live(p);
      return { count: s.rows.length, messages: s.projected() };
    }
    case 'session.interrupt': {
      const s = live(p);
      if (s.turn === undefined) {
        return { status: 'not_interrupted' };
      }
      s.turn.aborted = true;
      withdrawAll(s, 'interrupted');
      return { status: 'interrupted', interrupted: true };
    }
    case 'session.close': {
      const s = live(p);
      withdrawAll(s, 'session_closed');
      s.closed = true;
      s.subscribers.clear();
      return { closed: true };
    }
    case 'session.branch': {
      const src = live(p);
      const n = nextSession++;
      const s = new FakeSession(`rt-${n}`, `st-${n}`, src.model, src.provider);
      s.rows = src.rows.map((r) => ({ ...r, row_id: newRowId() }));
      sessions.set(s.id, s);
      s.subscribers.add(conn);
      return { session_id: s.id, stored_session_id: s.stored, title: '', parent: src.stored, message_count: s.rows.length, messages: s.projected(), info: { model: s.model, provider: s.provider } };
    }
    case 'prompt.submit': {
      const s = live(p);
      const text = str(p, 'text');
      if (text === undefined) {
        throw new RpcFailure(-32602, 'text is required');
      }
      const truncating = ['truncate_before_row_id', 'truncate_before_user_ordinal', 'confirm_truncate'].some((k) => p[k] !== undefined);
      if (truncating) {
        const survivors = truncate(s, p);
        startTurn(s, text);
        return { status: 'streaming', survivor_user_row_ids: survivors };
      }
      if (s.turn !== undefined) {
        s.queue.push(text);
        return { status: 'queued' };
      }
      startTurn(s, text);
      return { status: 'streaming' };
    }
    case 'clarify.lock': {
      const req = openRequests.get(str(p, 'request_id') ?? '');
      if (req === undefined) {
        return { status: 'expired' };
      }
      req.locks[str(p, 'question_id') ?? ''] = p.answer ?? null;
      const questions = Array.isArray(req.params.questions) ? (req.params.questions as Frame[]) : [];
      const remaining = questions.map((q) => String(q.qid)).filter((q) => !(q in req.locks));
      if (remaining.length === 0) {
        req.settle({ result: { answers: { ...req.locks } } });
      }
      return { status: 'ok', remaining };
    }
    case 'request.answer': {
      const req = openRequests.get(str(p, 'id') ?? '');
      if (req === undefined) {
        return { status: 'expired' };
      }
      req.settle({ result: p.result });
      return { status: 'ok' };
    }
    case 'command.dispatch':
      return { output: `ran ${str(p, 'command') ?? ''}` };
    default:
      throw new RpcFailure(-32601, `method not found: ${method}`);
  }
}

/** A client went away: it is no longer a subscriber nor a target; its open questions wait for others. */
export function disconnect(conn: FakeConn): void {
  conn.closed = true;
  for (const s of sessions.values()) {
    s.subscribers.delete(conn);
  }
  for (const r of openRequests.values()) {
    r.targets.delete(conn);
  }
  record(conn.id, 'in', { closed: true });
}
