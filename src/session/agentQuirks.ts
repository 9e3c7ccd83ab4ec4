import type * as acp from '@agentclientprotocol/sdk';
import { defaultQuirks, type AgentQuirks } from './sessionState';

/**
 * Behaviours ACP leaves open, keyed by the agent's `initialize` info. Each entry cites where it was
 * observed; agents not listed get the spec-conforming defaults.
 */
export function quirksFor(agentInfo: acp.Implementation | null | undefined): AgentQuirks {
  switch (agentInfo?.name) {
    case 'hermes-agent':
      // reference/hermes-acp.md §6 (usage cumulative: 1234 → 3702 → 6170), §10 (cancelled prompt is
      // prefixed to the next one), §11 (so is a prompt the provider failed: fixtures/hermes/ratelimit),
      // §9 (resume replays history), §7 (no answer within 60 s = deny).
      return { cumulativePromptUsage: true, mergesCancelledPrompt: true, mergesFailedPrompt: true, replaysOnResume: true, permissionTimeoutMs: 60_000 };
    case 'scripted-agent':
      // Our test agent imitates Hermes' cumulative usage (test/agents/README.md).
      return { ...defaultQuirks, cumulativePromptUsage: true };
    default:
      return defaultQuirks;
  }
}
