/** OpenAI Chat Completions (`POST …/chat/completions`): Qwen Code, opencode, pi, Cline. */
import type { ServerResponse } from 'node:http';
import { arr, isObject, shorten, str, textOf, type JsonObject, type ModelRequest, type OfferedTool, type ReplyWriter, type ToolCall, type Usage } from '../modelTypes';
import { paced, retryHeaders, sendJson, SseStream, wholeText } from './http';

export function parseChat(body: JsonObject, bodyBytes: number): ModelRequest {
  const tools: OfferedTool[] = [];
  for (const t of arr(body.tools)) {
    const fn = isObject(t) && isObject(t.function) ? t.function : undefined;
    const name = str(fn?.name);
    if (fn !== undefined && name !== undefined) {
      tools.push({ name, parameters: isObject(fn.parameters) ? fn.parameters : undefined, freeform: false });
    }
  }
  const messages = arr(body.messages).filter(isObject);
  let lastUser = -1;
  messages.forEach((m, i) => {
    if (m.role === 'user') {
      lastUser = i;
    }
  });
  const toolResults = messages
    .slice(lastUser + 1)
    .filter((m) => m.role === 'tool')
    .map((m) => shorten(textOf(m.content)));
  const format = isObject(body.response_format) ? body.response_format : undefined;
  const schema = isObject(format?.json_schema) && isObject(format.json_schema.schema) ? format.json_schema.schema : undefined;
  return {
    api: 'openai-chat',
    model: str(body.model) ?? '',
    stream: body.stream === true,
    tools,
    lastUserText: lastUser >= 0 ? textOf(messages[lastUser]?.content) : '',
    toolResults,
    json: format !== undefined && format.type !== 'text' ? { schema } : undefined,
    bodyBytes,
  };
}

function usageBody(u: Usage): JsonObject {
  return { prompt_tokens: u.input, completion_tokens: u.output, total_tokens: u.input + u.output };
}

function toolCallBody(call: ToolCall, index?: number): JsonObject {
  const args = call.kind === 'function' ? JSON.stringify(call.args) : JSON.stringify({ input: call.input });
  return { ...(index !== undefined ? { index } : {}), id: call.id, type: 'function', function: { name: call.name, arguments: args } };
}

export function chatWriter(res: ServerResponse, req: ModelRequest, id: string): ReplyWriter {
  const base = { id, object: 'chat.completion.chunk', created: Math.floor(Date.now() / 1000), model: req.model };
  const chunk = (s: SseStream, delta: JsonObject, finish: string | null, usage?: Usage): void =>
    s.event({ ...base, choices: [{ index: 0, delta, finish_reason: finish }], ...(usage !== undefined ? { usage: usageBody(usage) } : {}) });
  const whole = (message: JsonObject, finish: string, usage: Usage): void =>
    sendJson(res, 200, { ...base, object: 'chat.completion', choices: [{ index: 0, message: { role: 'assistant', ...message }, finish_reason: finish }], usage: usageBody(usage) });
  const done = (s: SseStream): void => {
    s.raw('data: [DONE]\n\n');
    s.end();
  };
  return {
    stream: req.stream,
    async text(chunks, delayMs, usage) {
      if (!req.stream) {
        return wholeText(chunks, delayMs, (content) => whole({ content }, 'stop', usage));
      }
      const s = new SseStream(res);
      chunk(s, { role: 'assistant', content: '' }, null);
      if (await paced(s, chunks, delayMs, (c) => chunk(s, { content: c }, null))) {
        chunk(s, {}, 'stop', usage);
        done(s);
      }
    },
    json(value, usage) {
      const content = JSON.stringify(value);
      if (!req.stream) {
        whole({ content }, 'stop', usage);
        return;
      }
      const s = new SseStream(res);
      chunk(s, { role: 'assistant', content }, null);
      chunk(s, {}, 'stop', usage);
      done(s);
    },
    tool(call, usage) {
      if (!req.stream) {
        whole({ content: null, tool_calls: [toolCallBody(call)] }, 'tool_calls', usage);
        return;
      }
      const s = new SseStream(res);
      const full = toolCallBody(call, 0);
      const fn = isObject(full.function) ? full.function : {};
      const args = str(fn.arguments) ?? '';
      const cut = Math.floor(args.length / 2);
      // Arguments in two fragments, as real providers stream them.
      chunk(s, { role: 'assistant', content: null, tool_calls: [{ ...full, function: { name: call.name, arguments: args.slice(0, cut) } }] }, null);
      chunk(s, { tool_calls: [{ index: 0, function: { arguments: args.slice(cut) } }] }, null);
      chunk(s, {}, 'tool_calls', usage);
      done(s);
    },
    error(status, message, retryAfterSec) {
      const type = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
      sendJson(res, status, { error: { message, type, code: type } }, retryHeaders(retryAfterSec));
    },
  };
}
