import type { Entry } from './sessionState';

/** Index-addressed changes between two entry lists (Zed: NewEntry / EntryUpdated / EntriesRemoved). */
export type EntryChange =
  | { readonly op: 'insert'; readonly index: number; readonly entry: Entry }
  | { readonly op: 'replace'; readonly index: number; readonly entry: Entry }
  | { readonly op: 'remove'; readonly index: number; readonly count: number };

/**
 * Diffs by reference: the reducer keeps untouched entries identical, so a linear walk finds the
 * changed ones. Appends and in-place updates (the streaming case) become insert/replace ops; a
 * structural change elsewhere (rare: replay merge) replaces the tail from the first mismatch.
 */
export function diffEntries(prev: readonly Entry[], next: readonly Entry[]): EntryChange[] {
  const ops: EntryChange[] = [];
  if (prev === next) {
    return ops;
  }
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
