import type { EntryView } from '../../protocol/sessionView';
import { domWindow, el } from '../dom';
import { cardEntry } from '../lazy/lazyCard';
import { t } from '../strings';
import type { EntryComponent, Slot } from '../viewStore';
import { AssistantMessageView } from './assistantMessage';
import type { RenderEnv } from './env';
import { RowOffsets } from './rowHeights';
import { ToolCallView } from './toolCall';
import { UserMessageView } from './userMessage';

export function createComponent(entry: EntryView, env: RenderEnv): EntryComponent {
  switch (entry.kind) {
    case 'user':
      return new UserMessageView(env);
    case 'assistant':
      return new AssistantMessageView(env);
    case 'tool':
      return new ToolCallView(env);
    case 'plan':
      return cardEntry('plan', t('plan'), (cards) => new cards.PlanView());
    case 'notice':
      return cardEntry('notice', t('notice'), (cards) => new cards.NoticeView(env));
    case 'turnEnd':
      return cardEntry('turnEnd', t('turn summary'), (cards) => new cards.TurnEndView(env));
    case 'question':
      return cardEntry('question', t('question'), (cards) => new cards.QuestionView(env));
  }
}

/** Heights of the two spacers, set without a `style` attribute (a constructed stylesheet; the CSP allows CSSOM). */
type SpacerSizer = (top: number, bottom: number) => void;

function spacerSizer(doc: Document, top: HTMLElement, bottom: HTMLElement): SpacerSizer {
  const win = doc.defaultView;
  if (win !== null && typeof win.CSSStyleSheet === 'function' && Array.isArray(doc.adoptedStyleSheets)) {
    try {
      const sheet = new win.CSSStyleSheet();
      sheet.replaceSync('.transcript-spacer.above { height: 0px; } .transcript-spacer.below { height: 0px; }');
      doc.adoptedStyleSheets = [...doc.adoptedStyleSheets, sheet];
      const [above, below] = Array.from(sheet.cssRules) as CSSStyleRule[];
      if (above !== undefined && below !== undefined) {
        return (a, b) => {
          above.style.height = `${Math.round(a)}px`;
          below.style.height = `${Math.round(b)}px`;
        };
      }
    } catch {
      // fall through: no constructable stylesheets (jsdom)
    }
  }
  return (a, b) => {
    top.style.height = `${Math.round(a)}px`;
    bottom.style.height = `${Math.round(b)}px`;
  };
}

export interface RowsHost {
  /** Rows were laid out (their sizes are known now; called after layout, before paint). */
  measured(): void;
}

/**
 * The transcript's rows in the DOM: only those of a window of entries (`setWindow`), between two
 * spacers as tall as the rows outside it, so the scrollbar spans the whole conversation. Each row
 * (`.entry-row`, the entry's card and the gap under it) is measured by a ResizeObserver after
 * layout, never by a forced layout; a row that has not been laid out counts as its estimate.
 */
export class TranscriptRows {
  readonly list = el('div', { class: 'transcript-list' });
  readonly offsets = new RowOffsets();
  readonly #above = el('div', { class: 'transcript-spacer above', attrs: { 'aria-hidden': 'true' } });
  readonly #below = el('div', { class: 'transcript-spacer below', attrs: { 'aria-hidden': 'true' } });
  readonly #size: SpacerSizer;
  readonly #rows = new Map<Slot, HTMLElement>();
  readonly #slotOf = new WeakMap<Element, Slot>();
  readonly #index = new Map<Slot, number>();
  readonly #observer: ResizeObserver | undefined;
  #slots: readonly Slot[] = [];
  #from = 0;
  #to = 0;
  #sized = { above: -1, below: -1 };

  readonly #env: RenderEnv;
  readonly #host: RowsHost;
  readonly #scroller: HTMLElement;

  constructor(
    env: RenderEnv,
    host: RowsHost,
    scroller: HTMLElement,
  ) {
    this.#env = env;
    this.#host = host;
    this.#scroller = scroller;
    this.list.append(this.#above, this.#below);
    this.#size = spacerSizer(this.list.ownerDocument, this.#above, this.#below);
    const win = domWindow();
    if ('ResizeObserver' in win) {
      this.#observer = new win.ResizeObserver((entries) => this.#onResize(entries));
      // A spacer that changes moves the rows after it: the transcript holds its view then too.
      this.#observer.observe(this.#above);
      this.#observer.observe(this.#below);
    }
  }

  /** The spacers standing for the entries before and after the rows. */
  get spacers(): { readonly above: HTMLElement; readonly below: HTMLElement } {
    return { above: this.#above, below: this.#below };
  }

  /** Whether rows are measured (a browser); without it (jsdom) every row is its estimate. */
  get measuring(): boolean {
    return this.#observer !== undefined;
  }

  get start(): number {
    return this.#from;
  }

  get end(): number {
    return this.#to;
  }

  /** The slots with a row, in order. */
  mounted(): Slot[] {
    return this.#slots.slice(this.#from, this.#to);
  }

  isMounted(slot: Slot): boolean {
    return this.#rows.has(slot);
  }

  indexOf(slot: Slot): number {
    return this.#index.get(slot) ?? this.#slots.indexOf(slot);
  }

  rowOf(slot: Slot): HTMLElement | undefined {
    return this.#rows.get(slot);
  }

  /** The list of slots changed (a frame's inserts and removes, or a snapshot). */
  setSlots(slots: readonly Slot[]): void {
    this.#slots = slots;
    this.offsets.reset(slots);
    // The rows keep their slots; their window is where those slots are now.
    let first = -1;
    let last = -1;
    if (this.#rows.size > 0) {
      for (let i = 0; i < slots.length; i++) {
        const s = slots[i];
        if (s !== undefined && this.#rows.has(s)) {
          first = first < 0 ? i : first;
          last = i;
        }
      }
    }
    this.#from = first < 0 ? 0 : first;
    this.#to = first < 0 ? 0 : last + 1;
    this.#reindex();
  }

  /** Heights outside the window may have changed (entries updated while not shown). */
  heightsChanged(): void {
    this.offsets.reset(this.#slots);
    this.#sizeSpacers();
  }

  /** A slot's row is gone with its entry. */
  drop(slot: Slot): void {
    const row = this.#rows.get(slot);
    if (row !== undefined) {
      this.#unmount(slot, row);
    }
  }

  /** Shows rows `from`…`to - 1` (and only those); returns the slots that got a row. */
  setWindow(from: number, to: number): Slot[] {
    const start = Math.max(0, Math.min(from, this.#slots.length));
    const end = Math.max(start, Math.min(to, this.#slots.length));
    const wanted = this.#slots.slice(start, end);
    const keep = new Set(wanted);
    for (const [slot, row] of this.#rows) {
      if (!keep.has(slot)) {
        this.#unmount(slot, row);
      }
    }
    const fresh: Slot[] = [];
    let cursor: ChildNode | null = this.#above.nextSibling;
    for (const slot of wanted) {
      let row = this.#rows.get(slot);
      if (row === undefined) {
        row = this.#mount(slot);
        fresh.push(slot);
      }
      if (row === cursor) {
        cursor = cursor.nextSibling;
      } else {
        this.list.insertBefore(row, cursor);
      }
    }
    this.#from = start;
    this.#to = end;
    this.#reindex();
    this.#sizeSpacers();
    return fresh;
  }

  /** A slot's entry arrived or changed while it has a row: its card is built or updated. */
  update(slot: Slot): void {
    const row = this.#rows.get(slot);
    const entry = slot.entry;
    if (row === undefined || entry === undefined) {
      return;
    }
    if (slot.component === undefined) {
      this.#build(slot, row, entry);
    } else {
      slot.component.update(entry, slot.change);
    }
  }

  #mount(slot: Slot): HTMLElement {
    const row = el('div', { class: 'entry-row' });
    this.#rows.set(slot, row);
    this.#slotOf.set(row, slot);
    if (slot.entry !== undefined) {
      this.#build(slot, row, slot.entry);
    } else {
      row.classList.add('pending');
      row.append(el('div', { class: 'entry-pending muted', text: t('Loading…') }));
    }
    this.#observer?.observe(row);
    return row;
  }

  #build(slot: Slot, row: HTMLElement, entry: EntryView): void {
    const component = createComponent(entry, this.#env);
    slot.component = component;
    component.update(entry, 'full');
    row.classList.remove('pending');
    row.replaceChildren(component.element);
  }

  #unmount(slot: Slot, row: HTMLElement): void {
    const focused = row.ownerDocument.activeElement;
    if (focused !== null && row.contains(focused)) {
      this.#scroller.focus({ preventScroll: true }); // the keyboard keeps its place in the log
    }
    slot.component?.dispose?.();
    slot.component = undefined;
    this.#observer?.unobserve(row);
    row.remove();
    this.#rows.delete(slot);
    this.#index.delete(slot);
  }

  #reindex(): void {
    this.#index.clear();
    for (let i = this.#from; i < this.#to; i++) {
      const s = this.#slots[i];
      if (s !== undefined) {
        this.#index.set(s, i);
      }
    }
  }

  #sizeSpacers(): void {
    const above = this.offsets.offset(this.#from);
    const below = this.offsets.total() - this.offsets.offset(this.#to);
    if (above !== this.#sized.above || below !== this.#sized.below) {
      this.#sized = { above, below };
      this.#size(above, below);
    }
  }

  #onResize(entries: readonly ResizeObserverEntry[]): void {
    let first = Infinity;
    for (const e of entries) {
      const slot = this.#slotOf.get(e.target);
      if (slot?.component === undefined || !this.#rows.has(slot)) {
        continue; // gone, or a placeholder waiting for its entry
      }
      const height = e.borderBoxSize?.[0]?.blockSize ?? e.contentRect.height;
      const index = this.indexOf(slot);
      if (index >= 0 && (height !== slot.height || slot.measured !== slot.entry)) {
        slot.height = height;
        slot.measured = slot.entry;
        first = Math.min(first, index);
      }
    }
    if (first !== Infinity) {
      this.offsets.invalidate(first);
      this.#sizeSpacers();
    }
    this.#host.measured();
  }
}
