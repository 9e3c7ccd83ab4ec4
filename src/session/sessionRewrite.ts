import type * as acp from '@agentclientprotocol/sdk';
import { canRewrite, type DeepCutQuestion, type HistoryRewriter, type RewriteTarget } from '../agentPort/transport';
import type { Localize } from '../util/l10n';
import type { AgentConnection } from '../agentPort/agentConnection';
import type { SessionAction } from './sessionActions';
import type { Entry, SessionState } from './sessionState';

/** What a rewrite of `entryId` needs, or a clear error: no rewrite support, not idle, no such message. */
export function planRewrite(
  connection: AgentConnection | undefined,
  state: SessionState,
  entryId: string,
  t: Localize,
): { connection: HistoryRewriter; sessionId: string; target: RewriteTarget } {
  if (connection === undefined || !canRewrite(connection)) {
    throw new Error(t('This agent connection cannot rewrite history.'));
  }
  if (state.sessionId === undefined || state.phase !== 'idle') {
    throw new Error(t('Cannot rewrite while the session is {0}.', state.phase));
  }
  const target = rewriteTarget(state.entries, entryId);
  if (target === undefined) {
    throw new Error(t('There is no user message {0} in this session.', entryId));
  }
  return { connection, sessionId: state.sessionId, target };
}

/** The transport's durable user-turn row ids for the transcript's user entries (after a load). */
export function rowsBound(connection: AgentConnection | undefined, sessionId: string): SessionAction | undefined {
  return connection !== undefined && canRewrite(connection) ? { type: 'userRowsBound', rowIds: connection.userRowIds(sessionId) } : undefined;
}

/** Where the rewrite of the user entry `entryId` cuts: its 0-based user-turn ordinal and durable row id. */
export function rewriteTarget(entries: readonly Entry[], entryId: string): RewriteTarget | undefined {
  let ordinal = 0;
  for (const e of entries) {
    if (e.kind !== 'user') {
      continue;
    }
    if (e.id === entryId) {
      return { userOrdinal: ordinal, ...(e.rowId !== undefined ? { rowId: e.rowId } : {}) };
    }
    ordinal++;
  }
  return undefined;
}

export interface RewriteTurnDeps {
  readonly connection: HistoryRewriter;
  readonly sessionId: string;
  readonly entryId: string;
  readonly target: RewriteTarget;
  readonly blocks: readonly acp.ContentBlock[];
  readonly turnId: number;
  readonly confirmDeepCut: (question: DeepCutQuestion) => Promise<boolean>;
  readonly dispatch: (action: SessionAction) => void;
  readonly now: () => number;
  readonly newId: () => string;
}

export type RewriteTurnOutcome =
  | { readonly kind: 'declined'; readonly started: boolean }
  | { readonly kind: 'ended'; readonly response: acp.PromptResponse; readonly interrupts: number };

/**
 * Runs one native rewrite: the transcript is cut (and the new turn started) only when the submit
 * goes out — a deep cut the user declined leaves it untouched — and the surviving user turns are
 * rebound to the row ids the agent answered. Errors propagate (the controller ends the turn).
 */
export async function runRewrite(deps: RewriteTurnDeps): Promise<RewriteTurnOutcome> {
  let started = false;
  const result = await deps.connection.rewrite({
    sessionId: deps.sessionId,
    prompt: [...deps.blocks],
    target: deps.target,
    confirmDeepCut: deps.confirmDeepCut,
    onSubmitting: () => {
      started = true;
      deps.dispatch({ type: 'rewriteStarted', fromEntryId: deps.entryId, turnId: deps.turnId, id: deps.newId(), at: deps.now(), blocks: deps.blocks });
    },
    onSubmitted: (survivorRowIds) => deps.dispatch({ type: 'historyRewritten', survivorRowIds }),
  });
  if (result.kind === 'declined') {
    return { kind: 'declined', started };
  }
  return { kind: 'ended', response: result.response, interrupts: result.interrupts };
}
