/** Google Gemini (`POST /v1beta/models/{model}:generateContent|streamGenerateContent`): Gemini CLI. */
import type { ServerResponse } from 'node:http';
import { arr, isObject, shorten, str, type JsonObject, type ModelRequest, type OfferedTool, type ReplyWriter, type Usage } from '../modelTypes';
import { paced, retryHeaders, sendJson, SseStream, wholeText } from './http';

function parts(content: unknown): JsonObject[] {
  return isObject(content) ? arr(content.parts).filter(isObject) : [];
}

/** `model` and `stream` come from the URL: `…/models/<model>:<method>`. */
export function parseGemini(body: JsonObject, bodyBytes: number, path: string): ModelRequest {
  const match = /models\/([^/:]+):(\w+)/.exec(path);
  const tools: OfferedTool[] = [];
  for (const group of arr(body.tools).filter(isObject)) {
    for (const decl of arr(group.functionDeclarations).filter(isObject)) {
      const name = str(decl.name);
      const params = isObject(decl.parametersJsonSchema) ? decl.parametersJsonSchema : isObject(decl.parameters) ? decl.parameters : undefined;
      if (name !== undefined) {
        tools.push({ name, parameters: params, freeform: false });
      }
    }
  }
  const contents = arr(body.contents).filter(isObject);
  let lastUser = -1;
  contents.forEach((c, i) => {
    if (c.role !== 'model' && !parts(c).some((p) => isObject(p.functionResponse))) {
      lastUser = i;
    }
  });
  const toolResults = contents
    .slice(lastUser + 1)
    .flatMap((c) => parts(c))
    .filter((p) => isObject(p.functionResponse))
    .map((p) => shorten(JSON.stringify(p.functionResponse)));
  const config = isObject(body.generationConfig) ? body.generationConfig : {};
  const schema = isObject(config.responseJsonSchema) ? config.responseJsonSchema : isObject(config.responseSchema) ? config.responseSchema : undefined;
  const wantsJson = config.responseMimeType === 'application/json' || schema !== undefined;
  return {
    api: 'gemini',
    model: match?.[1] ?? '',
    stream: match?.[2] === 'streamGenerateContent',
    tools,
    lastUserText: lastUser >= 0 ? parts(contents[lastUser]).map((p) => str(p.text) ?? '').join('') : '',
    toolResults,
    json: wantsJson ? { schema } : undefined,
    bodyBytes,
  };
}

const statusNames: Record<number, string> = { 400: 'INVALID_ARGUMENT', 429: 'RESOURCE_EXHAUSTED', 500: 'INTERNAL', 503: 'UNAVAILABLE' };

export function geminiWriter(res: ServerResponse, req: ModelRequest, id: string): ReplyWriter {
  const chunk = (modelParts: JsonObject[], finish: string | undefined, usage: Usage | undefined): JsonObject => ({
    candidates: [{ content: { role: 'model', parts: modelParts }, index: 0, ...(finish !== undefined ? { finishReason: finish } : {}) }],
    ...(usage !== undefined
      ? { usageMetadata: { promptTokenCount: usage.input, candidatesTokenCount: usage.output, totalTokenCount: usage.input + usage.output } }
      : {}),
    modelVersion: req.model,
    responseId: id,
  });
  const single = (modelParts: JsonObject[], usage: Usage): void => {
    if (!req.stream) {
      sendJson(res, 200, chunk(modelParts, 'STOP', usage));
      return;
    }
    const s = new SseStream(res);
    s.event(chunk(modelParts, 'STOP', usage));
    s.end();
  };
  return {
    stream: req.stream,
    async text(chunks, delayMs, usage) {
      if (!req.stream) {
        return wholeText(chunks, delayMs, (text) => sendJson(res, 200, chunk([{ text }], 'STOP', usage)));
      }
      const s = new SseStream(res);
      const last = chunks.length - 1;
      let i = 0;
      await paced(s, chunks, delayMs, (text) => {
        s.event(i === last ? chunk([{ text }], 'STOP', usage) : chunk([{ text }], undefined, undefined));
        i++;
      });
      s.end();
    },
    json(value, usage) {
      single([{ text: JSON.stringify(value) }], usage);
    },
    tool(call, usage) {
      const args = call.kind === 'function' ? call.args : { input: call.input };
      single([{ functionCall: { name: call.name, args } }], usage);
    },
    error(status, message, retryAfterSec) {
      sendJson(res, status, { error: { code: status, message, status: statusNames[status] ?? 'UNKNOWN' } }, retryHeaders(retryAfterSec));
    },
  };
}
