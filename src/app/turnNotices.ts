import type { ProviderFailure } from '../session/providerErrors';
import type { TurnResult } from '../session/sessionController';
import type { AgentQuirks, Entry, NoticeAction, NoticeLevel } from '../session/sessionState';
import { formatMessage, type Localize } from '../util/l10n';

/** A notice the chat adds after a turn. */
export interface TurnNotice {
  readonly level: NoticeLevel;
  readonly title: string;
  readonly detail?: string;
  readonly actions?: readonly NoticeAction[];
  /** The user entry "Start fresh from here" forks before. */
  readonly forkFrom?: string;
}

export interface TurnFacts {
  readonly result: TurnResult;
  /** The entries the turn added (its prompt first). */
  readonly turnEntries: readonly Entry[];
  readonly quirks: AgentQuirks;
  readonly agentName: string;
  /** What the turn's reply says of a failed model call (TurnOutcome.providerFailure, turnRun.ts). */
  readonly providerFailure: ProviderFailure | undefined;
  /**
   * The first prompt the agent still holds from earlier failed or cancelled turns (the id of its user
   * entry): the agent puts it in front of the next message, so a fresh start has to fork before it.
   */
  readonly held: string | undefined;
  readonly t?: Localize;
}

/**
 * What to tell the user once a turn ended, and which prompt the agent holds afterwards.
 *
 * Hermes reports provider failures as the reply text with `end_turn` and keeps the failed prompt:
 * the next message is sent merged with it (Hermes 0.19 `acp_adapter/server.py`; test/fixtures/hermes/ratelimit.jsonl:
 * the follow-up `[plain]` prompt hit the same 429). It does the same with a cancelled prompt.
 * So after a failure the chat says the prompt will be sent again and offers a fresh session forked
 * from before the first prompt still held.
 */
export function afterTurn(facts: TurnFacts): { readonly notices: readonly TurnNotice[]; readonly held: string | undefined } {
  const { result, turnEntries, quirks, agentName } = facts;
  const t = facts.t ?? formatMessage;
  if (result.kind !== 'ended') {
    return { notices: [], held: facts.held };
  }
  const prompt = turnEntries.find((e) => e.kind === 'user' && e.origin === 'local');
  const held = facts.held ?? prompt?.id;
  switch (result.stopReason) {
    case 'end_turn': {
      const failure = facts.providerFailure;
      if (failure === undefined) {
        return { notices: [], held: undefined };
      }
      const notices: TurnNotice[] = [
        {
          level: 'warning',
          title:
            failure.httpStatus !== undefined
              ? t('The model provider failed (HTTP {0}): that reply is an error report, not an answer.', failure.httpStatus)
              : t('The model provider failed: that reply is an error report, not an answer.'),
          detail: failure.transient
            ? t('It is usually temporary (rate limit, overload, server error); try again in a moment.')
            : t('Check the provider configuration (Set Up Provider).'),
          actions: failure.transient ? ['showTraffic'] : ['setupProvider', 'showTraffic'],
        },
      ];
      if (quirks.mergesFailedPrompt !== true || held === undefined) {
        return { notices, held: undefined };
      }
      notices.push(heldPromptNotice(agentName, held, t('{0} keeps the failed prompt', agentName), t));
      return { notices, held };
    }
    case 'cancelled':
      return { notices: [], held: quirks.mergesCancelledPrompt ? held : undefined };
    case 'refusal':
      if (!turnEntries.some((e) => e.kind === 'assistant' || e.kind === 'tool')) {
        // Hermes 0.19 answers a prompt to a session it does not know with a bare `refusal` (observed).
        return {
          notices: [
            {
              level: 'warning',
              title: t('{0} refused the prompt without a reply: the session was probably not found on the agent.', agentName),
              detail: t('Start a new session to continue; this transcript stays here.'),
              actions: ['newSession'],
            },
          ],
          held: facts.held,
        };
      }
      return { notices: [], held: facts.held };
    default:
      return { notices: [], held: undefined };
  }
}

/** "<agent> will send this message again with your next one.", with "Start fresh from here" before `held`. */
export function heldPromptNotice(agentName: string, held: string, why: string, t: Localize = formatMessage): TurnNotice {
  return {
    level: 'info',
    title: t('{0} will send this message again with your next one.', agentName),
    detail: t(
      '{0} and sends it in front of your next message (forks of this session keep it too), so it can fail again. To leave it behind, start a fresh session from before it.',
      why,
    ),
    forkFrom: held,
  };
}

/**
 * A session opened from the history whose last prompt has no reply: Hermes replays a turn the
 * provider failed as the prompt alone (Hermes 0.19; test/fixtures/hermes/load.jsonl ends
 * with `[error500] boom`) and still holds it, so the next message is sent merged with it.
 */
export function heldAfterLoad(
  entries: readonly Entry[],
  quirks: AgentQuirks,
  agentName: string,
  t: Localize = formatMessage,
): { readonly notice: TurnNotice; readonly held: string } | undefined {
  const last = entries.filter((e) => e.kind === 'user' || e.kind === 'assistant' || e.kind === 'tool').at(-1);
  if (quirks.mergesFailedPrompt !== true || last?.kind !== 'user' || last.origin !== 'replay') {
    return undefined;
  }
  return { notice: heldPromptNotice(agentName, last.id, t('The last prompt of this session got no reply; {0} keeps it', agentName), t), held: last.id };
}
