import { detectProviderFailureText } from './providerErrors';
import type { TurnResult } from './sessionController';
import type { AgentQuirks, Entry, NoticeAction, NoticeLevel } from './sessionState';

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
  /**
   * The first prompt the agent still holds from earlier failed or cancelled turns (the id of its user
   * entry): the agent puts it in front of the next message, so a fresh start has to fork before it.
   */
  readonly held: string | undefined;
}

/**
 * What to tell the user once a turn ended, and which prompt the agent holds afterwards.
 *
 * Hermes reports provider failures as the reply text with `end_turn` and keeps the failed prompt:
 * the next message is sent merged with it (reference/hermes-acp.md §11, fixtures/hermes/ratelimit:
 * the follow-up `[plain]` prompt hit the same 429). It does the same with a cancelled prompt (§10).
 * So after a failure the chat says the prompt will be sent again and offers a fresh session forked
 * from before the first prompt still held.
 */
export function afterTurn(facts: TurnFacts): { readonly notices: readonly TurnNotice[]; readonly held: string | undefined } {
  const { result, turnEntries, quirks, agentName } = facts;
  if (result.kind !== 'ended') {
    return { notices: [], held: facts.held };
  }
  const prompt = turnEntries.find((e) => e.kind === 'user' && e.origin === 'local');
  const held = facts.held ?? prompt?.id;
  switch (result.stopReason) {
    case 'end_turn': {
      const failure = detectProviderFailureText(lastReplyText(turnEntries));
      if (failure === undefined) {
        return { notices: [], held: undefined };
      }
      const notices: TurnNotice[] = [
        {
          level: 'warning',
          title: `The model provider failed${failure.httpStatus !== undefined ? ` (HTTP ${failure.httpStatus})` : ''}: that reply is an error report, not an answer.`,
          detail: failure.transient ? 'It is usually temporary (rate limit, overload, server error); try again in a moment.' : 'Check the provider configuration (Set Up Provider).',
          actions: failure.transient ? ['showTraffic'] : ['setupProvider', 'showTraffic'],
        },
      ];
      if (quirks.mergesFailedPrompt !== true || held === undefined) {
        return { notices, held: undefined };
      }
      notices.push({
        level: 'info',
        title: `${agentName} will send this message again with your next one.`,
        detail:
          `${agentName} keeps a prompt that failed and puts it in front of the next message, so a prompt that keeps failing makes the next turns ` +
          '(and forks of this session) fail too. "Start fresh from here" opens a new session from before it, with the message in the composer.',
        forkFrom: held,
      });
      return { notices, held };
    }
    case 'cancelled':
      return { notices: [], held: quirks.mergesCancelledPrompt ? held : undefined };
    case 'refusal':
      if (!turnEntries.some((e) => e.kind === 'assistant' || e.kind === 'tool')) {
        // Hermes answers a prompt to a session it lost with a bare `refusal` (reference §3).
        return {
          notices: [
            {
              level: 'warning',
              title: `${agentName} refused the prompt without a reply: the session was probably not found on the agent.`,
              detail: 'Start a new session to continue; this transcript stays here.',
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

function lastReplyText(entries: readonly Entry[]): string {
  const last = entries.filter((e) => e.kind === 'assistant').at(-1);
  return last?.kind === 'assistant' ? last.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('') : '';
}
