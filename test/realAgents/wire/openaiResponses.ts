/** OpenAI Responses (`POST …/responses`): Codex. */
import type { ServerResponse } from 'node:http';
import { arr, isObject, shorten, str, textOf, type JsonObject, type ModelRequest, type OfferedTool, type ReplyWriter, type ToolCall, type Usage } from '../modelTypes';
import { paced, retryHeaders, sendJson, SseStream, wholeText } from './http';

const toolOutputTypes = new Set(['function_call_output', 'custom_tool_call_output', 'local_shell_call_output']);

export function parseResponses(body: JsonObject, bodyBytes: number): ModelRequest {
  const tools: OfferedTool[] = [];
  for (const t of arr(body.tools).filter(isObject)) {
    const name = str(t.name) ?? str(t.type);
    if (name !== undefined) {
      tools.push({ name, parameters: isObject(t.parameters) ? t.parameters : undefined, freeform: t.type === 'custom' });
    }
  }
  const items = typeof body.input === 'string' ? [{ role: 'user', content: body.input }] : arr(body.input).filter(isObject);
  let lastUser = -1;
  items.forEach((item, i) => {
    if (item.role === 'user') {
      lastUser = i;
    }
  });
  const toolResults = items
    .slice(lastUser + 1)
    .filter((item) => toolOutputTypes.has(str(item.type) ?? ''))
    .map((item) => shorten(typeof item.output === 'string' ? item.output : JSON.stringify(item.output ?? '')));
  const format = isObject(body.text) && isObject(body.text.format) ? body.text.format : undefined;
  return {
    api: 'openai-responses',
    model: str(body.model) ?? '',
    stream: body.stream === true,
    tools,
    lastUserText: lastUser >= 0 ? textOf(items[lastUser]?.content) : '',
    toolResults,
    json: format !== undefined && format.type !== 'text' ? { schema: isObject(format.schema) ? format.schema : undefined } : undefined,
    bodyBytes,
  };
}

function usageBody(u: Usage): JsonObject {
  return {
    input_tokens: u.input,
    input_tokens_details: { cached_tokens: 0 },
    output_tokens: u.output,
    output_tokens_details: { reasoning_tokens: 0 },
    total_tokens: u.input + u.output,
  };
}

function callItem(call: ToolCall): JsonObject {
  return call.kind === 'function'
    ? { type: 'function_call', id: `fc_${call.id}`, call_id: call.id, name: call.name, arguments: JSON.stringify(call.args), status: 'completed' }
    : { type: 'custom_tool_call', id: `ctc_${call.id}`, call_id: call.id, name: call.name, input: call.input, status: 'completed' };
}

function messageItem(id: string, text: string): JsonObject {
  return { type: 'message', id, role: 'assistant', status: 'completed', content: [{ type: 'output_text', text, annotations: [] }] };
}

export function responsesWriter(res: ServerResponse, req: ModelRequest, id: string): ReplyWriter {
  let seq = 0;
  const response = (status: string, output: JsonObject[], usage?: Usage): JsonObject => ({
    id,
    object: 'response',
    created_at: Math.floor(Date.now() / 1000),
    status,
    model: req.model,
    output,
    ...(usage !== undefined ? { usage: usageBody(usage) } : {}),
  });
  const ev = (s: SseStream, type: string, fields: JsonObject): void => s.event({ type, sequence_number: seq++, ...fields }, type);
  const open = (): SseStream => {
    const s = new SseStream(res);
    ev(s, 'response.created', { response: response('in_progress', []) });
    ev(s, 'response.in_progress', { response: response('in_progress', []) });
    return s;
  };
  const close = (s: SseStream, output: JsonObject[], usage: Usage): void => {
    ev(s, 'response.completed', { response: response('completed', output, usage) });
    s.end();
  };
  const itemDone = (s: SseStream, item: JsonObject): void => {
    ev(s, 'response.output_item.added', { output_index: 0, item: { ...item, status: 'in_progress' } });
    ev(s, 'response.output_item.done', { output_index: 0, item });
  };
  return {
    stream: req.stream,
    async text(chunks, delayMs, usage) {
      const msgId = `msg_${id}`;
      const full = chunks.join('');
      if (!req.stream) {
        return wholeText(chunks, delayMs, (text) => sendJson(res, 200, response('completed', [messageItem(msgId, text)], usage)));
      }
      const s = open();
      ev(s, 'response.output_item.added', { output_index: 0, item: { type: 'message', id: msgId, role: 'assistant', status: 'in_progress', content: [] } });
      ev(s, 'response.content_part.added', { item_id: msgId, output_index: 0, content_index: 0, part: { type: 'output_text', text: '', annotations: [] } });
      const ok = await paced(s, chunks, delayMs, (delta) => ev(s, 'response.output_text.delta', { item_id: msgId, output_index: 0, content_index: 0, delta }));
      if (!ok) {
        return;
      }
      ev(s, 'response.output_text.done', { item_id: msgId, output_index: 0, content_index: 0, text: full });
      ev(s, 'response.content_part.done', { item_id: msgId, output_index: 0, content_index: 0, part: { type: 'output_text', text: full, annotations: [] } });
      ev(s, 'response.output_item.done', { output_index: 0, item: messageItem(msgId, full) });
      close(s, [messageItem(msgId, full)], usage);
    },
    json(value, usage) {
      void this.text([JSON.stringify(value)], 0, usage);
    },
    tool(call, usage) {
      const item = callItem(call);
      if (!req.stream) {
        sendJson(res, 200, response('completed', [item], usage));
        return;
      }
      const s = open();
      itemDone(s, item);
      close(s, [item], usage);
    },
    error(status, message, retryAfterSec) {
      const code = status === 429 ? 'rate_limit_exceeded' : status >= 500 ? 'server_error' : 'invalid_request_error';
      sendJson(res, status, { error: { message, type: code, code, param: null } }, retryHeaders(retryAfterSec));
    },
  };
}
