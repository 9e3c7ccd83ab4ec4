import type * as acp from '@agentclientprotocol/sdk';
import type { SessionState } from '../session/sessionState';

/**
 * How the footer's Retry sends a failed turn's prompt (its blocks; context notes taken then are not
 * repeated): again in this session, or — when the agent holds the failed prompt and would send it
 * twice (Hermes merges it into the next message: test/fixtures/hermes/retry.jsonl, where the model
 * received "Say hello to the team\n\nSay hello to the team") — once, in a new session forked from
 * before the first prompt it holds (`fork`). Hermes runs nothing for an empty prompt (observed), so
 * "send nothing new and let the held prompt run" is not available over ACP.
 */
export type RetryPlan =
  | { readonly kind: 'resend'; readonly blocks: readonly acp.ContentBlock[] }
  | { readonly kind: 'fork'; readonly fromEntryId: string; readonly blocks: readonly acp.ContentBlock[] };

export function retryPlan(state: SessionState, turnId: number): RetryPlan | undefined {
  const prompt = state.entries.find((e) => e.kind === 'user' && e.turnId === turnId && e.origin === 'local');
  if (prompt?.kind !== 'user') {
    return undefined;
  }
  const footer = state.entries.find((e) => e.kind === 'turnEnd' && e.turnId === turnId);
  const from = footer?.kind === 'turnEnd' ? footer.heldFrom : undefined;
  if (from === undefined) {
    return { kind: 'resend', blocks: prompt.blocks };
  }
  // What the agent would have sent as one message: a prompt it held in front, then this one.
  const held = prompt.mergedWith?.reason === 'failed' && prompt.mergedWith.entryId === from ? [{ type: 'text' as const, text: `${prompt.mergedWith.text}\n\n` }] : [];
  return { kind: 'fork', fromEntryId: from, blocks: [...held, ...prompt.blocks] };
}
