import type * as acp from '@agentclientprotocol/sdk';
import { isObject, type JsonObject } from '../../util/json';
import type { ApiHttp } from './apiHttp';

/**
 * What the API Server's streams leave out about tool calls — their arguments, and over chat
 * completions their results — read from the session Hermes stored:
 * `GET /api/sessions/{id}/messages` (v0.19.0, recorded in
 * test/fixtures/hermes-api-server/chat-session.jsonl): the assistant's `tool_calls` (`id`,
 * `function.arguments` as JSON text) and the `tool` messages (`tool_call_id`, `content` — the
 * result as JSON text). A dangerous command over chat completions is parked there as
 * `status: "pending_approval"`: it never ran, since that API has no approval channel.
 */

export interface StoredToolCall {
  readonly id: string;
  readonly name: string;
  readonly args: unknown;
  /** The tool message's text, when the result was stored. */
  readonly resultText?: string;
  /** The result parsed as JSON, when it is an object. */
  readonly result?: JsonObject;
}

/** The tool calls after the last user message whose text is `userText` (else after the last user message). */
export async function storedToolCalls(http: ApiHttp, sessionId: string, userText: string): Promise<StoredToolCall[]> {
  const raw = await http.json('GET', `/api/sessions/${encodeURIComponent(sessionId)}/messages`);
  const messages = isObject(raw) && Array.isArray(raw.data) ? raw.data.filter(isObject) : [];
  const users = messages.map((m, i) => ({ m, i })).filter((x) => x.m.role === 'user');
  const start = (users.filter((x) => x.m.content === userText).at(-1) ?? users.at(-1))?.i ?? -1;
  const calls: StoredToolCall[] = [];
  const results = new Map<string, string>();
  for (const m of messages.slice(start + 1)) {
    if (m.role === 'assistant' && Array.isArray(m.tool_calls)) {
      for (const c of m.tool_calls.filter(isObject)) {
        const fn = isObject(c.function) ? c.function : {};
        if (typeof c.id === 'string') {
          calls.push({ id: c.id, name: typeof fn.name === 'string' ? fn.name : '', args: parseJson(fn.arguments) });
        }
      }
    } else if (m.role === 'tool' && typeof m.tool_call_id === 'string' && typeof m.content === 'string') {
      results.set(m.tool_call_id, m.content);
    }
  }
  return calls.map((c) => {
    const text = results.get(c.id);
    if (text === undefined) {
      return c;
    }
    const parsed = parseJson(text);
    return { ...c, resultText: text, ...(isObject(parsed) ? { result: parsed } : {}) };
  });
}

/** Hermes parked the call for an approval nobody can give over this API: it did not run. */
export function isParked(call: StoredToolCall): boolean {
  return call.result?.status === 'pending_approval' || call.result?.approval_pending === true;
}

/**
 * The update a stored call makes to the card `toolCallId`: its arguments always; over chat
 * completions (`withResult`) also its result — a parked command fails with Hermes' reason and
 * `_meta.hermes.notRun`, anything else completes or fails as its result says.
 */
export function storedCallUpdate(toolCallId: string, call: StoredToolCall, withResult: boolean): acp.SessionUpdate {
  const input = call.args !== undefined && call.args !== null ? { rawInput: call.args } : {};
  if (!withResult || call.resultText === undefined) {
    return { sessionUpdate: 'tool_call_update', toolCallId, ...input };
  }
  if (isParked(call)) {
    const description = typeof call.result?.description === 'string' && call.result.description !== '' ? call.result.description : 'a dangerous command';
    const text = `Not run: Hermes holds it for approval (${description}), and the chat completions API cannot ask for one. Use the runs API (API Server mode "runs") to be asked.`;
    return {
      sessionUpdate: 'tool_call_update',
      toolCallId,
      ...input,
      status: 'failed',
      content: [{ type: 'content', content: { type: 'text', text } }],
      rawOutput: call.result,
      _meta: { hermes: { notRun: 'pending_approval' } },
    };
  }
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId,
    ...input,
    status: failedResult(call.result) ? 'failed' : 'completed',
    content: [{ type: 'content', content: { type: 'text', text: call.resultText } }],
    rawOutput: call.result ?? call.resultText,
  };
}

function failedResult(result: JsonObject | undefined): boolean {
  if (result === undefined) {
    return false;
  }
  const error = result.error;
  return result.status === 'blocked' || result.success === false || (error !== undefined && error !== null && error !== '' && error !== false);
}

function parseJson(v: unknown): unknown {
  if (typeof v !== 'string') {
    return v;
  }
  try {
    return JSON.parse(v) as unknown;
  } catch {
    return v;
  }
}
