/** Anthropic Messages (`POST /v1/messages`): Claude Agent ACP (Claude Code). */
import type { ServerResponse } from 'node:http';
import { arr, isObject, shorten, str, textOf, type JsonObject, type ModelRequest, type OfferedTool, type ReplyWriter, type Usage } from '../modelTypes';
import { paced, retryHeaders, sendJson, SseStream, wholeText } from './http';

function blocks(content: unknown): JsonObject[] {
  return typeof content === 'string' ? [{ type: 'text', text: content }] : arr(content).filter(isObject);
}

export function parseAnthropic(body: JsonObject, bodyBytes: number): ModelRequest {
  const tools: OfferedTool[] = [];
  for (const t of arr(body.tools).filter(isObject)) {
    const name = str(t.name);
    if (name !== undefined) {
      tools.push({ name, parameters: isObject(t.input_schema) ? t.input_schema : undefined, freeform: false });
    }
  }
  const messages = arr(body.messages).filter(isObject);
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user' && !blocks(m.content).some((b) => b.type === 'tool_result')) {
      lastUser = i;
    }
  });
  const toolResults = messages
    .slice(lastUser + 1)
    .flatMap((m) => blocks(m.content))
    .filter((b) => b.type === 'tool_result')
    .map((b) => shorten(textOf(b.content)));
  const userText = lastUser >= 0 ? blocks(messages[lastUser]?.content).filter((b) => b.type === 'text').map((b) => str(b.text) ?? '') : [];
  return {
    api: 'anthropic',
    model: str(body.model) ?? '',
    stream: body.stream === true,
    tools,
    lastUserText: userText.join('\n'),
    toolResults,
    json: undefined,
    bodyBytes,
  };
}

const errorTypes: Record<number, string> = {
  400: 'invalid_request_error',
  401: 'authentication_error',
  429: 'rate_limit_error',
  529: 'overloaded_error',
};

export function anthropicWriter(res: ServerResponse, req: ModelRequest, id: string): ReplyWriter {
  const message = (content: JsonObject[], stop: string | null, usage: Usage): JsonObject => ({
    id,
    type: 'message',
    role: 'assistant',
    model: req.model,
    content,
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: usage.input, output_tokens: usage.output, cache_creation_input_tokens: 0, cache_read_input_tokens: 0 },
  });
  const open = (usage: Usage): SseStream => {
    const s = new SseStream(res);
    s.event({ type: 'message_start', message: message([], null, { input: usage.input, output: 1 }) }, 'message_start');
    return s;
  };
  const close = (s: SseStream, stop: string, usage: Usage): void => {
    s.event({ type: 'message_delta', delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: usage.output } }, 'message_delta');
    s.event({ type: 'message_stop' }, 'message_stop');
    s.end();
  };
  const block = (s: SseStream, start: JsonObject, deltas: JsonObject[]): void => {
    s.event({ type: 'content_block_start', index: 0, content_block: start }, 'content_block_start');
    for (const delta of deltas) {
      s.event({ type: 'content_block_delta', index: 0, delta }, 'content_block_delta');
    }
    s.event({ type: 'content_block_stop', index: 0 }, 'content_block_stop');
  };
  return {
    stream: req.stream,
    async text(chunks, delayMs, usage) {
      if (!req.stream) {
        return wholeText(chunks, delayMs, (text) => sendJson(res, 200, message([{ type: 'text', text }], 'end_turn', usage)));
      }
      const s = open(usage);
      s.event({ type: 'content_block_start', index: 0, content_block: { type: 'text', text: '' } }, 'content_block_start');
      if (!(await paced(s, chunks, delayMs, (text) => s.event({ type: 'content_block_delta', index: 0, delta: { type: 'text_delta', text } }, 'content_block_delta')))) {
        return;
      }
      s.event({ type: 'content_block_stop', index: 0 }, 'content_block_stop');
      close(s, 'end_turn', usage);
    },
    json(value, usage) {
      void this.text([JSON.stringify(value)], 0, usage);
    },
    tool(call, usage) {
      const input = call.kind === 'function' ? call.args : { input: call.input };
      if (!req.stream) {
        sendJson(res, 200, message([{ type: 'tool_use', id: call.id, name: call.name, input }], 'tool_use', usage));
        return;
      }
      const s = open(usage);
      const json = JSON.stringify(input);
      const cut = Math.floor(json.length / 2);
      block(s, { type: 'tool_use', id: call.id, name: call.name, input: {} }, [
        { type: 'input_json_delta', partial_json: json.slice(0, cut) },
        { type: 'input_json_delta', partial_json: json.slice(cut) },
      ]);
      close(s, 'tool_use', usage);
    },
    error(status, message, retryAfterSec) {
      const type = errorTypes[status] ?? 'api_error';
      sendJson(res, status, { type: 'error', error: { type, message } }, retryHeaders(retryAfterSec));
    },
  };
}
