import type * as acp from '@agentclientprotocol/sdk';
import type { SessionAction } from '../sessionActions';
import type { Entry, HeldPrompt, SessionState, TokenUsage, TurnEndEntry, TurnOutcome, UserEntry } from '../sessionState';
import type { ProviderFailureView } from '../../protocol/sessionView';
import { replyProviderFailure, type ProviderFailure } from '../providerErrors';
import { allUsageSources, isEmptyUsage, turnTokens, usageDelta } from '../usage';
import { append, appendEntry, replaceAt } from './entryList';
import { keepsHeldPrompt, promptText, withoutReplyText } from './heldPrompt';
import { closeOpenTools, expirePendingPermissions } from './toolSlice';

/** The actions this slice owns: a turn's start, cancel and end, and the agent's exit that cuts it short. */
export type TurnAction = Extract<SessionAction, { type: 'promptSubmitted' | 'cancelRequested' | 'turnEnded' | 'turnFailed' | 'agentExited' }>;

/** The turn lifecycle: prompt → running → (cancelling) → idle, its footer, and what its end closes. */
export function reduceTurn(state: SessionState, action: TurnAction): SessionState {
  switch (action.type) {
    case 'promptSubmitted': {
      // The agent sends a prompt it holds in front of this one, unless this is one of its own
      // commands, which it answers without the model (Hermes `_handle_slash_command`).
      const merged = state.held !== undefined && !keepsHeldPrompt(action.blocks, state.commands) ? state.held : undefined;
      const { held: _held, ...rest } = state;
      const user: UserEntry = { kind: 'user', id: action.id, blocks: action.blocks, at: action.at, turnId: action.turnId, origin: 'local', ...(merged !== undefined ? { mergedWith: merged } : {}) };
      return {
        ...(merged !== undefined ? rest : state),
        phase: 'running',
        turn: { id: action.turnId, startedAt: action.at, cancelRequested: false },
        entries: appendEntry(state.entries, user, action.at),
      };
    }
    case 'cancelRequested': {
      if (state.turn === undefined || state.turn.cancelRequested) {
        return state;
      }
      // ACP prompt-turn: the client SHOULD preemptively mark non-finished tool calls cancelled.
      return {
        ...state,
        phase: 'cancelling',
        turn: { ...state.turn, cancelRequested: true },
        entries: closeOpenTools(state.entries, 'cancelled', action.at, state.turn.id),
      };
    }
    case 'turnEnded': {
      const turn = state.turn;
      if (turn?.id !== action.turnId) {
        return state; // a late completion of an older turn never ends a newer one
      }
      // Hermes reports a failed model call as the reply with `end_turn` (hermes-acp.md §6): the
      // runner exits 75 for it, so the chat shows it failed, never "Completed". The report moves
      // from the reply into the footer's failure block (one failure, one message).
      const reply = action.stopReason === 'end_turn' ? replyText(state.entries, turn.id).trim() : '';
      const failure = reply !== '' ? replyProviderFailure(reply) : undefined;
      const outcome: TurnOutcome = failure !== undefined ? 'error' : action.stopReason;
      let entries = closeOpenTools(state.entries, action.stopReason === 'cancelled' ? 'cancelled' : 'ended', action.at, turn.id);
      entries = expirePendingPermissions(entries, action.at, turn.id);
      if (failure !== undefined) {
        entries = withoutReplyText(entries, turn.id);
      }
      if (action.stopReason === 'refusal') {
        entries = markTurnExcluded(entries, turn.id);
      }
      const tokens = footerTokens(state, action.usage, action.meta);
      const footer: TurnEndEntry = {
        kind: 'turnEnd',
        id: action.id,
        turnId: turn.id,
        outcome,
        durationMs: Math.max(0, action.at - turn.startedAt),
        at: action.at,
        ...(tokens.usage !== undefined ? { usage: tokens.usage } : {}),
        // The reply as the runner's `error` has it (cli/exitCodes.ts), cut like a notice's detail.
        ...(failure !== undefined
          ? { error: reply.length > maxErrorChars ? `${reply.slice(0, maxErrorChars - 1)}…` : reply, provider: providerView(failure), errorWasReply: true as const }
          : {}),
      };
      const held =
        (action.stopReason === 'cancelled' && state.quirks.mergesCancelledPrompt) || (failure !== undefined && state.quirks.mergesFailedPrompt === true)
          ? heldAfter(state.entries, turn.id, action.stopReason === 'cancelled' ? 'cancelled' : 'failed')
          : undefined;
      const { turn: _done, cumulativeUsage: _cumulative, ...rest } = state;
      return {
        ...rest,
        phase: 'idle',
        entries: appendEntry(entries, held?.reason === 'failed' && held.entryId !== undefined ? { ...footer, heldFrom: held.entryId } : footer, action.at),
        ...(tokens.cumulative !== undefined ? { cumulativeUsage: tokens.cumulative } : {}),
        ...(held !== undefined ? { held } : {}),
      };
    }
    case 'turnFailed': {
      const turn = state.turn;
      if (turn?.id !== action.turnId) {
        return state;
      }
      // After session/cancel an error also ends the turn as cancelled (agents differ: ACP
      // prompt-turn says `cancelled`, some answer -32800 or another error; cancellation is not an error).
      const cancelled = turn.cancelRequested;
      let entries = closeOpenTools(state.entries, cancelled ? 'cancelled' : 'ended', action.at, turn.id);
      entries = expirePendingPermissions(entries, action.at, turn.id);
      // The error is the footer's failure block (cause, what to do, Retry): no notice repeats it.
      const footer: TurnEndEntry = {
        kind: 'turnEnd',
        id: action.id,
        turnId: turn.id,
        outcome: cancelled ? 'cancelled' : 'error',
        durationMs: Math.max(0, action.at - turn.startedAt),
        at: action.at,
        ...(cancelled ? {} : { error: action.error }),
        ...(!cancelled && action.provider !== undefined ? { provider: providerView(action.provider) } : {}),
      };
      const held = cancelled && state.quirks.mergesCancelledPrompt ? heldAfter(state.entries, turn.id, 'cancelled') : undefined;
      const { turn: _done, ...rest } = state;
      return {
        ...rest,
        phase: 'idle',
        entries: appendEntry(entries, footer, action.at),
        ...(held !== undefined ? { held } : {}),
      };
    }
    case 'agentExited': {
      let entries = closeOpenTools(state.entries, 'interrupted', action.at);
      entries = expirePendingPermissions(entries, action.at, undefined);
      const turn = state.turn;
      if (turn !== undefined) {
        entries = appendEntry(entries, {
          kind: 'turnEnd',
          id: action.id,
          turnId: turn.id,
          outcome: 'interrupted',
          durationMs: Math.max(0, action.at - turn.startedAt),
          error: action.message,
          at: action.at,
        }, action.at);
      }
      // Only an exit nobody asked for is an error; a stop we made (Restart Agent) is a neutral line.
      entries = action.silent === true ? entries : append(entries, {
        kind: 'notice',
        id: action.noticeId,
        level: action.expected === true ? 'info' : 'error',
        title: action.message,
        ...(action.stderrTail !== '' ? { log: action.stderrTail } : {}),
        actions: action.expected === true ? [] : ['restartAgent', 'showTraffic'],
        at: action.at,
      });
      // The next process counts the session's tokens from 0 again (restart.jsonl). A cancelled
      // prompt is held in the process's memory only (Hermes `interrupted_prompt_text`); a failed
      // one stays in the session's history and comes back with it.
      const { turn: _gone, replay: _replay, cumulativeUsage: _counts, held, ...rest } = state;
      return { ...rest, phase: 'exited', entries, ...(held?.reason === 'failed' ? { held } : {}) };
    }
  }
}

/** The context window gauge and the session's cost. */
export function applyUsageUpdate(state: SessionState, update: Extract<acp.SessionUpdate, { sessionUpdate: 'usage_update' }>): SessionState {
  // The cost is cumulative; an update without it (Hermes sends one after every prompt) keeps it.
  const cost = update.cost !== undefined && update.cost !== null ? { amount: update.cost.amount, currency: update.cost.currency } : state.usage?.cost;
  return { ...state, usage: { used: update.used, size: update.size, ...(cost !== undefined ? { cost } : {}) } };
}

const maxErrorChars = 2000;

/**
 * The footer's tokens (usage.ts: one reading for the chat and the runner), and the cumulative count
 * to remember. A report of all zeros says nothing (Hermes answers a cancelled turn so, cancel.jsonl;
 * opencode too): neither the footer nor the cumulative baseline take it. The footer then says no
 * count was reported, never "0 tokens" for a turn that streamed text.
 */
function footerTokens(state: SessionState, usage: unknown, meta: unknown): { readonly usage?: TokenUsage; readonly cumulative?: TokenUsage } {
  const reported = turnTokens(state.quirks.usageSources ?? allUsageSources, { usage, meta, chunks: state.turn?.chunkUsage });
  const keep = state.cumulativeUsage !== undefined ? { cumulative: state.cumulativeUsage } : {};
  if (reported === undefined || isEmptyUsage(reported.usage)) {
    return keep;
  }
  if (state.quirks.cumulativePromptUsage && reported.source === 'promptUsage') {
    // An unchanged count says nothing about this turn either (main.jsonl: a cancel answered with the same 16770).
    const delta = usageDelta(reported.usage, state.cumulativeUsage);
    return { ...(isEmptyUsage(delta) ? {} : { usage: delta }), cumulative: reported.usage };
  }
  return { usage: reported.usage, ...keep };
}

/** What the agent holds after the turn: its prompt (and whatever that prompt carried), from the first prompt held. */
function heldAfter(entries: readonly Entry[], turnId: number, reason: HeldPrompt['reason']): HeldPrompt | undefined {
  const user = entries.find((e): e is UserEntry => e.kind === 'user' && e.turnId === turnId && e.origin === 'local');
  if (user === undefined) {
    return undefined;
  }
  const text = promptText(user.blocks);
  return {
    reason,
    text: user.mergedWith !== undefined ? `${user.mergedWith.text}\n\n${text}` : text,
    entryId: user.mergedWith?.entryId ?? user.id,
  };
}

function providerView(f: ProviderFailure): ProviderFailureView {
  return { kind: f.kind, transient: f.transient, ...(f.httpStatus !== undefined ? { httpStatus: f.httpStatus } : {}) };
}

/** The text of the turn's last agent message (what Hermes puts a provider failure in). */
function replyText(entries: readonly Entry[], turnId: number): string {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'assistant' && e.turnId === turnId) {
      return e.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    }
    if (e?.kind === 'user' && e.turnId === turnId) {
      break;
    }
  }
  return '';
}

function markTurnExcluded(entries: readonly Entry[], turnId: number): readonly Entry[] {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'user' && e.turnId === turnId) {
      return replaceAt(entries, i, { ...e, excluded: true });
    }
  }
  return entries;
}
