import type { TurnResult } from '../session/sessionController';
import type { AgentQuirks, Entry, HeldPrompt, NoticeAction, NoticeLevel } from '../session/sessionState';
import { promptText } from '../session/slices/heldPrompt';
import { formatMessage, type Localize } from '../util/l10n';

/** A notice the chat adds after a turn. */
export interface TurnNotice {
  readonly level: NoticeLevel;
  readonly title: string;
  readonly detail?: string;
  readonly actions?: readonly NoticeAction[];
}

export interface TurnFacts {
  readonly result: TurnResult;
  /** The entries the turn added (its prompt first). */
  readonly turnEntries: readonly Entry[];
  readonly agentName: string;
  readonly t?: Localize;
}

/**
 * What the chat adds after a turn beyond its footer. A failed turn says everything in its footer's
 * failure block (cause, what to do, Retry / Start fresh / Show Traffic: one failure, one message),
 * and a prompt the agent still holds is said above the composer (SessionState.held), before the
 * next message is sent. What is left: a bare refusal, which names no failure.
 */
export function afterTurn(facts: TurnFacts): readonly TurnNotice[] {
  const { result, turnEntries, agentName } = facts;
  const t = facts.t ?? formatMessage;
  if (result.kind !== 'ended' || result.stopReason !== 'refusal' || turnEntries.some((e) => e.kind === 'assistant' || e.kind === 'tool')) {
    return [];
  }
  // Hermes 0.19 answers a prompt to a session it does not know with a bare `refusal` (observed).
  return [
    {
      level: 'warning',
      title: t('{0} refused the prompt without a reply: the session was probably not found on the agent.', agentName),
      detail: t('Start a new session to continue; this transcript stays here.'),
      actions: ['newSession'],
    },
  ];
}

/**
 * A session opened from the history whose last prompt has no reply: Hermes replays a turn the
 * provider failed as the prompt alone (Hermes 0.19; test/fixtures/hermes/load.jsonl ends
 * with `[error500] boom`) and still holds it, so the next message is sent merged with it.
 */
export function heldAfterLoad(entries: readonly Entry[], quirks: AgentQuirks): HeldPrompt | undefined {
  const last = entries.filter((e) => e.kind === 'user' || e.kind === 'assistant' || e.kind === 'tool').at(-1);
  if (quirks.mergesFailedPrompt !== true || last?.kind !== 'user' || last.origin !== 'replay') {
    return undefined;
  }
  return { reason: 'failed', text: promptText(last.blocks), entryId: last.id };
}
