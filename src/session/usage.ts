import { isObject } from '../util/json';
import type { UsageSource } from './agentProfiles';
import { chunkUsageFromMeta } from './metaConventions';
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

/** Every place an agent may report a turn's tokens, in the order an unknown agent's are read. */
export const allUsageSources: readonly UsageSource[] = ['promptUsage', 'promptMetaQuota', 'chunkMetaUsage'];

/** Where a turn's token counts may have arrived. */
export interface TurnUsageReports {
  /** `usage` of the `session/prompt` response (unstable in ACP v1). */
  readonly usage?: unknown;
  /** `_meta` of the `session/prompt` response (Gemini CLI's `quota`). */
  readonly meta?: unknown;
  /** The `_meta.usage` of the turn's message chunks, summed ({@link chunkUsage}). */
  readonly chunks?: TokenUsage | undefined;
}

/**
 * The turn's tokens as the agent reported them, from the first of its sources that holds any: the
 * one reading for the chat's footer and the runner's `result.tokens` (the runner takes the footer).
 * `cumulative`: where the count came from the prompt response's `usage` (Hermes counts the whole session there).
 */
export function turnTokens(sources: readonly UsageSource[], reports: TurnUsageReports): { readonly usage: TokenUsage; readonly source: UsageSource } | undefined {
  for (const source of sources) {
    const found =
      source === 'promptUsage' ? parseUsage(reports.usage) : source === 'promptMetaQuota' ? parseQuotaUsage(reports.meta) : reports.chunks;
    if (found !== undefined) {
      return { usage: found, source };
    }
  }
  return undefined;
}

/** One message chunk's `_meta.usage` added to the turn's sum (Qwen Code sends one per model call). */
export function chunkUsage(sum: TokenUsage | undefined, meta: unknown): TokenUsage | undefined {
  const usage = meta !== undefined && meta !== null ? chunkUsageFromMeta(meta) : undefined;
  return usage === undefined ? sum : addUsage(sum, usage);
}

/** A report of nothing at all (Hermes answers a cancelled turn with every count 0). */
export function isEmptyUsage(u: TokenUsage): boolean {
  return u.inputTokens === 0 && u.outputTokens === 0 && u.totalTokens === 0 && (u.thoughtTokens ?? 0) === 0 && (u.cachedReadTokens ?? 0) === 0;
}

/**
 * This turn's tokens from a cumulative report (Hermes: the session's counts so far, in this agent
 * process): the difference to the previous report. A report below the previous one means the count
 * started again (a new agent process after a restart loads the session with its counters at 0,
 * test/fixtures/hermes/restart.jsonl): then the report is this turn's.
 */
export function usageDelta(current: TokenUsage, previous: TokenUsage | undefined): TokenUsage {
  if (previous === undefined || current.totalTokens < previous.totalTokens || current.inputTokens < previous.inputTokens) {
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
