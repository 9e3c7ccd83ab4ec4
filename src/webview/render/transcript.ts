import { button, domWindow, el, setHidden } from '../dom';
import { t } from '../strings';
import type { Frame, Slot } from '../viewStore';
import type { RenderEnv } from './env';
import { followLink, TranscriptNews } from './transcriptNews';
import { TranscriptRows } from './transcriptRows';
import { anchorAt, anchorInView, anchorMoved, savedPlace, type ViewAnchor } from './scrollPlace';
import { emptyState } from './emptyState';
import { setFollowingEnd } from '../markdown/viewLimits';

/** Closer than this to the bottom counts as "at the bottom". */
const bottomSlackPx = 24;
/** Rows are kept this far (at least) beyond the view, above and below: scrolling finds them laid out. */
const minOverscanPx = 800;
/** What the keys the log handles itself move it by, in views (a page is the browser's: 87.5% of the view). */
const keySteps: Readonly<Record<string, number>> = { Home: -Infinity, End: Infinity, MetaArrowUp: -Infinity, MetaArrowDown: Infinity, PageUp: -0.875, PageDown: 0.875 };
/** The view's height when the page has no layout (hidden, or jsdom). */
const fallbackViewPx = 1_000;

export interface TranscriptHooks {
  /** True when the user is typing in the composer: a new permission prompt must not take focus. */
  composerBusy(): boolean;
  /** Asks the host for entries `from`…`to - 1` (a long session's outlined ones); resolves once applied or refused. */
  loadEntries(from: number, to: number): Promise<void>;
}

/**
 * The conversation, virtualized: only the entries in and near the view have DOM (rows between two
 * spacers, `TranscriptRows`); the others are data, or outlines the host fills in on demand. A frame
 * touches only the entries that changed and have a row. Sticks to the bottom while the user is
 * there, and offers "Jump to latest" when they scrolled up; heights corrected after layout move
 * the view by what changed above it, so nothing jumps.
 */
export class Transcript {
  readonly element: HTMLElement;
  /** The scroll container, `role="log"`. */
  readonly log: HTMLElement;
  readonly rows: TranscriptRows;
  readonly #empty = el('div', { class: 'empty-state' });
  readonly #jump: HTMLButtonElement;
  #slots: readonly Slot[] = [];
  #pinned = true;
  #lastScrollTop = 0;
  /** The content's height at the last scroll event (or our own scroll): a scroll up that comes with a new height is layout's, not the user's. */
  #lastScrollHeight = 0;
  /** When the user last turned the wheel, pressed a key or a pointer (a touch too) in the log (ms, `performance.now()`). */
  #userInputAt = -Infinity;
  #restored = false;
  #saveTimer: number | undefined;
  #loading = false;
  readonly #waiting = new Map<Slot, (row: HTMLElement | undefined) => void>();
  readonly #news: TranscriptNews;
  /** What the view holds still while rows are measured (not while pinned). */
  #anchor: ViewAnchor | undefined;
  /** Until the next frame: the view is where we put it (a scroll event then does not choose a new anchor). */
  #holding = false;
  /** Until the next frame (set once a frame): rows were mounted or measured, so a scroll up with the height unchanged may be layout's, not the user's (see `#onScroll`). */
  #reflowing = false;

  readonly #env: RenderEnv;
  readonly #hooks: TranscriptHooks;

  constructor(
    env: RenderEnv,
    hooks: TranscriptHooks,
  ) {
    this.#env = env;
    this.#hooks = hooks;
    this.#news = new TranscriptNews(env, {
      composerBusy: () => hooks.composerBusy(),
      isMounted: (slot) => this.rows.isMounted(slot),
      reveal: (id) => void this.reveal(id),
    });
    this.log = el('div', { class: 'transcript', attrs: { role: 'log', 'aria-live': 'off', tabindex: '0', 'aria-describedby': 'transcript-extent' } });
    this.rows = new TranscriptRows(env, { measured: () => this.#measured() }, this.log);
    this.log.append(this.#news.extent, this.rows.list, this.#empty);
    this.log.setAttribute('aria-label', t('Conversation'));
    this.#jump = button(t('Jump to latest'), { icon: 'arrow-down', class: 'jump-latest', onClick: () => this.jumpToLatest() });
    setHidden(this.#jump, true);
    this.element = el('div', { class: 'transcript-wrap' }, [this.log, this.#jump]);
    this.log.addEventListener('scroll', (e) => this.#onScroll(e));
    this.log.addEventListener('keydown', (e) => this.#onKey(e));
    for (const type of ['wheel', 'pointerdown'] as const) {
      this.log.addEventListener(type, (e) => (this.#userInputAt = e.timeStamp), { passive: true });
    }
    this.log.addEventListener('click', (e) => followLink(e, this.log, env));
    const win = domWindow();
    if ('ResizeObserver' in win) {
      // The view's own size changes (a resized panel, the composer growing): stay at the bottom.
      new win.ResizeObserver(() => this.#stick()).observe(this.log);
    }
    this.#renderEmpty(true);
  }

  render(frame: Frame, slots: readonly Slot[]): void {
    this.#slots = slots;
    for (const slot of frame.removed) {
      this.rows.drop(slot);
      this.#waiting.get(slot)?.(undefined);
      this.#waiting.delete(slot);
    }
    if (frame.structure) {
      this.rows.setSlots(slots);
    }
    let offScreen = false;
    for (const slot of frame.dirty) {
      if (this.rows.isMounted(slot)) {
        this.rows.update(slot);
      } else {
        offScreen = true;
      }
    }
    if (offScreen && !frame.structure) {
      this.rows.heightsChanged();
    }
    if (frame.header) {
      for (const slot of this.rows.mounted()) {
        slot.component?.headerChanged?.();
      }
    }
    this.#renderEmpty(false);
    if (frame.snapshot && !this.#restored) {
      this.#restored = true;
      this.#restoreScroll();
    }
    this.#updateWindow(frame.structure);
    this.#news.render(frame, slots);
    this.#settleWaiting();
    // Growth is the rows' ResizeObserver's (after layout, so reading the scroll height costs nothing).
    if (frame.snapshot || !this.rows.measuring) {
      this.#stick();
    }
  }

  /** The turn ended: each message on screen as rendered renders now what its streaming view held
   *  back (in the task of the message that ended the turn, before the frame). */
  turnEnded(): void {
    for (const slot of this.rows.mounted()) {
      if (slot.change === 'none') {
        slot.component?.turnEnded?.();
      }
    }
  }

  jumpToLatest(): void {
    this.#pinned = true;
    this.#updateWindow(true);
    this.#scrollToBottom();
    this.#updateJump();
  }

  /**
   * Brings entry `id` into view (its row built, its entry fetched if need be); resolves with its row
   * once it shows the entry, or undefined when the entry is gone.
   */
  reveal(id: string): Promise<HTMLElement | undefined> {
    const index = this.#slots.findIndex((s) => s.id === id);
    const slot = this.#slots[index];
    if (slot === undefined) {
      return Promise.resolve(undefined);
    }
    // Held a third of the way down while the rows around it load and are measured.
    const view = this.#viewHeight();
    this.#goTo(this.rows.offsets.offset(index) - view / 3, { slot, top: view / 3 });
    this.#scheduleSave();
    const row = this.rows.rowOf(slot);
    if (row !== undefined && slot.component !== undefined) {
      return Promise.resolve(row);
    }
    this.#waiting.get(slot)?.(undefined);
    return new Promise((resolve) => this.#waiting.set(slot, resolve));
  }

  /** A permission prompt that waited for the cards chunk is there: it gets the focus it was owed. */
  permissionShown(): void {
    this.#news.permissionShown();
  }

  /** The entries shown: the first and last index with a row, and how many there are. */
  get extentOf(): { readonly start: number; readonly end: number; readonly count: number } {
    return { start: this.rows.start, end: this.rows.end, count: this.#slots.length };
  }

  #settleWaiting(): void {
    for (const [slot, resolve] of this.#waiting) {
      const row = this.rows.rowOf(slot);
      if (row !== undefined && slot.component !== undefined) {
        this.#waiting.delete(slot);
        resolve(row);
      }
    }
  }

  #viewHeight(): number {
    return this.log.clientHeight > 0 ? this.log.clientHeight : fallbackViewPx;
  }

  #listTop(): number {
    return this.rows.list.offsetTop;
  }

  /** Rows for what is in view at `top` (list coordinates) and around it, when those it has do not cover it. */
  #updateWindow(force = false): void {
    const view = this.#viewHeight();
    const offsets = this.rows.offsets;
    const top = this.#pinned ? Math.max(0, offsets.total() - view) : Math.max(0, this.log.scrollTop - this.#listTop());
    const margin = Math.max(minOverscanPx, view) / 2;
    const need = { from: offsets.indexAt(top - margin), to: offsets.indexAt(top + view + margin) + 1 };
    const { start, end } = this.rows;
    if (force || need.from < start || need.to > end || (end - start === 0 && this.#slots.length > 0)) {
      this.#mountAround(top, view);
    } else {
      this.#loadMissing();
    }
  }

  #mountAround(top: number, view: number): void {
    const offsets = this.rows.offsets;
    const over = Math.max(minOverscanPx, view);
    this.rows.setWindow(offsets.indexAt(top - over), offsets.indexAt(top + view + over) + 1);
    this.#news.describeExtent(this.extentOf);
    this.#loadMissing();
  }

  /** Asks the host for the entries of rows that have none (or an outdated one), one request at a time. */
  #loadMissing(): void {
    if (this.#loading) {
      return;
    }
    let first = -1;
    let last = -1;
    for (let i = this.rows.start; i < this.rows.end; i++) {
      const slot = this.#slots[i];
      if (slot !== undefined && (slot.entry === undefined || slot.stale)) {
        first = first < 0 ? i : first;
        last = i;
      }
    }
    if (first < 0) {
      return;
    }
    this.#loading = true;
    void this.#hooks.loadEntries(first, last + 1).finally(() => {
      this.#loading = false;
    });
  }

  /**
   * Rows were laid out after a change (mounted, loaded, grown): the view keeps what the user
   * looked at where it was — the anchor row's top, against the log's — or stays at the bottom.
   * Estimates made the rows above it taller or shorter than they turned out: this is the correction,
   * made before the frame is painted, so nothing jumps.
   */
  #measured(): void {
    if (!this.#reflowing) {
      this.#reflowing = true;
      domWindow().requestAnimationFrame(() => (this.#reflowing = false));
    }
    if (this.#pinned) {
      this.#stick();
    } else {
      this.#holdAnchor();
    }
    this.#updateWindow();
  }

  #holdAnchor(): void {
    const delta = this.#anchor === undefined ? 0 : anchorMoved(this.log, this.rows, this.#anchor);
    if (Math.abs(delta) >= 0.5) {
      this.#setScrollTop(this.log.scrollTop + delta);
    }
  }

  #renderEmpty(initial: boolean): void {
    const isEmpty = this.#slots.length === 0;
    setHidden(this.#empty, !isEmpty);
    if (isEmpty) {
      this.#empty.replaceChildren(...emptyState(initial, this.#env.header()));
    }
  }

  #onScroll(e: Event): void {
    const log = this.log;
    const height = log.scrollHeight;
    const theUsers = e.timeStamp - this.#userInputAt < 1000 || (height === this.#lastScrollHeight && !this.#reflowing);
    if (height - log.scrollTop - log.clientHeight <= bottomSlackPx) {
      this.#pinned = true;
    } else if (log.scrollTop < this.#lastScrollTop - 1 && theUsers) {
      this.#pinned = false;
    } else if (this.#pinned) {
      // Not the user's: a list shorter for a moment (a row made anew: Markdown groups at 600 px).
      this.#scrollToBottom();
    }
    this.#lastScrollTop = log.scrollTop;
    this.#lastScrollHeight = height;
    this.#updateJump();
    if (!this.#holding) {
      this.#anchor = this.#pinned ? undefined : anchorInView(this.log, this.rows);
    }
    this.#updateWindow();
    this.#scheduleSave();
  }

  /**
   * Home, End, Page Up and Page Down move the view in one step, holding the entry then at its top
   * while rows are measured. The browser's own are animated scrolls that the first height
   * correction on their way (our `scrollTop`) ended early: Home stopped hundreds of pixels short of
   * the top, a page now and then moved half a page. Not in a field (a question's answer), in a box
   * that scrolls by itself (a terminal's output keeps its keys), or when a card took the key.
   */
  #onKey(e: KeyboardEvent): void {
    this.#userInputAt = e.timeStamp;
    // macOS: Cmd+Up and Cmd+Down are Home and End.
    const step = keySteps[e.metaKey && e.key.startsWith('Arrow') ? `Meta${e.key}` : e.key];
    if (step === undefined || e.altKey || e.shiftKey || e.defaultPrevented) {
      return;
    }
    if (e.target instanceof domWindow().Element && e.target.closest('input, textarea, select, pre') !== null) {
      return;
    }
    e.preventDefault();
    const log = this.log;
    const top = log.scrollTop + step * this.#viewHeight();
    if (top >= log.scrollHeight - log.clientHeight - bottomSlackPx) {
      this.jumpToLatest();
      return;
    }
    const offsets = this.rows.offsets;
    const y = Math.max(-this.#listTop(), top - this.#listTop());
    const index = offsets.indexAt(y);
    const slot = this.#slots[index];
    this.#goTo(y, slot && { slot, top: offsets.offset(index) - y });
    this.#scheduleSave();
  }

  #updateJump(): void {
    setHidden(this.#jump, this.#pinned);
    setFollowingEnd(this.#pinned);
  }

  #stick(): void {
    if (this.#pinned) {
      this.#scrollToBottom();
    }
  }

  #scrollToBottom(): void {
    const log = this.log;
    const top = log.scrollHeight - log.clientHeight;
    if (top > 0 && Math.abs(log.scrollTop - top) > 1) {
      log.scrollTop = top;
    }
    this.#lastScrollTop = log.scrollTop;
    this.#lastScrollHeight = log.scrollHeight;
  }

  /** The view at `y` (list coordinates), not following the reply; `anchor` held where it is while rows are measured. */
  #goTo(y: number, anchor: ViewAnchor | undefined): void {
    this.#pinned = false;
    this.#mountAround(y, this.#viewHeight());
    this.#setScrollTop(this.#listTop() + y);
    this.#anchor = anchor;
    this.#updateJump();
  }

  /** Our own scroll: the scroll event it fires keeps the anchor (it is where we put the view). */
  #setScrollTop(top: number): void {
    const log = this.log;
    const before = log.scrollTop;
    log.scrollTop = Math.max(0, top);
    this.#lastScrollTop = log.scrollTop;
    if (log.scrollTop !== before) {
      this.#holding = true;
      domWindow().requestAnimationFrame(() => (this.#holding = false));
    }
  }

  /** The place the user left (an entry and how far into it), or the old pixel offset. */
  #restoreScroll(): void {
    const place = savedPlace(this.#env.ui, this.#slots, this.rows.offsets, this.#listTop());
    if (place === undefined) {
      return;
    }
    this.#goTo(place.y, place.anchor);
  }

  #scheduleSave(): void {
    if (this.#saveTimer !== undefined) {
      return;
    }
    this.#saveTimer = this.#env.scheduler.setTimeout(() => {
      this.#saveTimer = undefined;
      if (this.#pinned) {
        this.#env.ui.setScroll(-1, undefined);
        return;
      }
      this.#env.ui.setScroll(this.log.scrollTop, anchorAt(this.log.scrollTop - this.#listTop(), this.#slots, this.rows.offsets));
    }, 250);
  }
}
