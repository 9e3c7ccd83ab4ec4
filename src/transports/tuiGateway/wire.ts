import { isObject, type JsonObject } from '../../util/json';

/**
 * The Hermes TUI Gateway wire format, read from NousResearch/hermes-agent (never copied):
 * `tui_gateway/contracts/{events,sessions,prompt_voice,server_requests,common}.py` at
 * 08757920b414 / 00b7f16b4383 / 1f7abf13f551 / 06c49af03c87 / 07b21a0f4dcb, `tui_gateway/ws.py`
 * at 0182f38ade98, `tui_gateway/entry.py` at 01a270a0302b, `ui-tui/src/gatewayClient.ts` at
 * 00067189dfec and `website/docs/developer-guide/programmatic-integration.md` at b502c4c6f381.
 *
 * Frames are JSON-RPC 2.0, one per line (stdio) or per WebSocket message. Events are notifications
 * `{"method":"event","params":{"type","session_id","payload"}}`; questions for the user are
 * requests from the gateway with a string id. Parsers here narrow from `unknown` and drop what
 * they cannot read rather than throw: a newer gateway adds fields all the time.
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

export function epochToIso(seconds: unknown): string | undefined {
  return typeof seconds === 'number' && Number.isFinite(seconds) && seconds > 0 ? new Date(seconds * 1000).toISOString() : undefined;
}
