import type { Slot } from '../viewStore';
import type { ScrollAnchor } from '../uiState';
import type { RowOffsets } from './rowHeights';
import type { TranscriptRows } from './transcriptRows';

/**
 * What the view holds still while rows are measured: a row, or in a row that starts above the
 * view the first Markdown block that reaches into it (`inner`: what is above it in the row may
 * change height: a Markdown group the browser first lays out when it comes near,
 * `content-visibility: auto`), and its top against the log's top.
 */
export interface ViewAnchor {
  readonly slot: Slot;
  readonly top: number;
  readonly inner?: Element | undefined;
}

type Rows = Pick<TranscriptRows, 'mounted' | 'rowOf'>;

/** The first row that reaches into the view, and where its top is against the log's (a layout read). */
export function anchorInView(log: Element, rows: Rows): ViewAnchor | undefined {
  const view = log.getBoundingClientRect();
  for (const slot of rows.mounted()) {
    const row = rows.rowOf(slot);
    const box = row?.getBoundingClientRect();
    if (row !== undefined && box !== undefined && box.bottom > view.top) {
      const inner = box.top < view.top ? blockInView(row, view.top) : undefined;
      return { slot, top: (inner?.getBoundingClientRect() ?? box).top - view.top, inner };
    }
  }
  return undefined;
}

/** How far the anchor moved from where it was held (px, down is positive); 0 when it has no row. */
export function anchorMoved(log: Element, rows: Rows, anchor: ViewAnchor): number {
  const row = anchor.inner ?? rows.rowOf(anchor.slot);
  return row?.isConnected === true ? row.getBoundingClientRect().top - log.getBoundingClientRect().top - anchor.top : 0;
}

/** The entry at `y` (list coordinates) and how far `y` is into it. */
export function anchorAt(y: number, slots: readonly Slot[], offsets: RowOffsets): ScrollAnchor | undefined {
  const top = Math.max(0, y);
  const index = offsets.indexAt(top);
  const slot = slots[index];
  return slot !== undefined ? { id: slot.id, offset: Math.round(top - offsets.offset(index)) } : undefined;
}

/** In a row that starts above the view, the first Markdown block that reaches into it (a layout read per group, and per block of that group). */
export function blockInView(row: Element, viewTop: number): Element | undefined {
  const reaches = (e: Element): boolean => e.getBoundingClientRect().bottom > viewTop;
  const group = Array.from(row.querySelectorAll('.md-group')).find(reaches);
  return group === undefined ? undefined : (Array.from(group.children).find(reaches) ?? group);
}

/**
 * Where the view goes back to when the page is rebuilt: the saved entry and how far into it (the
 * rows' estimates place it; the anchor holds it while they are measured), or the old pixel offset;
 * undefined when the user was at the bottom.
 */
export function savedPlace(
  ui: { readonly scrollTop: number; readonly anchor?: ScrollAnchor | undefined },
  slots: readonly Slot[],
  offsets: RowOffsets,
  listTop: number,
): { readonly y: number; readonly anchor: ViewAnchor | undefined } | undefined {
  if (ui.scrollTop < 0) {
    return undefined;
  }
  const saved = ui.anchor;
  const index = saved !== undefined ? slots.findIndex((s) => s.id === saved.id) : -1;
  const slot = slots[index];
  if (slot === undefined || saved === undefined) {
    return { y: Math.max(0, ui.scrollTop - listTop), anchor: undefined };
  }
  return { y: offsets.offset(index) + saved.offset, anchor: { slot, top: -saved.offset } };
}
