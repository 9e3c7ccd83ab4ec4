import type { Entry, SessionState } from '../sessionState';

/** Where an update lands: the live transcript, or the history a load/resume is replaying. */
export interface UpdateContext {
  readonly id: string;
  readonly at: number;
  /** The running turn, if any (stamps new entries; enables echo suppression). */
  readonly turnId: number | undefined;
  readonly replaying: boolean;
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

/** Applies `fn` to the entries an update lands in: the replay being collected, else the transcript. */
export function withEntries(state: SessionState, fn: (entries: readonly Entry[]) => readonly Entry[]): SessionState {
  if (state.replay !== undefined) {
    const entries = fn(state.replay.entries);
    return entries === state.replay.entries ? state : { ...state, replay: { ...state.replay, entries } };
  }
  const entries = fn(state.entries);
  return entries === state.entries ? state : { ...state, entries };
}
