import type * as acp from '@agentclientprotocol/sdk';
import { profileFor } from './agentProfiles';
import { defaultQuirks, type AgentQuirks } from './sessionState';

/**
 * Behaviours ACP leaves open, keyed by the agent's `initialize` info. Each entry cites where it was
 * observed; agents not listed get the spec-conforming defaults.
 */
export function quirksFor(agentInfo: acp.Implementation | null | undefined): AgentQuirks {
  // Where the agent reports a turn's tokens: its profile's sources, for the chat as for the runner.
  return { ...agentSpecific(agentInfo), usageSources: profileFor(agentInfo?.name, undefined).usage };
}

function agentSpecific(agentInfo: acp.Implementation | null | undefined): AgentQuirks {
  switch (agentInfo?.name) {
    case 'hermes-agent':
      // Hermes 0.19 (`acp_adapter/`, observed): prompt usage is cumulative for the session
      // (1234 → 3702 → 6170); a cancelled prompt is prefixed to the next one, and so is a prompt the
      // provider failed (test/fixtures/hermes/ratelimit.jsonl); resume replays history; no answer
      // to a permission request within 60 s is a deny.
      return { cumulativePromptUsage: true, mergesCancelledPrompt: true, mergesFailedPrompt: true, replaysOnResume: true, permissionTimeoutMs: 60_000 };
    default:
      return defaultQuirks;
  }
}
