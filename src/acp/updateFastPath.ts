import type * as acp from '@agentclientprotocol/sdk';
import { isObject, type JsonObject } from '../util/json';

/**
 * The `session/update` fast path: recognizes the shapes that stream (text chunks; tool calls and
 * their updates with text, diff or terminal content) in their canonical form — every key known to
 * the schema, every value valid, nothing the SDK's schema would strip, reset or drop — and returns
 * the notification as it came. Anything else returns undefined and goes to the SDK's schema
 * (`updateValidation.ts`). The contract, held by `test/unit/acp/updateValidation.test.ts`: whenever
 * this accepts a value, `zSessionNotification` accepts it too and returns an equal value.
 *
 * One pass over the keys, no copies: a few hundred nanoseconds for a chunk, where the schema takes
 * tens of microseconds.
 */
export function fastSessionNotification(params: unknown): acp.SessionNotification | undefined {
  if (!isObject(params) || typeof params.sessionId !== 'string' || !keysWithin(params, notificationKeys) || !metaOk(params._meta)) {
    return undefined;
  }
  const update = params.update;
  if (!isObject(update)) {
    return undefined;
  }
  switch (update.sessionUpdate) {
    case 'agent_message_chunk':
    case 'agent_thought_chunk':
    case 'user_message_chunk':
      return chunkOk(update) ? (params as unknown as acp.SessionNotification) : undefined;
    case 'tool_call':
      return toolOk(update, true) ? (params as unknown as acp.SessionNotification) : undefined;
    case 'tool_call_update':
      return toolOk(update, false) ? (params as unknown as acp.SessionNotification) : undefined;
    default:
      return undefined;
  }
}

const notificationKeys = new Set(['sessionId', 'update', '_meta']);
const chunkKeys = new Set(['sessionUpdate', 'content', 'messageId', '_meta']);
const textKeys = new Set(['type', 'text', '_meta']);
const toolKeys = new Set(['sessionUpdate', 'toolCallId', 'title', 'name', 'kind', 'status', 'content', 'locations', 'rawInput', 'rawOutput', '_meta']);
const contentKeys = new Set(['type', 'content', '_meta']);
const diffKeys = new Set(['type', 'path', 'oldText', 'newText', '_meta']);
const terminalKeys = new Set(['type', 'terminalId', '_meta']);
const locationKeys = new Set(['path', 'line', '_meta']);
const toolKinds = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);
const toolStatuses = new Set(['pending', 'in_progress', 'completed', 'failed']);
/** `ToolCallLocation.line` is a uint32 in the schema. */
const maxLine = 4294967295;

/** Every own key is one the schema knows at this place (so it strips nothing). */
function keysWithin(o: JsonObject, allowed: ReadonlySet<string>): boolean {
  for (const key in o) {
    if (!allowed.has(key)) {
      return false;
    }
  }
  return true;
}

/**
 * `_meta` absent or a plain object. The schema copies it key by key, which would turn an own
 * `__proto__` key (JSON.parse makes those) into a prototype: such values take the slow path.
 */
function metaOk(meta: unknown): boolean {
  return meta === undefined || (isObject(meta) && !Object.hasOwn(meta, '__proto__'));
}

function optionalString(v: unknown): boolean {
  return v === undefined || typeof v === 'string';
}

function textBlockOk(c: unknown): boolean {
  return isObject(c) && c.type === 'text' && typeof c.text === 'string' && keysWithin(c, textKeys) && metaOk(c._meta);
}

function chunkOk(u: JsonObject): boolean {
  return keysWithin(u, chunkKeys) && textBlockOk(u.content) && optionalString(u.messageId) && metaOk(u._meta);
}

function toolOk(u: JsonObject, isCall: boolean): boolean {
  if (!keysWithin(u, toolKeys) || typeof u.toolCallId !== 'string' || !metaOk(u._meta)) {
    return false;
  }
  if (isCall ? typeof u.title !== 'string' : !optionalString(u.title)) {
    return false;
  }
  if (!optionalString(u.name)) {
    return false;
  }
  if (u.kind !== undefined && !(typeof u.kind === 'string' && toolKinds.has(u.kind))) {
    return false;
  }
  if (u.status !== undefined && !(typeof u.status === 'string' && toolStatuses.has(u.status))) {
    return false;
  }
  return everyItem(u.content, toolContentOk) && everyItem(u.locations, locationOk);
}

/** Absent, or an array whose every item passes (the schema would drop a failing item). */
function everyItem(v: unknown, ok: (item: unknown) => boolean): boolean {
  if (v === undefined) {
    return true;
  }
  if (!Array.isArray(v)) {
    return false;
  }
  for (const item of v as unknown[]) {
    if (!ok(item)) {
      return false;
    }
  }
  return true;
}

function toolContentOk(c: unknown): boolean {
  if (!isObject(c) || !metaOk(c._meta)) {
    return false;
  }
  switch (c.type) {
    case 'content':
      return keysWithin(c, contentKeys) && textBlockOk(c.content);
    case 'diff':
      return keysWithin(c, diffKeys) && typeof c.path === 'string' && typeof c.newText === 'string' && (optionalString(c.oldText) || c.oldText === null);
    case 'terminal':
      return keysWithin(c, terminalKeys) && typeof c.terminalId === 'string';
    default:
      return false;
  }
}

function locationOk(l: unknown): boolean {
  if (!isObject(l) || typeof l.path !== 'string' || !keysWithin(l, locationKeys) || !metaOk(l._meta)) {
    return false;
  }
  const line = l.line;
  return line === undefined || (typeof line === 'number' && Number.isInteger(line) && line >= 0 && line <= maxLine);
}
