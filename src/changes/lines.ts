import { diffLines } from '../util/lineDiff';

/**
 * Lines with their terminators, so that joining them gives back the exact text: a revert must
 * restore the original bytes, including `\r\n` and a missing final newline, which a plain
 * `split('\n')` loses.
 */
export function splitKeepEnds(text: string): string[] {
  const out: string[] = [];
  let start = 0;
  for (;;) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) {
      break;
    }
    out.push(text.slice(start, nl + 1));
    start = nl + 1;
  }
  if (start < text.length) {
    out.push(text.slice(start));
  }
  return out;
}

/** A maximal run of differing lines: `a[aStart, aEnd)` became `b[bStart, bEnd)`. */
export interface ChangeBlock {
  readonly aStart: number;
  readonly aEnd: number;
  readonly bStart: number;
  readonly bEnd: number;
}

/**
 * The differing runs between two line arrays, in order; runs are never adjacent (an equal line
 * separates any two). Reuses the Myers diff of `src/util/lineDiff` by diffing interned line ids,
 * one per line, so lines that differ only in their terminator count as different.
 */
export function changeBlocks(a: readonly string[], b: readonly string[]): ChangeBlock[] {
  // Cheap exits for the common cases (nothing changed; a new or deleted file).
  if (a.length === b.length && a.every((line, i) => line === b[i])) {
    return [];
  }
  if (a.length === 0 || b.length === 0) {
    return [{ aStart: 0, aEnd: a.length, bStart: 0, bEnd: b.length }];
  }
  const ids = new Map<string, number>();
  const key = (line: string): string => {
    let id = ids.get(line);
    if (id === undefined) {
      id = ids.size;
      ids.set(line, id);
    }
    return String(id);
  };
  const ops = diffLines(a.map(key).join('\n'), b.map(key).join('\n'));
  const blocks: ChangeBlock[] = [];
  let ai = 0;
  let bi = 0;
  let open: { aStart: number; bStart: number } | undefined;
  for (const op of ops) {
    if (op.kind === 'equal') {
      if (open !== undefined) {
        blocks.push({ aStart: open.aStart, aEnd: ai, bStart: open.bStart, bEnd: bi });
        open = undefined;
      }
      ai++;
      bi++;
      continue;
    }
    open ??= { aStart: ai, bStart: bi };
    if (op.kind === 'delete') {
      ai++;
    } else {
      bi++;
    }
  }
  if (open !== undefined) {
    blocks.push({ aStart: open.aStart, aEnd: ai, bStart: open.bStart, bEnd: bi });
  }
  return blocks;
}

/**
 * A copy of `s` that does not keep a larger string alive. V8 represents `slice()`s of long strings
 * as views into the parent, so a 40-character hunk cut from a 100 KB file would otherwise hold the
 * whole file in memory; a two-part `join` allocates a fresh flat string (measured in
 * test/unit/changes/snapshotFigure.test.ts).
 */
export function ownString(s: string): string {
  if (s.length < 2) {
    return s;
  }
  return [s.slice(0, 1), s.slice(1)].join('');
}
