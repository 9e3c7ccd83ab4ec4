import { ModelMismatchError } from '../agentPort/transportErrors';
import { isObject } from '../util/json';
import type { Localize } from '../util/l10n';
import { classifyRpcFailure, type ProviderFailure } from './providerErrors';
import type { SessionAction } from './sessionActions';
import type { ModelState } from './sessionState';

/** Per-session model and provider for `session/new` (`_meta.hermes`; the TUI Gateway's `session.create`). */
export interface StartOptions {
  readonly model?: string;
  readonly provider?: string;
}

/** `_meta.hermes {model, provider}` for `session/new`, when either is set. */
export function startMeta(options: StartOptions): { _meta?: { hermes: StartOptions } } {
  const hermes = { ...(options.model !== undefined ? { model: options.model } : {}), ...(options.provider !== undefined ? { provider: options.provider } : {}) };
  return Object.keys(hermes).length > 0 ? { _meta: { hermes } } : {};
}

/**
 * A model/provider pairing the agent refused (TUI Gateway `session.create` -32602) as a notice whose
 * suggestions the user can pick, then start again with that model.
 */
export function mismatchNotice(e: unknown, id: string, at: number, t: Localize): SessionAction | undefined {
  if (!ModelMismatchError.is(e)) {
    return undefined;
  }
  const offered = e.suggestions.length > 0;
  return {
    type: 'noticeAdded',
    id,
    at,
    level: 'error',
    title: t('The provider "{0}" cannot serve the model "{1}".', e.provider, e.model),
    detail: offered ? t('Pick a suggested model to start the session with it.') : e.message,
    ...(offered ? { suggestions: { kind: 'model', model: e.model, provider: e.provider, values: e.suggestions } } : {}),
  };
}

/** The legacy `models` field of a session response (Hermes, Gemini, Qwen), when well-formed. */
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

/** An agent error as the user reads it: ACP's `data.details` when present. */
export function describe(e: unknown): string {
  if (isObject(e) && isObject(e.data) && typeof e.data.details === 'string') {
    return e.data.details;
  }
  if (e instanceof Error) {
    return e.message;
  }
  return String(e);
}

/** A JSON-RPC error of `session/prompt` that reports the model provider's failure (e.g. `data.httpStatus` 500). */
export function providerFailureOf(e: unknown): ProviderFailure | undefined {
  if (!isObject(e) || typeof e.code !== 'number' || typeof e.message !== 'string') {
    return undefined;
  }
  return classifyRpcFailure({ code: e.code, message: e.message, data: e.data });
}
