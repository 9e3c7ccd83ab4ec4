import type * as acp from '@agentclientprotocol/sdk';
import type { ZodError } from 'zod/v4';
import { isObject, type JsonObject } from '../util/json';
import { fastSessionNotification } from './updateFastPath';
import {
  zAvailableCommandsUpdate,
  zCompactionSummaryChunk,
  zCompactionUpdate,
  zConfigOptionUpdate,
  zContentChunk,
  zCurrentModeUpdate,
  zNotice,
  zPlan,
  zSessionInfoUpdate,
  zSessionNotification,
  zToolCall,
  zToolCallUpdate,
  zUsageUpdate,
} from './sdkSchema';

/**
 * Validation of incoming `session/update` notifications with the SDK's own schema.
 *
 * We read `session/update` off the wire ourselves instead of letting the SDK dispatch it: its
 * dispatch costs ~30 µs per notification, 30× the wire (ARCHITECTURE.md, "fast path"), and a full
 * parse with its generated zod schema alone costs 20–200 µs. So the streaming shapes (text chunks,
 * tool calls and their updates with plain content) are checked by {@link fastSessionNotification},
 * which accepts only values the schema would return unchanged (a differential test holds it to
 * that), and everything else — every other variant, every unusual field — is parsed by
 * `zSessionNotification`, with the SDK's rules: unknown keys stripped, invalid lenient fields
 * dropped, invalid items of skip-on-error arrays dropped, an unknown variant or a missing required
 * field rejects the notification (reference/acp-client.md §11.4). Unlike the SDK, which drops a
 * rejected notification with a console message, we say what happened.
 */
export type ParsedNotification =
  | { readonly ok: true; readonly value: acp.SessionNotification; readonly salvaged?: Salvage }
  | { readonly ok: false; readonly sessionId: string | undefined; readonly kind: string | undefined; readonly reason: string };

/** What the schema had to leave out of a notification it accepted. */
export interface Salvage {
  /** Items of skip-on-error arrays that were dropped (`update.configOptions: 1 of 2 items`): worth telling the user. */
  readonly droppedItems: readonly string[];
  /** Keys the schema does not know or lenient fields it reset (`update.kind`): for the traffic log. */
  readonly droppedFields: readonly string[];
}

/** The schema of each stable `sessionUpdate` variant, for precise reasons when a notification is rejected. */
const variantSchemas = {
  user_message_chunk: zContentChunk,
  agent_message_chunk: zContentChunk,
  agent_thought_chunk: zContentChunk,
  tool_call: zToolCall,
  tool_call_update: zToolCallUpdate,
  plan: zPlan,
  available_commands_update: zAvailableCommandsUpdate,
  current_mode_update: zCurrentModeUpdate,
  config_option_update: zConfigOptionUpdate,
  session_info_update: zSessionInfoUpdate,
  usage_update: zUsageUpdate,
  notice: zNotice,
  compaction_update: zCompactionUpdate,
  compaction_summary_chunk: zCompactionSummaryChunk,
} as const;

const maxIssuesShown = 3;

export function parseSessionNotification(params: unknown): ParsedNotification {
  const fast = fastSessionNotification(params);
  if (fast !== undefined) {
    return { ok: true, value: fast };
  }
  return parseWithSchema(params);
}

/** The slow path alone (exported for the differential test). */
export function parseWithSchema(params: unknown): ParsedNotification {
  const result = zSessionNotification.safeParse(params);
  if (!result.success) {
    return rejection(params, result.error);
  }
  // The generated schema and the generated types describe the same wire shape.
  const value = result.data as acp.SessionNotification;
  const salvage = salvageOf(params, value);
  return salvage === undefined ? { ok: true, value } : { ok: true, value, salvaged: salvage };
}

function rejection(params: unknown, error: ZodError): ParsedNotification {
  if (!isObject(params)) {
    return { ok: false, sessionId: undefined, kind: undefined, reason: 'params is not an object' };
  }
  const sessionId = typeof params.sessionId === 'string' ? params.sessionId : undefined;
  const update = params.update;
  const kind = isObject(update) && typeof update.sessionUpdate === 'string' ? update.sessionUpdate : undefined;
  if (sessionId === undefined) {
    return { ok: false, sessionId, kind, reason: 'missing sessionId' };
  }
  if (!isObject(update)) {
    return { ok: false, sessionId, kind, reason: 'missing update' };
  }
  if (kind === undefined || !Object.hasOwn(variantSchemas, kind)) {
    return { ok: false, sessionId, kind, reason: `unknown sessionUpdate kind ${JSON.stringify(update.sessionUpdate)}` };
  }
  // The union's own error only says "invalid input"; the variant's schema says which field.
  const variant = variantSchemas[kind as keyof typeof variantSchemas].safeParse(update);
  const issues = variant.success ? error.issues : variant.error.issues;
  const prefix = variant.success ? [] : ['update'];
  const shown = issues.slice(0, maxIssuesShown).map((i) => `${pathText([...prefix, ...i.path])}: ${i.message}${typeHint(variant.success ? params : update, i.path)}`);
  const more = issues.length > maxIssuesShown ? ` (and ${issues.length - maxIssuesShown} more)` : '';
  return { ok: false, sessionId, kind, reason: `invalid ${kind}: ${shown.join('; ')}${more}` };
}

/**
 * What the schema left out, found by walking the input beside its output (slow path only, so the
 * extra walk is cheap next to the parse). Undefined when nothing was lost.
 */
function salvageOf(input: unknown, output: unknown, root: readonly (string | number)[] = []): Salvage | undefined {
  const droppedItems: string[] = [];
  const droppedFields: string[] = [];
  const walk = (a: unknown, b: unknown, path: (string | number)[]): void => {
    if (Array.isArray(b) && !Array.isArray(a)) {
      // A required list that was not one, replaced by an empty list: as much lost as dropping every item.
      droppedItems.push(`${pathText(path)}: not a list`);
      return;
    }
    if (Array.isArray(a)) {
      if (!Array.isArray(b)) {
        droppedFields.push(pathText(path));
        return;
      }
      if (b.length < a.length) {
        droppedItems.push(`${pathText(path)}: ${a.length - b.length} of ${a.length} items`);
        return; // which items went is not knowable by position; the traffic log has the message
      }
      a.forEach((item, i) => walk(item, b[i], [...path, i]));
      return;
    }
    if (isObject(a)) {
      if (!isObject(b)) {
        droppedFields.push(pathText(path));
        return;
      }
      for (const key of Object.keys(a)) {
        if (b[key] === undefined && a[key] !== undefined) {
          droppedFields.push(pathText([...path, key]));
        } else {
          walk(a[key], b[key], [...path, key]);
        }
      }
      return;
    }
    if (a !== b && !(a === null && b === undefined)) {
      droppedFields.push(pathText(path));
    }
  };
  walk(input, output, [...root]);
  return droppedItems.length === 0 && droppedFields.length === 0 ? undefined : { droppedItems, droppedFields };
}

/** A union's issue only says "Invalid input"; the `type` the agent sent says more. */
function typeHint(root: unknown, path: readonly PropertyKey[]): string {
  let v = root;
  for (const p of path) {
    v = isObject(v) || Array.isArray(v) ? (v as Record<PropertyKey, unknown>)[p] : undefined;
  }
  return isObject(v) && typeof v.type === 'string' ? ` (type ${JSON.stringify(v.type)})` : '';
}

function pathText(path: readonly PropertyKey[]): string {
  let out = '';
  for (const p of path) {
    out += typeof p === 'number' ? `[${p}]` : out === '' ? String(p) : `.${String(p)}`;
  }
  return out === '' ? '(params)' : out;
}

/** A session setup answer (`session/new|load|resume|fork`, `set_config_option`) with its `modes` and `configOptions` checked. */
export interface CheckedSetup<T> {
  readonly value: T;
  /** What was left out, for the traffic log; undefined when nothing was. */
  readonly note: string | undefined;
}

/**
 * The SDK does not validate responses (reference §11.4), so a `configOptions` item with
 * `options: null` would reach the view and break it. These two fields go through the SDK's schema
 * for `configOptions` and `modes`: bad items are dropped, a bad `modes` is left out. Everything else
 * (also Hermes' legacy `models`) stays as the agent sent it.
 */
export function checkSetupResponse<T>(response: T, schema: SetupSchema): CheckedSetup<T> {
  if (!isObject(response)) {
    return { value: response, note: undefined };
  }
  const parsed = schema.safeParse(response);
  if (!parsed.success) {
    return { value: response, note: undefined };
  }
  const data = parsed.data as JsonObject;
  const out: JsonObject = { ...response };
  const lost: string[] = [];
  for (const key of ['configOptions', 'modes'] as const) {
    if (!(key in response)) {
      continue;
    }
    if (data[key] === undefined) {
      delete out[key];
    } else {
      out[key] = data[key];
    }
    const salvage = salvageOf(response[key], data[key], [key]);
    if (salvage !== undefined) {
      lost.push(...salvage.droppedItems, ...salvage.droppedFields);
    }
  }
  return { value: out as T, note: lost.length > 0 ? `left out of the answer (not valid ACP): ${lost.join(', ')}` : undefined };
}

/** The part of a zod schema {@link checkSetupResponse} uses. */
export interface SetupSchema {
  safeParse(value: unknown): { success: true; data: unknown } | { success: false };
}
