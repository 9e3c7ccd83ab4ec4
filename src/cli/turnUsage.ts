import type { TokenUsage } from '../session/sessionState';
import type { Tokens } from './events';

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
