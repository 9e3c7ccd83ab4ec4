import { isObject } from '../util/json';
import type { TokenUsage } from './sessionState';

/**
 * Vendor `_meta` that means something to the chat (reference/agents-in-the-wild.md, "Where the
 * turn's token counts and the tool's own name live"). ACP's own fields win where they exist.
 */

/** The agent's name for a tool when the stable `name` is absent: Claude Agent ACP `_meta.claudeCode.toolName`, Qwen Code `_meta.toolName`. */
export function toolNameFromMeta(meta: unknown): string | undefined {
  if (!isObject(meta)) {
    return undefined;
  }
  const claude = isObject(meta.claudeCode) ? meta.claudeCode.toolName : undefined;
  const name = typeof claude === 'string' ? claude : meta.toolName;
  return typeof name === 'string' && name !== '' ? name : undefined;
}

/**
 * Qwen Code's token counts, sent as `_meta.usage` on an `agent_message_chunk` (often with empty
 * text) instead of in the prompt response. A sub-agent's frame (`_meta.parentToolCallId`) is not
 * the turn's own. Names vary by provider (`inputTokens`/`promptTokens`, `outputTokens`/`completionTokens`).
 */
export function chunkUsageFromMeta(meta: unknown): TokenUsage | undefined {
  if (!isObject(meta) || !isObject(meta.usage) || meta.parentToolCallId !== undefined) {
    return undefined;
  }
  const u = meta.usage;
  const n = (...keys: string[]): number | undefined => {
    for (const k of keys) {
      const v = u[k];
      if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
        return v;
      }
    }
    return undefined;
  };
  const inputTokens = n('inputTokens', 'promptTokens', 'input_tokens', 'prompt_tokens');
  const outputTokens = n('outputTokens', 'completionTokens', 'candidatesTokens', 'output_tokens', 'completion_tokens');
  const totalTokens = n('totalTokens', 'total_tokens');
  if (inputTokens === undefined && outputTokens === undefined && totalTokens === undefined) {
    return undefined;
  }
  const thought = n('thoughtTokens', 'thoughtsTokens', 'reasoningTokens');
  const cachedRead = n('cachedReadTokens', 'cachedTokens', 'cacheReadInputTokens');
  return {
    inputTokens: inputTokens ?? 0,
    outputTokens: outputTokens ?? 0,
    totalTokens: totalTokens ?? (inputTokens ?? 0) + (outputTokens ?? 0),
    ...(thought !== undefined ? { thoughtTokens: thought } : {}),
    ...(cachedRead !== undefined ? { cachedReadTokens: cachedRead } : {}),
  };
}
