import type { AgentProfile } from '../session/agentProfiles';
import type { TokenUsage } from '../session/sessionState';
import { parseQuotaUsage } from '../session/usage';
import { isObject } from '../util/json';
import type { Tokens } from './events';

/** Where a turn's token counts may have arrived. */
export interface UsageReports {
  /** The footer the reducer wrote from the response's `usage` (already per turn for cumulative agents). */
  readonly footer: TokenUsage | undefined;
  /** The `session/prompt` response, for `_meta` (Gemini). */
  readonly response: unknown;
  /** `_meta.usage` of the turn's message chunks, summed (Qwen). */
  readonly chunks: TokenUsage | undefined;
}

/** The turn's tokens from the first place the agent's profile names that holds any; undefined when none does. */
export function reportedUsage(profile: AgentProfile, reports: UsageReports): TokenUsage | undefined {
  for (const source of profile.usage) {
    let found: TokenUsage | undefined;
    switch (source) {
      case 'promptUsage':
        found = reports.footer;
        break;
      case 'promptMetaQuota':
        found = isObject(reports.response) ? parseQuotaUsage(reports.response._meta) : undefined;
        break;
      case 'chunkMetaUsage':
        found = reports.chunks;
        break;
    }
    if (found !== undefined) {
      return found;
    }
  }
  return undefined;
}

export const noTokens: Tokens = { input: 0, output: 0, total: 0, cache_read: 0, cache_write: 0 };

export function tokensOf(u: TokenUsage | undefined): Tokens {
  if (u === undefined) {
    return noTokens;
  }
  return {
    input: count(u.inputTokens),
    output: count(u.outputTokens),
    total: count(u.totalTokens),
    cache_read: count(u.cachedReadTokens),
    cache_write: count(u.cachedWriteTokens),
  };
}

/** Whole, non-negative numbers whatever the agent sent (the schema and `@tsv` consumers expect counts). */
function count(n: number | undefined): number {
  return n !== undefined && Number.isFinite(n) && n > 0 ? Math.round(n) : 0;
}
