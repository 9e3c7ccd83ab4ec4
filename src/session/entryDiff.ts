import type { Entry } from './sessionState';
import { indicesSetSince } from './slices/entryList';

/** Index-addressed changes between two entry lists (Zed: NewEntry / EntryUpdated / EntriesRemoved). */
export type EntryChange =
  | { readonly op: 'insert'; readonly index: number; readonly entry: Entry }
  | { readonly op: 'replace'; readonly index: number; readonly entry: Entry }
  | { readonly op: 'remove'; readonly index: number; readonly count: number };

/**
 * Diffs by reference: the reducer keeps untouched entries identical, so a linear walk finds the
 * changed ones. Appends and in-place updates (the streaming case) become insert/replace ops; a
 * structural change elsewhere (rare: replay merge) replaces the tail from the first mismatch.
 * When `next` was made from `prev` by replacing and appending entries alone (the reducer records
 * it: `indicesSetSince`), only the indices it set are looked at, with the same result.
 */
export function diffEntries(prev: readonly Entry[], next: readonly Entry[]): EntryChange[] {
  if (prev === next) {
    return [];
  }
  const set = next.length >= prev.length ? indicesSetSince(prev, next) : undefined;
  return (set !== undefined ? diffAt(prev, next, set) : undefined) ?? walk(prev, next);
}

/** The changes at the indices `set` (the rest are known identical); undefined on an id mismatch (walked instead). */
function diffAt(prev: readonly Entry[], next: readonly Entry[], set: ReadonlySet<number>): EntryChange[] | undefined {
  const ops: EntryChange[] = [];
  for (const i of [...set].sort((a, b) => a - b)) {
    const a = prev[i];
    const b = next[i];
    if (i >= prev.length || a === b || a === undefined || b === undefined) {
      continue;
    }
    if (a.id !== b.id) {
      return undefined;
    }
    ops.push({ op: 'replace', index: i, entry: b });
  }
  pushInserts(ops, next, prev.length);
  return ops;
}

function walk(prev: readonly Entry[], next: readonly Entry[]): EntryChange[] {
  const ops: EntryChange[] = [];
  const common = Math.min(prev.length, next.length);
  let i = 0;
  for (; i < common; i++) {
    const a = prev[i];
    const b = next[i];
    if (a === b || a === undefined || b === undefined) {
      continue;
    }
    if (a.id !== b.id) {
      break;
    }
    ops.push({ op: 'replace', index: i, entry: b });
  }
  if (i < common) {
    ops.push({ op: 'remove', index: i, count: prev.length - i });
    pushInserts(ops, next, i);
  } else if (prev.length > next.length) {
    ops.push({ op: 'remove', index: next.length, count: prev.length - next.length });
  } else {
    pushInserts(ops, next, prev.length);
  }
  return ops;
}

function pushInserts(ops: EntryChange[], next: readonly Entry[], from: number): void {
  for (let j = from; j < next.length; j++) {
    const e = next[j];
    if (e !== undefined) {
      ops.push({ op: 'insert', index: j, entry: e });
    }
  }
}
