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

/**
 * How a long array was made from another by {@link replaceAt} and {@link append}: the indices it
 * set since it copied the array numbered `from`. `diffEntries` follows these back from a state's
 * entries to the ones last posted and looks only at those indices; at 5,000 entries, walking them
 * all was most of a patch's cost on the host. Records name arrays by number, never hold them, and
 * only the latest `keptRecords` are kept, so nothing outlives its state. Arrays made any other way
 * (slices, filters, a replay's merge) have no record and are walked.
 */
interface Derivation {
  readonly from: number;
  readonly touched: number[];
}

const serials = new WeakMap<object, number>();
const records = new Map<number, Derivation>();
let lastSerial = 0;
/** Shorter arrays are walked: a record would cost about what walking them does. */
const recordFromLength = 256;
const keptRecords = 4096;
/** Past this many copies between two arrays, walking is about as cheap as following the records. */
const maxDerivationSteps = 64;

function serialOf(items: object): number {
  let serial = serials.get(items);
  if (serial === undefined) {
    serial = ++lastSerial;
    serials.set(items, serial);
  }
  return serial;
}

function setAt<T>(items: readonly T[], index: number, item: T): readonly T[] {
  if (drafts?.has(items) === true) {
    (items as T[])[index] = item;
    const serial = serials.get(items);
    if (serial !== undefined) {
      records.get(serial)?.touched.push(index);
    }
    return items;
  }
  const copy = items.slice();
  copy[index] = item;
  drafts?.add(copy);
  if (copy.length >= recordFromLength) {
    const from = serialOf(items);
    const serial = serialOf(copy);
    records.set(serial, { from, touched: [index] });
    if (records.size > keptRecords) {
      // The oldest record (a Map keeps insertion order).
      records.delete(records.keys().next().value ?? serial);
    }
  }
  return copy;
}

export function replaceAt<T>(items: readonly T[], index: number, item: T): readonly T[] {
  return setAt(items, index, item);
}

export function append<T>(items: readonly T[], item: T): readonly T[] {
  return setAt(items, items.length, item);
}

/**
 * The indices `next` set since it was copied from `prev` through {@link replaceAt} and
 * {@link append} alone; undefined when that is not known (then every index may differ).
 */
export function indicesSetSince(prev: readonly unknown[], next: readonly unknown[]): ReadonlySet<number> | undefined {
  const target = serials.get(prev);
  let at = serials.get(next);
  if (target === undefined || at === undefined) {
    return undefined;
  }
  const touched = new Set<number>();
  for (let steps = 0; at !== target; steps++) {
    const record = records.get(at);
    if (record === undefined || steps === maxDerivationSteps) {
      return undefined;
    }
    for (const i of record.touched) {
      touched.add(i);
    }
    at = record.from;
  }
  return touched;
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
