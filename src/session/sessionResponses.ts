import { isObject } from '../util/json';
import type { ModelState } from './sessionState';

/** The legacy `models` field of a session setup answer (Hermes 0.19, Claude), read leniently. */
export function parseModels(raw: unknown): ModelState | undefined {
  if (!isObject(raw) || typeof raw.currentModelId !== 'string' || !Array.isArray(raw.availableModels)) {
    return undefined;
  }
  const availableModels = (raw.availableModels as unknown[]).flatMap((m) =>
    isObject(m) && typeof m.modelId === 'string'
      ? [{ modelId: m.modelId, name: typeof m.name === 'string' ? m.name : m.modelId, ...(typeof m.description === 'string' ? { description: m.description } : {}) }]
      : [],
  );
  return { currentModelId: raw.currentModelId, availableModels };
}

/** What a failed call says to the user: the agent's `data.details` (Hermes), else the message. */
export function describe(e: unknown): string {
  if (isObject(e) && isObject(e.data) && typeof e.data.details === 'string') {
    return e.data.details;
  }
  if (e instanceof Error) {
    return e.message;
  }
  return String(e);
}
