import type * as acp from '@agentclientprotocol/sdk';
import { isObject } from '../util/json';
import { toolNameFromMeta } from './metaConventions';
import {
  finishedToolStatuses,
  type AssistantEntry,
  type AssistantPart,
  type Entry,
  type MetaTerminal,
  type PermissionState,
  type ToolEntry,
  type ToolStatus,
  type UserEntry,
} from './sessionState';

/** Where an update lands: the live transcript, or the history a load/resume is replaying. */
export interface UpdateContext {
  readonly id: string;
  readonly at: number;
  /** The running turn, if any (stamps new entries; enables echo suppression). */
  readonly turnId: number | undefined;
  readonly replaying: boolean;
}

/** Output kept per `_meta` terminal; older output is dropped from the front. */
const maxMetaTerminalChars = 1024 * 1024;

export function lastIndexOfTool(entries: readonly Entry[], toolCallId: string): number {
  // Search from the end: the tool being updated is almost always among the last entries.
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'tool' && e.toolCallId === toolCallId) {
      return i;
    }
  }
  return -1;
}

/**
 * Arrays created while a batch of actions is reduced (see {@link withDraftArrays}). They are not yet
 * visible to anyone but the batch, so later actions of the same batch may change them in place:
 * a burst of N chunks then costs one copy of the entry list instead of N.
 */
let drafts: WeakSet<object> | undefined;

/** Runs `fn` with draft arrays enabled; arrays it creates are frozen (by convention) when it returns. */
export function withDraftArrays<T>(fn: () => T): T {
  if (drafts !== undefined) {
    return fn();
  }
  drafts = new WeakSet();
  try {
    return fn();
  } finally {
    drafts = undefined;
  }
}

export function replaceAt<T>(items: readonly T[], index: number, item: T): readonly T[] {
  if (drafts?.has(items) === true) {
    (items as T[])[index] = item;
    return items;
  }
  const copy = items.slice();
  copy[index] = item;
  drafts?.add(copy);
  return copy;
}

/**
 * Appends an entry. A thought that was still the last thing the agent said ends here: whatever
 * follows it — a tool call, a message with a new id, the turn's end — means it stopped thinking.
 */
export function appendEntry(entries: readonly Entry[], entry: Entry, at: number): readonly Entry[] {
  const lastIndex = entries.length - 1;
  const last = entries[lastIndex];
  if (last?.kind === 'assistant') {
    const parts = last.parts;
    const lastPart = parts[parts.length - 1];
    if (lastPart?.kind === 'thought' && lastPart.endedAt === undefined) {
      const closed = replaceAt(entries, lastIndex, { ...last, parts: replaceAt(parts, parts.length - 1, { ...lastPart, endedAt: at }) });
      return append(closed, entry);
    }
  }
  return append(entries, entry);
}

export function append<T>(items: readonly T[], item: T): readonly T[] {
  if (drafts?.has(items) === true) {
    (items as T[]).push(item);
    return items;
  }
  const copy = items.slice();
  copy.push(item);
  drafts?.add(copy);
  return copy;
}

/** Applies a message/thought/user chunk. Returns the same array when nothing changed. */
export function applyChunk(
  entries: readonly Entry[],
  update: acp.ContentChunk & { sessionUpdate: 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk' },
  ctx: UpdateContext,
): readonly Entry[] {
  if (update.sessionUpdate === 'user_message_chunk') {
    return applyUserChunk(entries, update.content, ctx);
  }
  const partKind = update.sessionUpdate === 'agent_thought_chunk' ? 'thought' : 'text';
  const content = update.content;
  if (content.type === 'text' && content.text === '') {
    return entries;
  }
  const messageId = update.messageId ?? undefined;
  const lastIndex = entries.length - 1;
  const last = entries[lastIndex];
  // Chunks continue the last assistant message unless something else came in between or the
  // agent started a new message id (ACP: a change of messageId starts a new message).
  if (last?.kind === 'assistant' && (messageId === undefined || last.messageId === undefined || last.messageId === messageId)) {
    return replaceAt(entries, lastIndex, appendPart(last, partKind, content, ctx.at, messageId));
  }
  const entry: AssistantEntry = {
    kind: 'assistant',
    id: ctx.id,
    parts: [newPart(partKind, content, ctx.at)],
    at: ctx.at,
    ...(messageId !== undefined ? { messageId } : {}),
    ...(ctx.turnId !== undefined ? { turnId: ctx.turnId } : {}),
  };
  return appendEntry(entries, entry, ctx.at);
}

function newPart(kind: 'text' | 'thought', content: acp.ContentBlock, at: number): AssistantPart {
  return content.type === 'text' ? { kind, text: content.text, at } : { kind: 'block', block: content, at };
}

function appendPart(entry: AssistantEntry, kind: 'text' | 'thought', content: acp.ContentBlock, at: number, messageId: string | undefined): AssistantEntry {
  const parts = entry.parts;
  const lastPart = parts[parts.length - 1];
  let nextParts: readonly AssistantPart[];
  if (content.type === 'text' && lastPart?.kind === kind) {
    nextParts = replaceAt(parts, parts.length - 1, { kind, text: lastPart.text + content.text, at: lastPart.at });
  } else {
    nextParts = append(parts, newPart(kind, content, at));
  }
  return messageId !== undefined && entry.messageId === undefined ? { ...entry, parts: nextParts, messageId } : { ...entry, parts: nextParts };
}

function blockText(blocks: readonly acp.ContentBlock[]): string {
  let s = '';
  for (const b of blocks) {
    if (b.type === 'text') {
      s += b.text;
    }
  }
  return s;
}

function applyUserChunk(entries: readonly Entry[], content: acp.ContentBlock, ctx: UpdateContext): readonly Entry[] {
  const lastIndex = entries.length - 1;
  const last = entries[lastIndex];
  if (!ctx.replaying && ctx.turnId !== undefined && content.type === 'text') {
    // Echo suppression (Zed: ignore echoed user message chunks during an active turn): agents may
    // echo the prompt we just sent; it is already in the transcript.
    const turnUser = findTurnUser(entries, ctx.turnId);
    if (turnUser !== undefined && content.text.trim() !== '' && blockText(turnUser.blocks).includes(content.text.trim())) {
      return entries;
    }
  }
  const origin = ctx.replaying ? 'replay' : 'agent';
  if (last?.kind === 'user' && last.origin === origin) {
    return replaceAt(entries, lastIndex, { ...last, blocks: appendBlock(last.blocks, content) });
  }
  const entry: UserEntry = {
    kind: 'user',
    id: ctx.id,
    blocks: [content],
    at: ctx.at,
    origin,
    ...(ctx.turnId !== undefined && !ctx.replaying ? { turnId: ctx.turnId } : {}),
  };
  return appendEntry(entries, entry, ctx.at);
}

function findTurnUser(entries: readonly Entry[], turnId: number): UserEntry | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'user' && e.turnId === turnId && e.origin === 'local') {
      return e;
    }
  }
  return undefined;
}

function appendBlock(blocks: readonly acp.ContentBlock[], content: acp.ContentBlock): readonly acp.ContentBlock[] {
  const lastBlock = blocks[blocks.length - 1];
  if (content.type === 'text' && lastBlock?.type === 'text') {
    return replaceAt(blocks, blocks.length - 1, { type: 'text', text: lastBlock.text + content.text });
  }
  return append(blocks, content);
}

/**
 * Upserts a tool call (`tool_call`, `tool_call_update`, or the `toolCall` of a permission request).
 * ACP tool-calls: only the fields present change; `content` and `locations` replace the collection;
 * `null` is treated as "unchanged" (v1 does not define null). Unknown ids create the entry
 * (agents update or ask about calls they never announced: Gemini, Codex, Hermes permissions).
 */
export function upsertTool(
  entries: readonly Entry[],
  update: acp.ToolCallUpdate,
  ctx: UpdateContext,
  permission?: PermissionState,
): readonly Entry[] {
  const index = lastIndexOfTool(entries, update.toolCallId);
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
  };
  let next: ToolEntry = mergeToolFields(base, update, ctx.at);
  if (permission !== undefined) {
    next = { ...next, permission };
  }
  const terminals = applyMetaTerminal(next.metaTerminals, update._meta);
  if (terminals !== next.metaTerminals && terminals !== undefined) {
    next = { ...next, metaTerminals: terminals };
  }
  return index >= 0 ? replaceAt(entries, index, next) : appendEntry(entries, next, ctx.at);
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
