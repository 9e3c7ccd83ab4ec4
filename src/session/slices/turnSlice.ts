import type * as acp from '@agentclientprotocol/sdk';
import type { SessionAction } from '../sessionActions';
import type { Entry, SessionState, TurnEndEntry, TurnOutcome } from '../sessionState';
import type { ProviderFailureView } from '../../protocol/sessionView';
import { replyProviderFailure, type ProviderFailure } from '../providerErrors';
import { parseUsage, usageDelta } from '../usage';
import { append, appendEntry, replaceAt } from './entryList';
import { closeOpenTools, expirePendingPermissions } from './toolSlice';

/** The actions this slice owns: a turn's start, cancel and end, and the agent's exit that cuts it short. */
export type TurnAction = Extract<SessionAction, { type: 'promptSubmitted' | 'cancelRequested' | 'turnEnded' | 'turnFailed' | 'agentExited' }>;

/** The turn lifecycle: prompt → running → (cancelling) → idle, its footer, and what its end closes. */
export function reduceTurn(state: SessionState, action: TurnAction): SessionState {
  switch (action.type) {
    case 'promptSubmitted': {
      const { cancelledPromptPending: _merged, ...rest } = state;
      return {
        ...rest,
        phase: 'running',
        turn: { id: action.turnId, startedAt: action.at, cancelRequested: false },
        entries: appendEntry(state.entries, { kind: 'user', id: action.id, blocks: action.blocks, at: action.at, turnId: action.turnId, origin: 'local' }, action.at),
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
      // runner exits 75 for it, so the chat shows it failed, never "Completed".
      const reply = action.stopReason === 'end_turn' ? replyText(state.entries, turn.id).trim() : '';
      const failure = reply !== '' ? replyProviderFailure(reply) : undefined;
      const outcome: TurnOutcome = failure !== undefined ? 'error' : action.stopReason;
      let entries = closeOpenTools(state.entries, action.stopReason === 'cancelled' ? 'cancelled' : 'ended', action.at, turn.id);
      entries = expirePendingPermissions(entries, action.at, turn.id);
      if (action.stopReason === 'refusal') {
        entries = markTurnExcluded(entries, turn.id);
      }
      const reported = parseUsage(action.usage) ?? turn.metaUsage;
      const usage =
        reported === undefined ? undefined : state.quirks.cumulativePromptUsage ? usageDelta(reported, state.cumulativeUsage) : reported;
      const footer: TurnEndEntry = {
        kind: 'turnEnd',
        id: action.id,
        turnId: turn.id,
        outcome,
        durationMs: Math.max(0, action.at - turn.startedAt),
        at: action.at,
        ...(usage !== undefined ? { usage } : {}),
        // The reply as the runner's `error` has it (cli/exitCodes.ts), cut like a notice's detail.
        ...(failure !== undefined ? { error: reply.length > maxErrorChars ? `${reply.slice(0, maxErrorChars - 1)}…` : reply, provider: providerView(failure) } : {}),
      };
      const { turn: _done, ...rest } = state;
      return {
        ...rest,
        phase: 'idle',
        entries: appendEntry(entries, footer, action.at),
        ...(reported !== undefined && state.quirks.cumulativePromptUsage ? { cumulativeUsage: reported } : {}),
        ...(action.stopReason === 'cancelled' && state.quirks.mergesCancelledPrompt ? { cancelledPromptPending: true } : {}),
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
      if (!cancelled) {
        entries = appendEntry(entries, {
          kind: 'notice',
          id: action.noticeId,
          level: 'error',
          title: action.title,
          detail: action.error,
          actions: ['showTraffic'],
          at: action.at,
        }, action.at);
      }
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
      const { turn: _done, ...rest } = state;
      return {
        ...rest,
        phase: 'idle',
        entries: appendEntry(entries, footer, action.at),
        ...(cancelled && state.quirks.mergesCancelledPrompt ? { cancelledPromptPending: true } : {}),
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
      const { turn: _gone, replay: _replay, ...rest } = state;
      return { ...rest, phase: 'exited', entries };
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
