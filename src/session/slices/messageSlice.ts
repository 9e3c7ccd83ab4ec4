import type * as acp from '@agentclientprotocol/sdk';
import type { AssistantEntry, AssistantPart, Entry, SessionState, UserEntry } from '../sessionState';
import { append, appendEntry, replaceAt, withEntries, type UpdateContext } from './entryList';

/** The chunk updates: the agent's messages and thoughts, and user messages (echoed or replayed). */
export type MessageUpdate = acp.ContentChunk & { sessionUpdate: 'user_message_chunk' | 'agent_message_chunk' | 'agent_thought_chunk' };

/** Messages and thoughts: a chunk continues the message it belongs to or starts a new one. */
export function applyMessageUpdate(state: SessionState, update: MessageUpdate, ctx: UpdateContext): SessionState {
  return withEntries(state, (entries) => applyChunk(entries, update, ctx));
}

/** Applies a message/thought/user chunk. Returns the same array when nothing changed. */
function applyChunk(entries: readonly Entry[], update: MessageUpdate, ctx: UpdateContext): readonly Entry[] {
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
