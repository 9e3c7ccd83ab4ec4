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

/**
 * Gemini CLI's per-turn tokens: `_meta.quota.token_count {input_tokens, output_tokens}` of the
 * prompt response (agents-in-the-wild.md, token table). Zeros count as reported.
 */
export function parseQuotaUsage(meta: unknown): TokenUsage | undefined {
  const count = isObject(meta) && isObject(meta.quota) ? meta.quota.token_count : undefined;
  if (!isObject(count)) {
    return undefined;
  }
  const input = count.input_tokens;
  const output = count.output_tokens;
  if (typeof input !== 'number' || typeof output !== 'number' || !Number.isFinite(input) || !Number.isFinite(output)) {
    return undefined;
  }
  return { inputTokens: input, outputTokens: output, totalTokens: input + output };
}

/** Qwen Code's `_meta.usage` on an `agent_message_chunk`: one model call's tokens (ACP usage field names). */
export function parseChunkMetaUsage(meta: unknown): TokenUsage | undefined {
  return isObject(meta) ? parseUsage(meta.usage) : undefined;
}

/** The sum of two reports (several model calls in one turn). */
export function addUsage(a: TokenUsage | undefined, b: TokenUsage): TokenUsage {
  if (a === undefined) {
    return b;
  }
  const opt = (x: number | undefined, y: number | undefined): number | undefined => (x === undefined && y === undefined ? undefined : (x ?? 0) + (y ?? 0));
  const thought = opt(a.thoughtTokens, b.thoughtTokens);
  const cachedRead = opt(a.cachedReadTokens, b.cachedReadTokens);
  const cachedWrite = opt(a.cachedWriteTokens, b.cachedWriteTokens);
  return {
    inputTokens: a.inputTokens + b.inputTokens,
    outputTokens: a.outputTokens + b.outputTokens,
    totalTokens: a.totalTokens + b.totalTokens,
    ...(thought !== undefined ? { thoughtTokens: thought } : {}),
    ...(cachedRead !== undefined ? { cachedReadTokens: cachedRead } : {}),
    ...(cachedWrite !== undefined ? { cachedWriteTokens: cachedWrite } : {}),
  };
}
