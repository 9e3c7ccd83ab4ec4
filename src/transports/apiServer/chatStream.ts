import type * as acp from '@agentclientprotocol/sdk';
import { isObject, type JsonObject } from '../../util/json';
import { toolKind } from '../tuiGateway/eventMapper';
import type { SseEvent } from './sse';

/** How a chat-completion stream ended. */
export interface ChatStreamEnd {
  /** `stop`, `length`, `error`, … or undefined when the stream stopped without a finish chunk. */
  readonly finishReason: string | undefined;
  readonly error: string | undefined;
  readonly text: string;
  readonly done: boolean;
  /** The last chunk's `usage` (summed over the request's model calls), as ACP `usage`. */
  readonly usage: TokenCounts | undefined;
  /** The `toolCallId`s of the calls this stream opened, in order. */
  readonly toolCallIds: readonly string[];
}

/** Token counts in ACP's `PromptResponse.usage` shape. */
export interface TokenCounts {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
}

/** OpenAI's `usage {prompt_tokens, completion_tokens, total_tokens}` / the runs API's `{input_tokens, output_tokens, total_tokens}`. */
export function parseTokenCounts(raw: unknown): TokenCounts | undefined {
  if (!isObject(raw)) {
    return undefined;
  }
  const n = (...keys: string[]): number | undefined => keys.map((k) => raw[k]).find((v): v is number => typeof v === 'number' && Number.isFinite(v) && v >= 0);
  const input = n('prompt_tokens', 'input_tokens');
  const output = n('completion_tokens', 'output_tokens');
  if (input === undefined && output === undefined) {
    return undefined;
  }
  return { inputTokens: input ?? 0, outputTokens: output ?? 0, totalTokens: n('total_tokens') ?? (input ?? 0) + (output ?? 0) };
}

/**
 * Translates Hermes' chat-completions SSE (`gateway/platforms/api_server_openai_routes.py` at
 * 0041c5c0b9ea; recorded from v0.19.0 in test/fixtures/hermes-api-server/) into ACP updates. `chat.completion.chunk` deltas are the assistant's text; the
 * custom `event: hermes.tool.progress` frames — `{tool, emoji, label, toolCallId, status}` — are
 * tool calls and never part of the text. `running` opens a call; `completed` is a lifecycle marker,
 * not success (a failed or timed-out tool also reports it, and this stream carries no result), so
 * the call is not marked `completed` (ACP: "completed successfully"), and the marker rides in
 * `_meta.hermes.toolProgress`. The stream carries no arguments either (the `label` is a preview):
 * the connection reads both from the session Hermes stored (sessionMessages.ts) once the stream
 * ended; without it the turn's end closes the call as "ended without a result".
 */
export class ChatStreamTranslator {
  private text = '';
  private finishReason: string | undefined;
  private error: string | undefined;
  private done = false;
  private usage: TokenCounts | undefined;
  private readonly toolCallIds: string[] = [];

  constructor(private readonly emit: (update: acp.SessionUpdate) => void) {}

  get result(): ChatStreamEnd {
    return { finishReason: this.finishReason, error: this.error, text: this.text, done: this.done, usage: this.usage, toolCallIds: this.toolCallIds };
  }

  onEvent(e: SseEvent): void {
    if (e.event === 'hermes.tool.progress') {
      const p = parse(e.data);
      if (p !== undefined) {
        this.toolProgress(p);
      }
      return;
    }
    if (e.event !== undefined) {
      return; // other named events are not chat chunks (HTML SSE: only unnamed frames are "message")
    }
    if (e.data.trim() === '[DONE]') {
      this.done = true;
      return;
    }
    const chunk = parse(e.data);
    if (chunk === undefined) {
      return;
    }
    if (isObject(chunk.error) && typeof chunk.error.message === 'string') {
      this.error = chunk.error.message;
    }
    this.usage = parseTokenCounts(chunk.usage) ?? this.usage;
    const choice = Array.isArray(chunk.choices) && isObject(chunk.choices[0]) ? chunk.choices[0] : undefined;
    if (choice === undefined) {
      return;
    }
    const delta = isObject(choice.delta) ? choice.delta : {};
    const reasoning = typeof delta.reasoning_content === 'string' ? delta.reasoning_content : typeof delta.reasoning === 'string' ? delta.reasoning : '';
    if (reasoning !== '') {
      this.emit({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: reasoning } });
    }
    if (typeof delta.content === 'string' && delta.content !== '') {
      this.text += delta.content;
      this.emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: delta.content } });
    }
    if (typeof choice.finish_reason === 'string') {
      this.finishReason = choice.finish_reason;
    }
  }

  private toolProgress(p: JsonObject): void {
    const id = typeof p.toolCallId === 'string' ? p.toolCallId : undefined;
    if (id === undefined) {
      return;
    }
    const tool = typeof p.tool === 'string' ? p.tool : '';
    if (p.status === 'running') {
      const emoji = typeof p.emoji === 'string' ? p.emoji : '';
      const label = typeof p.label === 'string' && p.label !== '' ? p.label : tool;
      if (!this.toolCallIds.includes(id)) {
        this.toolCallIds.push(id);
      }
      this.emit({
        sessionUpdate: 'tool_call',
        toolCallId: id,
        title: label !== '' ? label : id,
        ...(tool !== '' ? { name: tool } : {}),
        kind: toolKind(tool),
        status: 'in_progress',
        // Emoji and label reach the card through `_meta`; they are not the call's arguments.
        _meta: { hermes: { toolProgress: { tool, emoji, label, status: 'running' } } },
      });
    } else if (p.status === 'completed') {
      this.emit({ sessionUpdate: 'tool_call_update', toolCallId: id, _meta: { hermes: { toolProgress: { tool, status: 'completed' } } } });
    }
  }
}

function parse(data: string): JsonObject | undefined {
  try {
    const v = JSON.parse(data) as unknown;
    return isObject(v) ? v : undefined;
  } catch {
    return undefined;
  }
}
