import type { Slot } from '../viewStore';
import type { ScrollAnchor } from '../uiState';
import type { RowOffsets } from './rowHeights';

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
): { readonly y: number; readonly anchor: { readonly slot: Slot; readonly top: number } | undefined } | undefined {
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
