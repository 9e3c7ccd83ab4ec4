/**
 * UI-only state, persisted with `setState` so it survives the webview being hidden and reloaded:
 * `{ v: 1, ui: { draft, expanded, scrollTop, anchor? } }`. Never transcript data: the host re-sends that.
 * `scrollTop` is -1 while the transcript is pinned to the bottom; `anchor` is the entry at the
 * view's top and how far into it (px), which the virtualized transcript restores (its pixel
 * offsets depend on which entries were ever laid out).
 */
export interface ScrollAnchor {
  readonly id: string;
  readonly offset: number;
}

export interface UiStateV1 {
  readonly v: 1;
  readonly ui: { readonly draft: string; readonly expanded: Readonly<Record<string, boolean>>; readonly scrollTop: number; readonly anchor?: ScrollAnchor };
}

/** Older keys are dropped beyond this many remembered toggles. */
const maxExpandedKeys = 500;

export class UiState {
  #draftText = '';
  readonly #expanded = new Map<string, boolean>();
  #scroll = -1;
  #scrollAnchor: ScrollAnchor | undefined;

  readonly #persist: (state: UiStateV1) => void;

  constructor(saved: unknown, persist: (state: UiStateV1) => void) {
    this.#persist = persist;
    this.#restore(saved);
  }

  get draft(): string {
    return this.#draftText;
  }

  set draft(value: string) {
    if (value !== this.#draftText) {
      this.#draftText = value;
      this.#save();
    }
  }

  get scrollTop(): number {
    return this.#scroll;
  }

  set scrollTop(value: number) {
    this.setScroll(value, undefined);
  }

  get anchor(): ScrollAnchor | undefined {
    return this.#scrollAnchor;
  }

  /** Where the transcript is: -1 pinned to the bottom, else its offset and the entry at its top. */
  setScroll(value: number, anchor: ScrollAnchor | undefined): void {
    const rounded = Math.round(value);
    const kept = rounded < 0 ? undefined : anchor;
    if (rounded !== this.#scroll || kept?.id !== this.#scrollAnchor?.id || kept?.offset !== this.#scrollAnchor?.offset) {
      this.#scroll = rounded;
      this.#scrollAnchor = kept;
      this.#save();
    }
  }

  /** The user's choice for a collapsible (`undefined` when they never toggled it). */
  isExpanded(key: string): boolean | undefined {
    return this.#expanded.get(key);
  }

  setExpanded(key: string, value: boolean): void {
    this.#expanded.delete(key);
    this.#expanded.set(key, value);
    while (this.#expanded.size > maxExpandedKeys) {
      const oldest = this.#expanded.keys().next();
      if (oldest.done === true) {
        break;
      }
      this.#expanded.delete(oldest.value);
    }
    this.#save();
  }

  toJSON(): UiStateV1 {
    const anchor = this.#scrollAnchor;
    return { v: 1, ui: { draft: this.#draftText, expanded: Object.fromEntries(this.#expanded), scrollTop: this.#scroll, ...(anchor !== undefined ? { anchor } : {}) } };
  }

  #save(): void {
    this.#persist(this.toJSON());
  }

  /** Accepts only a well-formed v1 blob; anything else (another version, garbage) starts fresh. */
  #restore(saved: unknown): void {
    if (!isRecord(saved) || saved.v !== 1 || !isRecord(saved.ui)) {
      return;
    }
    const ui = saved.ui;
    if (typeof ui.draft === 'string') {
      this.#draftText = ui.draft;
    }
    if (typeof ui.scrollTop === 'number' && Number.isFinite(ui.scrollTop)) {
      this.#scroll = ui.scrollTop;
    }
    const anchor = ui.anchor;
    if (isRecord(anchor) && typeof anchor.id === 'string' && typeof anchor.offset === 'number' && Number.isFinite(anchor.offset)) {
      this.#scrollAnchor = { id: anchor.id, offset: anchor.offset };
    }
    if (isRecord(ui.expanded)) {
      for (const [key, value] of Object.entries(ui.expanded)) {
        if (typeof value === 'boolean') {
          this.#expanded.set(key, value);
        }
      }
    }
  }
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
