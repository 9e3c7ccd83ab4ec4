import type * as acp from '@agentclientprotocol/sdk';
import type { AgentConnection } from '../agentPort/agentConnection';
import { describeError } from '../agentPort/agentErrors';
import type { SessionRecord, SessionRecords } from './sessionRecords';

/** `--continue`, `--resume ID|NAME`, or neither (a fresh session, as every run did before). */
export type SessionRequest = { readonly kind: 'continue' } | { readonly kind: 'resume'; readonly target: string };

/** How the session of a run is opened. */
export type SessionOpening =
  | { readonly kind: 'new' }
  | { readonly kind: 'resume'; readonly sessionId: string; readonly how: 'resume' | 'load'; readonly record?: SessionRecord };

/** At most this many `session/list` pages are read when looking for a session (Hermes pages by 50). */
const maxListPages = 20;

/** Which of `session/resume` (no replay) and `session/load` (replays history) the agent offers; resume first. */
export function resumeMethod(init: acp.InitializeResponse | undefined): 'resume' | 'load' | undefined {
  const caps = init?.agentCapabilities;
  const resume = caps?.sessionCapabilities?.resume;
  if (resume !== undefined && resume !== null) {
    return 'resume';
  }
  return caps?.loadSession === true ? 'load' : undefined;
}

export function listsSessions(init: acp.InitializeResponse | undefined): boolean {
  const list = init?.agentCapabilities?.sessionCapabilities?.list;
  return list !== undefined && list !== null;
}

/**
 * The agent's own sessions for `cwd` (`session/list`, paged), or `undefined` when it does not
 * list sessions or the list failed (then nothing can be said about what it still knows).
 */
export async function agentSessions(connection: AgentConnection, cwd: string): Promise<Map<string, acp.SessionInfo> | undefined> {
  if (!listsSessions(connection.agent)) {
    return undefined;
  }
  const out = new Map<string, acp.SessionInfo>();
  let cursor: string | undefined;
  try {
    for (let page = 0; page < maxListPages; page++) {
      const res = await connection.listSessions({ cwd, ...(cursor !== undefined ? { cursor } : {}) });
      for (const s of res.sessions) {
        out.set(s.sessionId, s);
      }
      cursor = res.nextCursor ?? undefined;
      if (cursor === undefined || res.sessions.length === 0) {
        break;
      }
    }
  } catch {
    return undefined;
  }
  return out;
}

export interface ChoiceContext {
  readonly request: SessionRequest | undefined;
  readonly records: SessionRecords;
  readonly agentKey: string;
  readonly agentLabel: string;
  readonly cwd: string;
  readonly connection: AgentConnection;
}

/**
 * Decides how the run's session is opened, or why it cannot be (an error naming the id or name:
 * the run then exits 1). A target the runner has no record of is still resumed when the agent
 * lists it for this cwd (a session started in the editor, say); a record the agent no longer lists
 * is refused before it is resumed, since Hermes answers `session/resume` of an unknown id by
 * silently starting a new session under another id.
 */
export async function chooseSession(ctx: ChoiceContext): Promise<SessionOpening | { readonly error: string }> {
  const { request } = ctx;
  if (request === undefined) {
    return { kind: 'new' };
  }
  const how = resumeMethod(ctx.connection.agent);
  const where = `${ctx.agentLabel} in ${ctx.cwd}`;
  const record = request.kind === 'continue' ? ctx.records.latest(ctx.agentKey, ctx.cwd) : ctx.records.find(ctx.agentKey, ctx.cwd, request.target);
  const asked = request.kind === 'continue' ? '--continue' : `--resume ${request.target}`;
  if (how === undefined) {
    return { error: `${asked}: ${ctx.agentLabel} cannot reopen sessions (it offers neither session/resume nor session/load)` };
  }
  if (record === undefined && request.kind === 'continue') {
    return { error: `--continue: hermes-acp-run has no earlier session of ${where} (run once without --continue, or see "hermes-acp-run sessions list")` };
  }
  const listed = await agentSessions(ctx.connection, ctx.cwd);
  if (record === undefined) {
    const target = request.kind === 'resume' ? request.target : '';
    if (listed?.has(target) === true) {
      return { kind: 'resume', sessionId: target, how };
    }
    return { error: `${asked}: unknown session "${target}": no session of ${where} has this id or name (see "hermes-acp-run sessions list")` };
  }
  if (listed !== undefined && !listed.has(record.sessionId)) {
    return { error: `${asked}: session ${describeRecord(record)} is no longer listed by ${ctx.agentLabel} for ${ctx.cwd}; it cannot be resumed (start a new one without ${asked.split(' ')[0] ?? asked})` };
  }
  return { kind: 'resume', sessionId: record.sessionId, how, record };
}

/** `"name" (id)` or `id`. */
export function describeRecord(r: Pick<SessionRecord, 'sessionId' | 'name'>): string {
  return r.name !== undefined ? `"${r.name}" (${r.sessionId})` : r.sessionId;
}

/** The error of a failed resume or load, naming the session. */
export function resumeFailure(sessionId: string, record: SessionRecord | undefined, how: 'resume' | 'load', e: unknown): string {
  return `cannot resume session ${record !== undefined ? describeRecord(record) : sessionId} (session/${how}): ${describeError(e)}`;
}
