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
 * Hermes reports provider failures as assistant text with `end_turn` (Hermes 0.19, observed in
 * test/fixtures/hermes/ratelimit.jsonl):
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
    // "HTTP 503", "status: 429", a detail that starts with the status (Qwen Code: "500 …"), or
    // Claude Agent's "API Error: 500 {json}" (the real-agents rig, 2026-12-02: exit 1 instead of 75).
    const m = /\b(?:HTTP|status)[ :]*(\d{3})\b/i.exec(text) ?? /(?:^|: )([45]\d\d) [A-Za-z]/.exec(text) ?? /\bAPI Error: ([45]\d\d)\b/.exec(text);
    if (m !== null) {
      status = Number(m[1]);
    }
  }
  if (status !== undefined) {
    return classify(status, text);
  }
  const codex = isObject(data) && typeof data.codex_error_info === 'string' ? codexErrors[data.codex_error_info] : undefined;
  if (codex !== undefined) {
    return { ...codex, message: text };
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

/**
 * Codex ACP's `data.codex_error_info` (codex-acp 0.16.0): the provider failure without an HTTP
 * status, e.g. "We're currently experiencing high demand…" with `internal_server_error`.
 */
const codexErrors: Readonly<Record<string, Omit<ProviderFailure, 'message'>>> = {
  internal_server_error: { kind: 'server', transient: true },
  server_overloaded: { kind: 'overloaded', transient: true },
  usage_limit_exceeded: { kind: 'billing', transient: true },
  http_connection_failed: { kind: 'timeout', transient: true },
  response_stream_connection_failed: { kind: 'timeout', transient: true },
  response_stream_disconnected: { kind: 'timeout', transient: true },
  response_too_many_failed_attempts: { kind: 'server', transient: true },
  unauthorized: { kind: 'auth', transient: false },
  bad_request: { kind: 'other', transient: false },
  context_window_exceeded: { kind: 'other', transient: false },
};

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
 * The provider failure a turn's reply reports, for a turn that ended with `end_turn`: Hermes'
 * "API call failed after 3 retries: HTTP 500: …", or retry notices and nothing else (pi). The
 * runner's verdict (cli/exitCodes.ts) and the chat's turn footer (slices/turnSlice.ts) both read it,
 * so a turn the runner exits 75 for is never "Completed" in the chat.
 */
export function replyProviderFailure(text: string): ProviderFailure | undefined {
  const said = detectProviderFailureText(text);
  if (said !== undefined || !isRetryOnlyText(text)) {
    return said;
  }
  const line = text.trim().split('\n').filter((l) => l.trim() !== '').at(-1)?.trim() ?? text.trim();
  return detectProviderFailureInLog(text) ?? { kind: 'other', message: line.slice(0, 300), transient: true };
}

/**
 * A reply that ends in retry notices, as pi streams them before giving up on the provider
 * (agents-in-the-wild.md: "Retrying (attempt n/3, waiting Ns)..." then `end_turn`; the rig saw
 * "pi v1.6.0\n---\n" before and "Retry finished, resuming." after them, and no answer).
 */
export function isRetryOnlyText(text: string): boolean {
  const notice = /\bretrying(?:\s*\([^)\n]*\))?\s*(?:\.\.\.|…)/gi;
  let last: RegExpExecArray | null = null;
  for (let m = notice.exec(text); m !== null; m = notice.exec(text)) {
    last = m;
  }
  if (last === null) {
    return false;
  }
  // Nothing said after the last notice but pi's "Retry finished, resuming.": no answer came.
  const after = text.slice(last.index + last[0].length).replace(/retry finished[^.\n]*\.?/gi, '');
  return after.trim() === '';
}
