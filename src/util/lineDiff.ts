import { pushAll } from './arrays';

/**
 * Line diff (Myers' O(ND) algorithm) with hunk grouping. Used for the +/− counts on tool cards,
 * the diff summaries in the transcript and the per-hunk keep/revert of agent changes.
 */
export interface DiffLineOp {
  readonly kind: 'equal' | 'delete' | 'insert';
  readonly line: string;
}

export interface Hunk {
  /** 1-based first line in the old text (0 when the old range is empty). */
  readonly oldStart: number;
  readonly oldLines: number;
  readonly newStart: number;
  readonly newLines: number;
  readonly lines: readonly DiffLineOp[];
}

export interface DiffStats {
  readonly added: number;
  readonly removed: number;
}

/** Beyond this many edit steps we stop searching and report a replace of the differing middle. */
const maxEditDistance = 4000;

export function splitLines(text: string): string[] {
  if (text === '') {
    return [];
  }
  const lines = text.split('\n');
  if (lines[lines.length - 1] === '') {
    lines.pop();
  }
  return lines;
}

export function diffLines(oldText: string, newText: string): DiffLineOp[] {
  const a = splitLines(oldText);
  const b = splitLines(newText);
  // Trim the common prefix and suffix first: typical edits touch a few lines of a long file.
  let start = 0;
  while (start < a.length && start < b.length && a[start] === b[start]) {
    start++;
  }
  let endA = a.length;
  let endB = b.length;
  while (endA > start && endB > start && a[endA - 1] === b[endB - 1]) {
    endA--;
    endB--;
  }
  const ops: DiffLineOp[] = [];
  for (let i = 0; i < start; i++) {
    ops.push({ kind: 'equal', line: a[i] ?? '' });
  }
  pushAll(ops, myers(a.slice(start, endA), b.slice(start, endB)));
  for (let i = endA; i < a.length; i++) {
    ops.push({ kind: 'equal', line: a[i] ?? '' });
  }
  return ops;
}

function myers(a: readonly string[], b: readonly string[]): DiffLineOp[] {
  const n = a.length;
  const m = b.length;
  if (n === 0 || m === 0) {
    return [...a.map((line) => ({ kind: 'delete' as const, line })), ...b.map((line) => ({ kind: 'insert' as const, line }))];
  }
  const max = Math.min(n + m, maxEditDistance);
  const offset = max + 1;
  const v = new Int32Array(2 * max + 3);
  const trace: Int32Array[] = [];
  let found = false;
  for (let d = 0; d <= max && !found; d++) {
    trace.push(v.slice());
    for (let k = -d; k <= d; k += 2) {
      const down = k === -d || (k !== d && (v[offset + k - 1] ?? 0) < (v[offset + k + 1] ?? 0));
      let x = down ? (v[offset + k + 1] ?? 0) : (v[offset + k - 1] ?? 0) + 1;
      let y = x - k;
      while (x < n && y < m && a[x] === b[y]) {
        x++;
        y++;
      }
      v[offset + k] = x;
      if (x >= n && y >= m) {
        found = true;
        break;
      }
    }
  }
  if (!found) {
    // Too different to be worth the search: show it as a block replace.
    return [...a.map((line) => ({ kind: 'delete' as const, line })), ...b.map((line) => ({ kind: 'insert' as const, line }))];
  }
  // Backtrack through the saved frontiers.
  const out: DiffLineOp[] = [];
  let x = n;
  let y = m;
  for (let d = trace.length - 1; d > 0; d--) {
    const vd = trace[d];
    if (vd === undefined) {
      break;
    }
    const k = x - y;
    const down = k === -d || (k !== d && (vd[offset + k - 1] ?? 0) < (vd[offset + k + 1] ?? 0));
    const prevK = down ? k + 1 : k - 1;
    const prevX = vd[offset + prevK] ?? 0;
    const prevY = prevX - prevK;
    while (x > prevX && y > prevY) {
      out.push({ kind: 'equal', line: a[x - 1] ?? '' });
      x--;
      y--;
    }
    if (down) {
      out.push({ kind: 'insert', line: b[y - 1] ?? '' });
    } else {
      out.push({ kind: 'delete', line: a[x - 1] ?? '' });
    }
    x = prevX;
    y = prevY;
  }
  while (x > 0 && y > 0) {
    out.push({ kind: 'equal', line: a[x - 1] ?? '' });
    x--;
    y--;
  }
  return out.reverse();
}

export function diffStats(oldText: string, newText: string): DiffStats {
  let added = 0;
  let removed = 0;
  for (const op of diffLines(oldText, newText)) {
    if (op.kind === 'insert') {
      added++;
    } else if (op.kind === 'delete') {
      removed++;
    }
  }
  return { added, removed };
}

/** Groups a diff into hunks with `context` unchanged lines around each change. */
export function diffHunks(oldText: string, newText: string, context = 3): Hunk[] {
  const ops = diffLines(oldText, newText);
  const hunks: Hunk[] = [];
  let oldLine = 1;
  let newLine = 1;
  let current: { oldStart: number; newStart: number; lines: DiffLineOp[]; trailingEqual: number } | undefined;
  const close = (): void => {
    if (current === undefined) {
      return;
    }
    const lines = current.trailingEqual > context ? current.lines.slice(0, current.lines.length - (current.trailingEqual - context)) : current.lines;
    const oldLines = lines.filter((l) => l.kind !== 'insert').length;
    const newLines = lines.filter((l) => l.kind !== 'delete').length;
    hunks.push({ oldStart: oldLines === 0 ? current.oldStart - 1 : current.oldStart, oldLines, newStart: newLines === 0 ? current.newStart - 1 : current.newStart, newLines, lines });
    current = undefined;
  };
  for (let i = 0; i < ops.length; i++) {
    const op = ops[i];
    if (op === undefined) {
      continue;
    }
    if (op.kind === 'equal') {
      if (current !== undefined) {
        current.lines.push(op);
        current.trailingEqual++;
        if (current.trailingEqual > context * 2) {
          close();
        }
      }
      oldLine++;
      newLine++;
      continue;
    }
    if (current === undefined) {
      const before: DiffLineOp[] = [];
      for (let j = Math.max(0, i - context); j < i; j++) {
        const prev = ops[j];
        if (prev?.kind === 'equal') {
          before.push(prev);
        }
      }
      current = { oldStart: oldLine - before.length, newStart: newLine - before.length, lines: before, trailingEqual: 0 };
    }
    current.lines.push(op);
    current.trailingEqual = 0;
    if (op.kind === 'delete') {
      oldLine++;
    } else {
      newLine++;
    }
  }
  close();
  return hunks;
}
