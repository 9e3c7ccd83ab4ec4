import { isObject } from '../util/json';
import type { TokenUsage } from './sessionState';

/**
 * `PromptResponse.usage` (unstable in ACP v1, sent by Hermes and Claude). The SDK does not validate
 * responses, so it arrives as whatever the agent sent.
 */
export function parseUsage(raw: unknown): TokenUsage | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  const n = (k: string): number | undefined => {
    const v = raw[k];
    return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
  };
  const inputTokens = n('inputTokens') ?? 0;
  const outputTokens = n('outputTokens') ?? 0;
  const totalTokens = n('totalTokens') ?? inputTokens + outputTokens;
  const usage: TokenUsage = { inputTokens, outputTokens, totalTokens };
  const thought = n('thoughtTokens');
  const cachedRead = n('cachedReadTokens');
  const cachedWrite = n('cachedWriteTokens');
  return {
    ...usage,
    ...(thought !== undefined ? { thoughtTokens: thought } : {}),
    ...(cachedRead !== undefined ? { cachedReadTokens: cachedRead } : {}),
    ...(cachedWrite !== undefined ? { cachedWriteTokens: cachedWrite } : {}),
  };
}

/** This turn's tokens from a cumulative report: the difference to the previous report. */
export function usageDelta(current: TokenUsage, previous: TokenUsage | undefined): TokenUsage {
  if (previous === undefined) {
    return current;
  }
  const d = (a: number | undefined, b: number | undefined): number | undefined =>
    a === undefined ? undefined : Math.max(0, a - (b ?? 0));
  const out: TokenUsage = {
    inputTokens: Math.max(0, current.inputTokens - previous.inputTokens),
    outputTokens: Math.max(0, current.outputTokens - previous.outputTokens),
    totalTokens: Math.max(0, current.totalTokens - previous.totalTokens),
  };
  const thought = d(current.thoughtTokens, previous.thoughtTokens);
  const cachedRead = d(current.cachedReadTokens, previous.cachedReadTokens);
  const cachedWrite = d(current.cachedWriteTokens, previous.cachedWriteTokens);
  return {
    ...out,
    ...(thought !== undefined ? { thoughtTokens: thought } : {}),
    ...(cachedRead !== undefined ? { cachedReadTokens: cachedRead } : {}),
    ...(cachedWrite !== undefined ? { cachedWriteTokens: cachedWrite } : {}),
  };
}
