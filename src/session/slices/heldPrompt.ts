import type * as acp from '@agentclientprotocol/sdk';
import type { Entry, HeldPrompt, UserEntry } from '../sessionState';
import { replaceAt } from './entryList';

/**
 * Prompts an agent holds (Hermes 0.19, observed in the lab: test/fixtures/hermes/retry.jsonl and
 * cancel.jsonl). A prompt the provider failed stays in the session's history, and the next message
 * is merged into it ("<failed>\n\n<next>", Hermes `repair_message_sequence`); a cancelled prompt is
 * kept in memory and put in front of the next text prompt ("<cancelled>\n\nUser correction/guidance
 * after interrupt: <next>", `acp_adapter/server.py`). The agent's own slash commands are answered
 * without the model and leave what is held alone.
 */

/** The plain text of a prompt's blocks (images and resources say nothing here). */
export function promptText(blocks: readonly acp.ContentBlock[]): string {
  return blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
}

/** Whether the agent answers this prompt itself (one of its advertised commands), leaving a held prompt held. */
export function keepsHeldPrompt(blocks: readonly acp.ContentBlock[], commands: readonly acp.AvailableCommand[]): boolean {
  if (blocks.length === 0 || blocks.some((b) => b.type !== 'text')) {
    return false;
  }
  const name = /^\/(\S+)/.exec(promptText(blocks).trimStart())?.[1]?.toLowerCase();
  return name !== undefined && commands.some((c) => c.name.toLowerCase() === name);
}

/**
 * The turn's reply without its text: a provider failure Hermes sends as the reply (the footer says
 * it). A message that held only that text goes; thoughts before it stay.
 */
export function withoutReplyText(entries: readonly Entry[], turnId: number): readonly Entry[] {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'user' && e.turnId === turnId) {
      return entries;
    }
    if (e?.kind === 'assistant' && e.turnId === turnId) {
      const parts = e.parts.filter((p) => p.kind !== 'text');
      return parts.length > 0 ? replaceAt(entries, i, { ...e, parts }) : [...entries.slice(0, i), ...entries.slice(i + 1)];
    }
  }
  return entries;
}

/** The separator Hermes writes between a cancelled prompt and the next message (`acp_adapter/server.py`). */
const cancelledMarker = '\n\nUser correction/guidance after interrupt: ';

/**
 * A replayed user message Hermes stored merged with a cancelled prompt: the message the user typed,
 * and the cancelled prompt it was sent with. Undefined for any other message.
 */
export function splitMergedPrompt(text: string): { readonly typed: string; readonly held: HeldPrompt } | undefined {
  const at = text.lastIndexOf(cancelledMarker);
  if (at <= 0) {
    return undefined;
  }
  const typed = text.slice(at + cancelledMarker.length);
  return typed.trim() === '' ? undefined : { typed, held: { reason: 'cancelled', text: text.slice(0, at) } };
}

/** A replayed user entry shown as what the user typed, marked as sent together with the cancelled prompt. */
export function unmergeReplayed(entry: UserEntry): UserEntry {
  if (entry.origin !== 'replay' || entry.mergedWith !== undefined || entry.blocks.length !== 1) {
    return entry;
  }
  const block = entry.blocks[0];
  const split = block?.type === 'text' ? splitMergedPrompt(block.text) : undefined;
  return split === undefined ? entry : { ...entry, blocks: [{ type: 'text', text: split.typed }], mergedWith: split.held };
}
