import { isObject } from '../util/json';

/** A failure of the model provider behind the agent (not of the agent or the client). */
export interface ProviderFailure {
  readonly kind: 'rateLimit' | 'overloaded' | 'server' | 'timeout' | 'billing' | 'auth' | 'other';
  readonly httpStatus?: number;
  readonly message: string;
  /** Worth retrying later (rate limits, overload, 5xx, timeouts, quota/billing walls). */
  readonly transient: boolean;
}

/**
 * Hermes reports provider failures as assistant text with `end_turn` (reference/hermes-acp.md §11):
 * "API call failed after 3 retries: HTTP 429: …", or an immediate "HTTP 401: …".
 */
const hermesText = /^\s*(?:API call failed after \d+ retries: )?HTTP (\d{3}): ?(.*)$/s;

export function detectProviderFailureText(text: string): ProviderFailure | undefined {
  const m = hermesText.exec(text);
  if (m === null) {
    return undefined;
  }
  const status = Number(m[1]);
  return classify(status, (m[2] ?? '').trim() || text.trim());
}

/**
 * Classifies a JSON-RPC error from `session/prompt`: agents put the provider's status in
 * `data.httpStatus`/`data.status`, in the message, or (Gemini) in the JSON-RPC code itself.
 */
export function classifyRpcFailure(e: { readonly code: number; readonly message: string; readonly data?: unknown }): ProviderFailure | undefined {
  const data = e.data;
  let status: number | undefined;
  let text = e.message;
  if (isObject(data)) {
    for (const key of ['httpStatus', 'status', 'statusCode']) {
      const v = data[key];
      if (typeof v === 'number') {
        status = v;
      }
    }
    for (const key of ['message', 'details', 'error']) {
      const v = data[key];
      if (typeof v === 'string') {
        text = `${text}: ${v}`;
      } else if (isObject(v) && typeof v.message === 'string') {
        text = `${text}: ${v.message}`;
      }
    }
  } else if (typeof data === 'string') {
    text = `${text}: ${data}`;
  }
  if (status === undefined && e.code >= 400 && e.code < 600) {
    status = e.code; // Gemini CLI uses the HTTP status as the JSON-RPC code
  }
  if (status === undefined) {
    const m = /\b(?:HTTP|status)[ :]*(\d{3})\b/i.exec(text);
    if (m !== null) {
      status = Number(m[1]);
    }
  }
  if (status !== undefined) {
    return classify(status, text);
  }
  if (/rate.?limit|too many requests/i.test(text)) {
    return { kind: 'rateLimit', message: text, transient: true };
  }
  if (/overloaded/i.test(text)) {
    return { kind: 'overloaded', message: text, transient: true };
  }
  if (/timed? ?out|timeout/i.test(text)) {
    return { kind: 'timeout', message: text, transient: true };
  }
  if (/quota|billing|insufficient.?(?:funds|credit)/i.test(text)) {
    return { kind: 'billing', message: text, transient: true };
  }
  return undefined;
}

function classify(status: number, message: string): ProviderFailure {
  if (status === 429) {
    return /quota|billing|credit/i.test(message)
      ? { kind: 'billing', httpStatus: status, message, transient: true }
      : { kind: 'rateLimit', httpStatus: status, message, transient: true };
  }
  if (status === 402) {
    return { kind: 'billing', httpStatus: status, message, transient: true };
  }
  if (status === 529 || /overloaded/i.test(message)) {
    return { kind: 'overloaded', httpStatus: status, message, transient: true };
  }
  if (status === 408 || status === 504) {
    return { kind: 'timeout', httpStatus: status, message, transient: true };
  }
  if (status >= 500) {
    return { kind: 'server', httpStatus: status, message, transient: true };
  }
  if (status === 401 || status === 403) {
    return { kind: 'auth', httpStatus: status, message, transient: false };
  }
  return { kind: 'other', httpStatus: status, message, transient: false };
}

/**
 * Provider-failure signals in free text: an agent's stderr, or a reply that says nothing else.
 * Stricter than {@link classifyRpcFailure} because logs mention numbers and words freely: only a
 * 4xx/5xx status next to `HTTP`/`status`/`error`, or an explicit rate-limit, overload or quota phrase.
 * The message is the line that said so.
 */
export function detectProviderFailureInLog(text: string): ProviderFailure | undefined {
  for (const line of text.split('\n').reverse()) {
    const status = /\b(?:HTTP(?:\/\d(?:\.\d)?)?|status(?:\s*code)?|error|code)[\s:=]*([45]\d\d)\b/i.exec(line) ?? /\b(429|5\d\d)\s+(?:Too Many Requests|Internal Server Error|Bad Gateway|Service Unavailable|Gateway Timeout)/i.exec(line);
    const message = line.trim().slice(0, 300);
    if (status !== null) {
      return classify(Number(status[1]), message);
    }
    if (/rate.?limit(?:ed)?\b|too many requests/i.test(line)) {
      return { kind: 'rateLimit', message, transient: true };
    }
    if (/\boverloaded\b/i.test(line)) {
      return { kind: 'overloaded', message, transient: true };
    }
    if (/\b(?:quota|billing)\b|insufficient.?(?:funds|credit)/i.test(line)) {
      return { kind: 'billing', message, transient: true };
    }
  }
  return undefined;
}

/**
 * A reply made only of retry notices, as pi streams them before giving up on the provider
 * (agents-in-the-wild.md: "Retrying (attempt n/3, waiting Ns)..." then `end_turn`).
 */
export function isRetryOnlyText(text: string): boolean {
  const notice = /\bretrying(?:\s*\([^)\n]*\))?\s*(?:\.\.\.|…)/gi;
  return text.search(notice) >= 0 && text.replace(notice, '').trim() === '';
}
