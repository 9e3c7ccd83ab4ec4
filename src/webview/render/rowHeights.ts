import type { EntryView } from '../../protocol/sessionView';
import type { Slot } from '../viewStore';

/** The gap under every row (its padding: measured with it). */
export const rowGapPx = 12;
const lineHeightPx = 20;

const textLines = new WeakMap<EntryView, number>();

/** Lines of text an entry shows (newlines plus wrapping at ~90 characters), cached per entry. */
function linesOf(entry: EntryView): number {
  const cached = textLines.get(entry);
  if (cached !== undefined) {
    return cached;
  }
  let lines = 0;
  const count = (text: string, cap: number): void => {
    let n = 1 + Math.floor(Math.min(text.length, 1_000_000) / 90);
    for (let i = text.indexOf('\n'); i >= 0 && n < cap; i = text.indexOf('\n', i + 1)) {
      n++;
    }
    lines += Math.min(cap, n);
  };
  switch (entry.kind) {
    case 'user':
      for (const b of entry.blocks) {
        count(b.type === 'text' ? b.text : '', 200);
      }
      break;
    case 'assistant':
      for (const p of entry.parts) {
        count(p.kind === 'text' ? p.text : '', 20_000);
      }
      break;
    case 'tool':
      for (const c of entry.content) {
        count(c.type === 'text' ? c.text : c.type === 'terminal' ? c.output : '', 18);
      }
      break;
    default:
      lines = 2;
  }
  textLines.set(entry, lines);
  return lines;
}

/** A row's height before it was ever laid out: by kind and lines of text. */
export function estimateHeight(slot: Slot): number {
  const lines = slot.entry !== undefined ? linesOf(slot.entry) : slot.lines;
  switch (slot.kind) {
    case 'user':
      return rowGapPx + 36 + lineHeightPx * Math.min(lines, 200);
    case 'assistant':
      return rowGapPx + 8 + lineHeightPx * lines;
    case 'tool':
      return rowGapPx + 34 + (lines > 0 ? 17 * Math.min(lines, 18) + 24 : 0);
    case 'turnEnd':
      return rowGapPx + 22;
    case 'plan':
      return rowGapPx + 90;
    case 'question':
      return rowGapPx + 140;
    case 'notice':
      return rowGapPx + 60;
  }
}

/**
 * A row's height: as laid out, or estimated. A row laid out for an older version of its entry
 * (text streamed in while it was off screen) is at least as tall as the estimate of the new one.
 */
export function rowHeight(slot: Slot): number {
  const measured = slot.height;
  if (measured === undefined) {
    return estimateHeight(slot);
  }
  return slot.measured === slot.entry ? measured : Math.max(measured, estimateHeight(slot));
}

/**
 * Where each row of the transcript starts: prefix sums of the rows' heights, recomputed from the
 * first row whose height changed (a streamed reply, the last row, costs one addition).
 */
export class RowOffsets {
  #offsets: number[] = [0];
  /** offsets[0…valid] are right. */
  #valid = 0;
  #slots: readonly Slot[] = [];

  /** The rows changed (inserted, removed, reordered): everything is recomputed on demand. */
  reset(slots: readonly Slot[]): void {
    this.#slots = slots;
    this.#valid = 0;
    this.#offsets.length = slots.length + 1;
  }

  /** Row `index`'s height changed. */
  invalidate(index: number): void {
    this.#valid = Math.max(0, Math.min(this.#valid, index));
  }

  get count(): number {
    return this.#slots.length;
  }

  /** Where row `index` starts (`count`: the total height). */
  offset(index: number): number {
    const i = Math.max(0, Math.min(index, this.#slots.length));
    if (i > this.#valid) {
      let y = this.#offsets[this.#valid] ?? 0;
      for (let k = this.#valid; k < i; k++) {
        const slot = this.#slots[k];
        y += slot !== undefined ? rowHeight(slot) : 0;
        this.#offsets[k + 1] = y;
      }
      this.#valid = i;
    }
    return this.#offsets[i] ?? 0;
  }

  total(): number {
    return this.offset(this.#slots.length);
  }

  /** The row at height `y` (the first row when above, the last when below). */
  indexAt(y: number): number {
    const n = this.#slots.length;
    if (n === 0) {
      return 0;
    }
    this.offset(n);
    let lo = 0;
    let hi = n - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if ((this.#offsets[mid] ?? 0) <= y) {
        lo = mid;
      } else {
        hi = mid - 1;
      }
    }
    return lo;
  }
}
