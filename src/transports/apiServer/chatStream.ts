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
}

/**
 * Translates Hermes' chat-completions SSE (`gateway/platforms/api_server_openai_routes.py` at
 * 0041c5c0b9ea) into ACP updates. `chat.completion.chunk` deltas are the assistant's text; the
 * custom `event: hermes.tool.progress` frames — `{tool, emoji, label, toolCallId, status}` — are
 * tool calls and never part of the text. `running` opens a call; `completed` is a lifecycle marker,
 * not success (a failed or timed-out tool also reports it, and this stream carries no result), so
 * the call is not marked `completed` (ACP: "completed successfully"): the turn's end closes it as
 * "ended without a result", and the marker rides in `_meta.hermes.toolProgress`.
 */
export class ChatStreamTranslator {
  private text = '';
  private finishReason: string | undefined;
  private error: string | undefined;
  private done = false;

  constructor(private readonly emit: (update: acp.SessionUpdate) => void) {}

  get result(): ChatStreamEnd {
    return { finishReason: this.finishReason, error: this.error, text: this.text, done: this.done };
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
      this.emit({
        sessionUpdate: 'tool_call',
        toolCallId: id,
        title: label !== '' ? label : id,
        ...(tool !== '' ? { name: tool } : {}),
        kind: toolKind(tool),
        status: 'in_progress',
        // The frame as received: the session keeps rawInput, so the card can show emoji and label.
        rawInput: { tool, emoji, label },
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
