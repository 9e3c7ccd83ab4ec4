/**
 * The model server's vocabulary: one normalized request whatever API it came in on, and one reply
 * the scenario script chose, rendered back in that API's own shape by `wire/*.ts`.
 */

export type JsonObject = Record<string, unknown>;

/** The four model APIs the agents of `reference/agents-in-the-wild.md` speak. */
export type Api = 'openai-chat' | 'openai-responses' | 'anthropic' | 'gemini';

export interface OfferedTool {
  readonly name: string;
  /** JSON Schema of the arguments; undefined for a freeform tool. */
  readonly parameters: JsonObject | undefined;
  /** A freeform ("custom") tool whose input is one string: Codex's `apply_patch` on the Responses API. */
  readonly freeform: boolean;
}

export interface ModelRequest {
  readonly api: Api;
  readonly model: string;
  readonly stream: boolean;
  readonly tools: readonly OfferedTool[];
  /** Text of the last user message that is not a tool result. */
  readonly lastUserText: string;
  /** Tool results sent after that user message, oldest first (their text, shortened). */
  readonly toolResults: readonly string[];
  /** The caller asked for a JSON reply (structured output), with this schema when it gave one. */
  readonly json: { readonly schema: JsonObject | undefined } | undefined;
  /** Size of the request body in bytes: the basis of the reported input tokens. */
  readonly bodyBytes: number;
}

export interface FunctionCall {
  readonly kind: 'function';
  readonly id: string;
  readonly name: string;
  readonly args: JsonObject;
}

export interface FreeformCall {
  readonly kind: 'freeform';
  readonly id: string;
  readonly name: string;
  readonly input: string;
}

export type ToolCall = FunctionCall | FreeformCall;

export interface Usage {
  readonly input: number;
  readonly output: number;
}

export type Reply =
  | {
      readonly kind: 'text';
      readonly chunks: readonly string[];
      /** Pause before each chunk ("Retrying"-style slowness, a turn long enough to interrupt). */
      readonly chunkDelayMs: number;
    }
  | { readonly kind: 'json'; readonly value: unknown }
  | { readonly kind: 'tool'; readonly call: ToolCall }
  | {
      readonly kind: 'error';
      readonly status: number;
      readonly message: string;
      /** Seconds for a `Retry-After` header. */
      readonly retryAfterSec?: number;
    };

/** Writes a reply in one API's shape; resolves when the response has ended (or the client left). */
export interface ReplyWriter {
  readonly stream: boolean;
  text(chunks: readonly string[], chunkDelayMs: number, usage: Usage): Promise<void>;
  json(value: unknown, usage: Usage): void;
  tool(call: ToolCall, usage: Usage): void;
  error(status: number, message: string, retryAfterSec: number | undefined): void;
}

export function isObject(v: unknown): v is JsonObject {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function arr(v: unknown): readonly unknown[] {
  return Array.isArray(v) ? v : [];
}

/** Concatenated text of a content value: a string, or an array of parts with `text`. */
export function textOf(v: unknown): string {
  if (typeof v === 'string') {
    return v;
  }
  return arr(v)
    .map((p) => (isObject(p) ? (str(p.text) ?? str(p.content) ?? '') : typeof p === 'string' ? p : ''))
    .join('');
}

export function shorten(s: string, max = 300): string {
  return s.length <= max ? s : `${s.slice(0, max)}…`;
}
