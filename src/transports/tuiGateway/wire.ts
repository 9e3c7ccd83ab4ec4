import { isObject, type JsonObject } from '../../util/json';

/**
 * The Hermes TUI Gateway wire format, read from NousResearch/hermes-agent (never copied):
 * `tui_gateway/contracts/{events,sessions,prompt_voice,server_requests,common}.py` at
 * 08757920b414 / 00b7f16b4383 / 1f7abf13f551 / 06c49af03c87 / 07b21a0f4dcb, `tui_gateway/ws.py`
 * at 0182f38ade98, `tui_gateway/entry.py` at 01a270a0302b, `ui-tui/src/gatewayClient.ts` at
 * 00067189dfec and `website/docs/developer-guide/programmatic-integration.md` at b502c4c6f381.
 *
 * Frames are JSON-RPC 2.0, one per line (stdio) or per WebSocket message. Events are notifications
 * `{"method":"event","params":{"type","session_id","payload"}}`. Two generations exist: the newer
 * one (documented; the revisions above) asks the user through requests from the gateway with a
 * string id once the client sent `client.capabilities {server_requests: true}`; Hermes v0.19.0
 * (`15dc65ee`, recorded in test/fixtures/hermes-gateway/) has no `client.capabilities` (-32601)
 * and asks through events answered by `*.respond` calls (eventQuestions.ts). Parsers here narrow
 * from `unknown` and drop what they cannot read rather than throw: a newer gateway adds fields all
 * the time.
 */

export const GatewayCode = {
  methodNotFound: -32601,
  /** `session.create`: model/provider mismatch, `data {model, provider, suggestions}`. */
  invalidParams: -32602,
  /** Truncation without `confirm_truncate` / without a target. */
  needsConfirm: 4004,
  /** A truncating submit while a turn runs: interrupt, then retry the same submit. */
  busy: 4009,
  /** A stale or unknown `truncate_before_row_id` (no fallback to the ordinal). */
  staleRow: 4018,
  /** Truncation refused for another consent reason (empty cut without `confirm_empty_truncate`). */
  truncateRefused: 4029,
  /** Ordinal and row id both given and disagreeing. */
  targetMismatch: 4030,
  /** A cut archiving more than one user turn without `confirm_deep_truncate`. */
  deepCut: 4033,
} as const;

export interface GatewayEvent {
  readonly type: string;
  readonly sessionId: string | undefined;
  readonly payload: JsonObject;
}

export function parseEvent(params: unknown): GatewayEvent | undefined {
  if (!isObject(params) || typeof params.type !== 'string') {
    return undefined;
  }
  return {
    type: params.type,
    sessionId: typeof params.session_id === 'string' ? params.session_id : undefined,
    payload: isObject(params.payload) ? params.payload : {},
  };
}

/** One transcript row as the gateway projects it (`TranscriptMessage`). */
export interface TranscriptRow {
  readonly role: string;
  readonly text: string;
  readonly rowId?: number;
  /** Display-only rows (`process_complete`, hidden scaffolding) are not user turns. */
  readonly displayKind?: string;
  readonly toolCallId?: string;
  readonly name?: string;
  readonly context?: string;
  readonly args?: JsonObject;
  readonly reasoning?: string;
}

function textOf(value: unknown): string {
  if (typeof value === 'string') {
    return value;
  }
  if (Array.isArray(value)) {
    return value.map((p) => (isObject(p) && typeof p.text === 'string' ? p.text : typeof p === 'string' ? p : '')).join('');
  }
  return value === undefined || value === null ? '' : JSON.stringify(value);
}

export function parseTranscript(raw: unknown): TranscriptRow[] {
  if (!Array.isArray(raw)) {
    return [];
  }
  return raw.flatMap((m): TranscriptRow[] => {
    if (!isObject(m) || typeof m.role !== 'string') {
      return [];
    }
    const rowId = typeof m.row_id === 'number' ? m.row_id : typeof m._row_id === 'number' ? m._row_id : undefined;
    return [
      {
        role: m.role,
        text: typeof m.text === 'string' ? m.text : textOf(m.content),
        ...(rowId !== undefined ? { rowId } : {}),
        ...(typeof m.display_kind === 'string' && m.display_kind !== '' ? { displayKind: m.display_kind } : {}),
        ...(typeof m.tool_call_id === 'string' ? { toolCallId: m.tool_call_id } : {}),
        ...(typeof m.name === 'string' ? { name: m.name } : {}),
        ...(typeof m.context === 'string' ? { context: m.context } : {}),
        ...(isObject(m.args) ? { args: m.args } : {}),
        ...(typeof m.reasoning === 'string' && m.reasoning !== '' ? { reasoning: m.reasoning } : {}),
      },
    ];
  });
}

/** A user turn counts for truncation ordinals only when it is genuine input (docs: display_kind rows are not counted). */
export function isUserTurn(row: TranscriptRow): boolean {
  return row.role === 'user' && row.displayKind === undefined;
}

export interface OpenRequest {
  readonly id: string;
  readonly method: string;
  readonly params: JsonObject;
}

export interface SessionInfo {
  readonly model?: string;
  readonly provider?: string;
  readonly title?: string;
  readonly running?: boolean;
  /** The agent is still being built (v0.19.0 `session.create`); `session.info` follows when it is ready. */
  readonly lazy?: boolean;
}

function parseInfo(raw: unknown): SessionInfo {
  if (!isObject(raw)) {
    return {};
  }
  return {
    ...(typeof raw.model === 'string' && raw.model !== '' ? { model: raw.model } : {}),
    ...(typeof raw.provider === 'string' && raw.provider !== '' ? { provider: raw.provider } : {}),
    ...(typeof raw.title === 'string' && raw.title !== '' ? { title: raw.title } : {}),
    ...(typeof raw.running === 'boolean' ? { running: raw.running } : {}),
    ...(raw.lazy === true ? { lazy: true } : {}),
  };
}

/** `session.create` / `session.resume` / `session.activate` / `session.branch` results (`LiveSessionSnapshot`). */
export interface SessionSnapshot {
  readonly sessionId: string;
  readonly storedSessionId?: string;
  readonly messages: readonly TranscriptRow[];
  readonly info: SessionInfo;
  readonly running: boolean;
  readonly inflight?: { readonly user: string; readonly assistant: string; readonly streaming: boolean };
  readonly openRequests: readonly OpenRequest[];
}

export function parseSnapshot(raw: unknown): SessionSnapshot | undefined {
  if (!isObject(raw) || typeof raw.session_id !== 'string') {
    return undefined;
  }
  const info = parseInfo(raw.info);
  const inflight = isObject(raw.inflight) ? raw.inflight : undefined;
  const openRequests = Array.isArray(raw.open_requests)
    ? raw.open_requests.flatMap((r): OpenRequest[] =>
        isObject(r) && typeof r.id === 'string' && typeof r.method === 'string' ? [{ id: r.id, method: r.method, params: isObject(r.params) ? r.params : {} }] : [],
      )
    : [];
  return {
    sessionId: raw.session_id,
    ...(typeof raw.stored_session_id === 'string' ? { storedSessionId: raw.stored_session_id } : {}),
    messages: parseTranscript(raw.messages),
    info,
    running: raw.running === true || info.running === true || inflight?.streaming === true,
    ...(inflight !== undefined
      ? { inflight: { user: textOf(inflight.user), assistant: textOf(inflight.assistant), streaming: inflight.streaming === true } }
      : {}),
    openRequests,
  };
}

/** `prompt.submit` result. */
export interface SubmitResult {
  /** `streaming` (started), `queued` (after the running turn), `steered` / `redirected` (folded into it). */
  readonly status: string;
  readonly survivorUserRowIds?: readonly (number | null)[];
}

export function parseSubmit(raw: unknown): SubmitResult {
  const r = isObject(raw) ? raw : {};
  const survivors = Array.isArray(r.survivor_user_row_ids)
    ? r.survivor_user_row_ids.map((v) => (typeof v === 'number' && Number.isInteger(v) ? v : null))
    : undefined;
  return { status: typeof r.status === 'string' ? r.status : 'streaming', ...(survivors !== undefined ? { survivorUserRowIds: survivors } : {}) };
}

/** `-32602` from `session.create`: what the error's data says about the refused pairing. */
export function parseModelMismatch(data: unknown): { model: string; provider: string; suggestions: string[] } | undefined {
  if (!isObject(data) || typeof data.model !== 'string') {
    return undefined;
  }
  const suggestions = Array.isArray(data.suggestions)
    ? data.suggestions.flatMap((s) => (typeof s === 'string' ? [s] : isObject(s) && typeof s.model === 'string' ? [s.model] : [])).slice(0, 5)
    : [];
  return { model: data.model, provider: typeof data.provider === 'string' ? data.provider : '', suggestions };
}

/** Token counts in ACP's `PromptResponse.usage` shape (what `parseUsage` reads). */
export interface GatewayUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly thoughtTokens?: number;
  readonly cachedReadTokens?: number;
  readonly cachedWriteTokens?: number;
}

/**
 * `message.complete.payload.usage` / `session.usage` (recorded: `{input, output, total, reasoning,
 * prompt, completion, calls, context_used, context_max, …}`): cumulative for the live session.
 */
export function parseGatewayUsage(raw: unknown): GatewayUsage | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  const n = (...keys: string[]): number | undefined => {
    for (const k of keys) {
      const v = raw[k];
      if (typeof v === 'number' && Number.isFinite(v) && v >= 0) {
        return v;
      }
    }
    return undefined;
  };
  const input = n('input', 'prompt');
  const output = n('output', 'completion');
  if (input === undefined && output === undefined) {
    return undefined;
  }
  const reasoning = n('reasoning');
  const cacheRead = n('cache_read', 'cache_read_tokens');
  const cacheWrite = n('cache_write', 'cache_write_tokens');
  return {
    inputTokens: input ?? 0,
    outputTokens: output ?? 0,
    totalTokens: n('total') ?? (input ?? 0) + (output ?? 0),
    ...(reasoning !== undefined ? { thoughtTokens: reasoning } : {}),
    ...(cacheRead !== undefined ? { cachedReadTokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cachedWriteTokens: cacheWrite } : {}),
  };
}

/** One turn's tokens from two cumulative reports. */
export function usageSince(current: GatewayUsage, previous: GatewayUsage | undefined): GatewayUsage {
  if (previous === undefined) {
    return current;
  }
  const d = (a: number | undefined, b: number | undefined): number | undefined => (a === undefined ? undefined : Math.max(0, a - (b ?? 0)));
  const thought = d(current.thoughtTokens, previous.thoughtTokens);
  const cacheRead = d(current.cachedReadTokens, previous.cachedReadTokens);
  const cacheWrite = d(current.cachedWriteTokens, previous.cachedWriteTokens);
  return {
    inputTokens: Math.max(0, current.inputTokens - previous.inputTokens),
    outputTokens: Math.max(0, current.outputTokens - previous.outputTokens),
    totalTokens: Math.max(0, current.totalTokens - previous.totalTokens),
    ...(thought !== undefined ? { thoughtTokens: thought } : {}),
    ...(cacheRead !== undefined ? { cachedReadTokens: cacheRead } : {}),
    ...(cacheWrite !== undefined ? { cachedWriteTokens: cacheWrite } : {}),
  };
}

export function epochToIso(seconds: unknown): string | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString() : undefined;
}
