import type * as acp from '@agentclientprotocol/sdk';
import { isObject } from '../../util/json';
import { toolNameFromMeta } from '../metaConventions';
import type { PermissionOutcome, SessionAction } from '../sessionActions';
import { finishedToolStatuses, type Entry, type MetaTerminal, type PermissionState, type SessionState, type ToolEntry, type ToolStatus } from '../sessionState';
import { append, appendEntry, replaceAt, withEntries, type UpdateContext } from './entryList';
import { guardedCallIndex, mergeContent, mergeLocations, permissionOnlyIndex } from './guardedCall';

/** The actions this slice owns: a permission request attached to its tool call, and its answer. */
export type ToolAction = Extract<SessionAction, { type: 'permissionRequested' | 'permissionResolved' | 'toolsConfirmed' }>;

/** Output kept per `_meta` terminal; older output is dropped from the front. */
const maxMetaTerminalChars = 1024 * 1024;

/** Tool calls with their permission requests and terminals: `tool_call`, `tool_call_update`. */
export function applyToolUpdate(state: SessionState, update: acp.ToolCallUpdate, ctx: UpdateContext): SessionState {
  return withEntries(state, (entries) => upsertTool(entries, update, ctx));
}

export function reduceToolAction(state: SessionState, action: ToolAction): SessionState {
  switch (action.type) {
    case 'permissionRequested': {
      const permission: PermissionState = {
        requestId: action.requestId,
        options: action.options,
        status: 'pending',
        requestedAt: action.at,
        ...(action.check !== undefined ? { check: action.check } : {}),
      };
      const ctx: UpdateContext = { id: action.id, at: action.at, turnId: state.turn?.id, replaying: false };
      return { ...state, entries: attachPermission(state.entries, withoutDecisionList(action.toolCall), ctx, permission) };
    }
    case 'permissionResolved':
      return resolvePermission(state, action.requestId, action.outcome, action.answeredBy, action.at, action.remembered);
    case 'toolsConfirmed': {
      // Only a call still without a result: whatever the agent reported itself stands.
      const ids = new Set(action.entryIds);
      let entries = state.entries;
      for (let i = 0; i < entries.length; i++) {
        const e = entries[i];
        if (e?.kind === 'tool' && ids.has(e.id) && e.status === 'ended') {
          entries = replaceAt(entries, i, { ...e, status: 'completed', confirmed: 'disk' });
        }
      }
      return entries === state.entries ? state : { ...state, entries };
    }
  }
}

/**
 * Codex ACP 0.16 writes its approval's decisions into the request's text ("Proposed Amendment: …\n
 * Available Decisions: Approved\nApprovedExecpolicyAmendment\nAbort", test/fixtures/agents/
 * codex-main.jsonl): the options are the card's buttons already, so that list stays out of the card.
 */
function withoutDecisionList(request: acp.ToolCallUpdate): acp.ToolCallUpdate {
  if (request.content === undefined || request.content === null) {
    return request;
  }
  let changed = false;
  const content = request.content.flatMap((c): acp.ToolCallContent[] => {
    if (c.type !== 'content' || c.content.type !== 'text') {
      return [c];
    }
    const at = c.content.text.search(/(^|\n)Available Decisions:/);
    if (at < 0) {
      return [c];
    }
    changed = true;
    const kept = c.content.text.slice(0, at).trimEnd();
    return kept === '' ? [] : [{ ...c, content: { ...c.content, text: kept } }];
  });
  return changed ? { ...request, content } : request;
}

export function lastIndexOfTool(entries: readonly Entry[], toolCallId: string): number {
  // Search from the end: the tool being updated is almost always among the last entries.
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'tool' && (e.toolCallId === toolCallId || e.aliasIds?.includes(toolCallId) === true)) {
      return i;
    }
  }
  return -1;
}

/**
 * A permission request joins the call it is about: the call with its id, else (an id never
 * announced) the open call of the turn it guards (guardedCall.ts), which then answers to both ids
 * and gains the request's arguments, diff and locations but keeps its own title and kind. Only
 * when nothing matches is it a call of its own, which a call announced just after may claim.
 */
function attachPermission(entries: readonly Entry[], request: acp.ToolCallUpdate, ctx: UpdateContext, permission: PermissionState): readonly Entry[] {
  if (lastIndexOfTool(entries, request.toolCallId) >= 0) {
    return upsertTool(entries, request, ctx, permission);
  }
  const index = guardedCallIndex(entries, request, ctx.turnId);
  const guarded = index >= 0 ? (entries[index] as ToolEntry) : undefined;
  if (guarded === undefined) {
    return upsertTool(entries, request, ctx, permission, true);
  }
  const joined: ToolEntry = {
    ...guarded,
    permission: { ...permission, toolCallId: request.toolCallId },
    aliasIds: [...(guarded.aliasIds ?? []), request.toolCallId],
    content: mergeContent(guarded.content, request.content),
    locations: mergeLocations(guarded.locations, request.locations),
    ...(guarded.rawInput === undefined && request.rawInput !== undefined && request.rawInput !== null ? { rawInput: request.rawInput } : {}),
  };
  return replaceAt(entries, index, joined);
}

/**
 * Upserts a tool call (`tool_call`, `tool_call_update`, or the `toolCall` of a permission request).
 * ACP tool-calls: only the fields present change; `content` and `locations` replace the collection;
 * `null` is treated as "unchanged" (v1 does not define null). Unknown ids create the entry
 * (agents update or ask about calls they never announced: Gemini, Codex), unless the id is a call
 * announced just after the permission request that guards it: then it takes that entry over.
 */
function upsertTool(
  entries: readonly Entry[],
  update: acp.ToolCallUpdate,
  ctx: UpdateContext,
  permission?: PermissionState,
  permissionOnly?: true,
): readonly Entry[] {
  let index = lastIndexOfTool(entries, update.toolCallId);
  if (index < 0 && permission === undefined && !ctx.replaying) {
    index = permissionOnlyIndex(entries, update, ctx.turnId);
    if (index >= 0) {
      return replaceAt(entries, index, claimPermissionOnly(entries[index] as ToolEntry, update, ctx));
    }
  }
  const existing = index >= 0 ? (entries[index] as ToolEntry) : undefined;
  const base: ToolEntry = existing ?? {
    kind: 'tool',
    id: ctx.id,
    toolCallId: update.toolCallId,
    title: update.title ?? update.toolCallId,
    toolKind: 'other',
    status: 'pending',
    content: [],
    locations: [],
    at: ctx.at,
    ...(ctx.turnId !== undefined ? { turnId: ctx.turnId } : {}),
    ...(permissionOnly === true ? { permissionOnly } : {}),
  };
  let next: ToolEntry = mergeToolFields(base, update, ctx.at);
  if (permission !== undefined) {
    next = { ...next, permission };
  }
  next = applyToolProgress(next, update._meta, ctx.at);
  const terminals = applyMetaTerminal(next.metaTerminals, update._meta);
  if (terminals !== next.metaTerminals && terminals !== undefined) {
    next = { ...next, metaTerminals: terminals };
  }
  return index >= 0 ? replaceAt(entries, index, next) : appendEntry(entries, next, ctx.at);
}

/**
 * The guarded call arrived after its permission request: the entry becomes the call (its id,
 * title, kind, arguments) and answers to the request's id too. A call the answer already ended
 * (denied) stays ended.
 */
function claimPermissionOnly(entry: ToolEntry, call: acp.ToolCallUpdate, ctx: UpdateContext): ToolEntry {
  const requestId = entry.toolCallId;
  const { permissionOnly: _claimed, ...rest } = entry;
  const ended = finishedToolStatuses.has(entry.status);
  const merged = mergeToolFields({ ...rest, toolCallId: call.toolCallId }, ended ? { ...call, status: null } : call, ctx.at);
  return {
    ...merged,
    aliasIds: [...(entry.aliasIds ?? []), requestId],
    content: mergeContent(call.content ?? [], entry.content),
    locations: mergeLocations(call.locations ?? [], entry.locations),
    ...(entry.permission !== undefined ? { permission: { ...entry.permission, toolCallId: requestId } } : {}),
    ...(call.rawInput === undefined || call.rawInput === null ? (entry.rawInput !== undefined ? { rawInput: entry.rawInput } : {}) : {}),
  };
}

function mergeToolFields(base: ToolEntry, u: acp.ToolCallUpdate, at: number): ToolEntry {
  let t = base;
  const set = <K extends keyof ToolEntry>(key: K, value: ToolEntry[K]): void => {
    if (t[key] !== value) {
      t = { ...t, [key]: value };
    }
  };
  if (typeof u.title === 'string' && u.title !== '') {
    set('title', u.title);
  }
  if (u.kind !== undefined && u.kind !== null) {
    set('toolKind', u.kind);
  }
  const name = typeof u.name === 'string' ? u.name : toolNameFromMeta(u._meta);
  if (name !== undefined) {
    set('name', name);
  }
  if (u.content !== undefined && u.content !== null) {
    set('content', u.content);
  }
  if (u.locations !== undefined && u.locations !== null) {
    set('locations', u.locations);
  }
  if (u.rawInput !== undefined && u.rawInput !== null) {
    set('rawInput', u.rawInput);
  }
  if (u.rawOutput !== undefined && u.rawOutput !== null) {
    set('rawOutput', u.rawOutput);
  }
  if (u.status !== undefined && u.status !== null) {
    // Updates that arrive after a local cancel still apply (ACP: the client SHOULD still accept them).
    set('status', u.status);
    if (finishedToolStatuses.has(u.status)) {
      set('endedAt', at);
    }
  }
  return t;
}

/**
 * `_meta.hermes.toolProgress` (the API Server's `hermes.tool.progress`, translated by
 * `src/transports/apiServer/chatStream.ts`): `running` carries the emoji and label the card shows;
 * `completed` only says the tool stopped — not that it succeeded — so an open call ends as `ended`.
 */
function applyToolProgress(t: ToolEntry, meta: unknown, at: number): ToolEntry {
  const p = isObject(meta) && isObject(meta.hermes) && isObject(meta.hermes.toolProgress) ? meta.hermes.toolProgress : undefined;
  if (p === undefined) {
    return t;
  }
  const text = (v: unknown, fallback: string): string => (typeof v === 'string' ? v : fallback);
  if (p.status === 'running') {
    return { ...t, progress: { tool: text(p.tool, t.progress?.tool ?? ''), emoji: text(p.emoji, t.progress?.emoji ?? ''), label: text(p.label, t.progress?.label ?? ''), state: 'running' } };
  }
  if (p.status !== 'completed') {
    return t;
  }
  const progress = { tool: text(p.tool, t.progress?.tool ?? ''), emoji: t.progress?.emoji ?? '', label: t.progress?.label ?? '', state: 'completed' as const };
  return finishedToolStatuses.has(t.status) ? { ...t, progress } : { ...t, progress, status: 'ended', endedAt: at };
}

/** Zed's terminal `_meta`: `terminal_info` opens, `terminal_output` appends, `terminal_exit` closes. */
function applyMetaTerminal(terminals: readonly MetaTerminal[] | undefined, meta: unknown): readonly MetaTerminal[] | undefined {
  if (!isObject(meta)) {
    return terminals;
  }
  let out = terminals;
  const info = meta.terminal_info;
  if (isObject(info) && typeof info.terminal_id === 'string') {
    const id = info.terminal_id;
    if (out?.some((t) => t.terminalId === id) !== true) {
      out = append(out ?? [], { terminalId: id, output: '', ...(typeof info.cwd === 'string' ? { cwd: info.cwd } : {}) });
    }
  }
  const output = meta.terminal_output;
  if (isObject(output) && typeof output.terminal_id === 'string' && typeof output.data === 'string') {
    out = updateMetaTerminal(out, output.terminal_id, (t) => {
      const text = t.output + (output.data as string);
      return { ...t, output: text.length > maxMetaTerminalChars ? text.slice(text.length - maxMetaTerminalChars) : text };
    });
  }
  const exit = meta.terminal_exit;
  if (isObject(exit) && typeof exit.terminal_id === 'string') {
    out = updateMetaTerminal(out, exit.terminal_id, (t) => ({
      ...t,
      exitCode: typeof exit.exit_code === 'number' ? exit.exit_code : null,
      signal: typeof exit.signal === 'string' ? exit.signal : null,
    }));
  }
  return out;
}

function updateMetaTerminal(
  terminals: readonly MetaTerminal[] | undefined,
  id: string,
  fn: (t: MetaTerminal) => MetaTerminal,
): readonly MetaTerminal[] {
  const list = terminals ?? [];
  const i = list.findIndex((t) => t.terminalId === id);
  if (i < 0) {
    return append(list, fn({ terminalId: id, output: '' }));
  }
  const current = list[i];
  return current === undefined ? list : replaceAt(list, i, fn(current));
}

/** Marks every unfinished tool call (optionally only those of one turn) with a local status. */
export function closeOpenTools(entries: readonly Entry[], status: ToolStatus, at: number, turnId?: number): readonly Entry[] {
  let out: Entry[] | undefined;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e?.kind !== 'tool' || finishedToolStatuses.has(e.status)) {
      continue;
    }
    if (turnId !== undefined && e.turnId !== undefined && e.turnId !== turnId) {
      continue;
    }
    out ??= entries.slice();
    out[i] = { ...e, status, endedAt: at };
  }
  return out ?? entries;
}

function resolvePermission(state: SessionState, requestId: string, outcome: PermissionOutcome, answeredBy: string, at: number, remembered?: string): SessionState {
  for (let i = state.entries.length - 1; i >= 0; i--) {
    const e = state.entries[i];
    if (e?.kind !== 'tool' || e.permission?.requestId !== requestId) {
      continue;
    }
    const p = e.permission;
    if (p.status !== 'pending') {
      return state;
    }
    const base = { ...p, answeredAt: at, answeredBy, ...(remembered !== undefined ? { remembered } : {}) };
    const permission: PermissionState = outcome.kind === 'selected' ? { ...base, status: 'selected', optionId: outcome.optionId } : { ...base, status: outcome.kind };
    let tool: ToolEntry = { ...e, permission };
    if (outcome.kind === 'selected') {
      const kind = p.options.find((o) => o.optionId === outcome.optionId)?.kind;
      // Zed authorize_tool_call: a rejection fails the call; an allow lets it run.
      if ((kind === 'reject_once' || kind === 'reject_always') && tool.status === 'pending') {
        tool = { ...tool, status: 'failed', endedAt: at };
      } else if ((kind === 'allow_once' || kind === 'allow_always') && tool.status === 'pending') {
        tool = { ...tool, status: 'in_progress' };
      }
    }
    return { ...state, entries: replaceAt(state.entries, i, tool) };
  }
  return state;
}

/** Pending requests of the turn (or of every turn) expire: the agent no longer waits for them. */
export function expirePendingPermissions(entries: readonly Entry[], at: number, turnId: number | undefined): readonly Entry[] {
  let out: Entry[] | undefined;
  for (let i = 0; i < entries.length; i++) {
    const e = entries[i];
    if (e?.kind !== 'tool' || e.permission?.status !== 'pending') {
      continue;
    }
    if (turnId !== undefined && e.turnId !== undefined && e.turnId !== turnId) {
      continue;
    }
    out ??= entries.slice();
    out[i] = { ...e, permission: { ...e.permission, status: 'expired', answeredAt: at, answeredBy: 'the turn ended first' } };
  }
  return out ?? entries;
}

/** The tool entry a permission request is attached to. */
export function findPermissionTool(state: SessionState, requestId: string): ToolEntry | undefined {
  for (let i = state.entries.length - 1; i >= 0; i--) {
    const e = state.entries[i];
    if (e?.kind === 'tool' && e.permission?.requestId === requestId) {
      return e;
    }
  }
  return undefined;
}
