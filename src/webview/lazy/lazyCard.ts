import type { EntryView, SessionHeaderView } from '../../protocol/sessionView';
import { el, icon } from '../dom';
import { t } from '../strings';
import type { EntryComponent, SlotChange } from '../viewStore';
import { asError, cardsFile, loadCards, type Cards } from './cards';

/**
 * Runs `use` with the card classes: at once when the chunk is there, else when it arrives. A chunk
 * that cannot be loaded reaches `failed`, which shows {@link chunkError} where the card would be.
 */
export function withCards(use: (cards: Cards) => void, failed: (error: Error) => void): void {
  const cards = loadCards();
  if (!(cards instanceof Promise)) {
    use(cards);
    return;
  }
  cards.then(use, (error: unknown) => failed(asError(error)));
}

/** What shows instead of a card whose script did not load: what, why, and what to do. */
export function chunkError(what: string, error: Error): HTMLElement {
  return el('div', { class: 'notice notice-error lazy-error', attrs: { role: 'alert' } }, [
    icon('error', 'notice-icon'),
    el('span', {
      text: t('The {0} could not be shown: {1} ({2}.js, next to the webview bundle). Reload the window; if it stays, reinstall the extension.', what, error.message, cardsFile),
    }),
  ]);
}

/**
 * A card of the session header (sign-in, MCP summary) whose class comes with the cards chunk. The
 * chunk is fetched the first time a header needs the card; until it arrives the latest header is
 * kept and then rendered, so nothing shows half-built and no update is lost. `element` stays where
 * the app put it (`display: contents`) and holds the card, or the error.
 */
export class LazyHeaderCard<C extends { readonly element: HTMLElement; update(header: SessionHeaderView): void }> {
  readonly element = el('div', { class: 'lazy-slot' });
  #card: C | undefined;
  #latest: SessionHeaderView | undefined;
  #loading = false;

  readonly #what: string;
  readonly #needed: (header: SessionHeaderView) => boolean;
  readonly #create: (cards: Cards) => C;

  constructor(what: string, needed: (header: SessionHeaderView) => boolean, create: (cards: Cards) => C) {
    this.#what = what;
    this.#needed = needed;
    this.#create = create;
  }

  update(header: SessionHeaderView): void {
    if (this.#card !== undefined) {
      this.#card.update(header);
      return;
    }
    this.#latest = header;
    if (!this.#needed(header)) {
      this.element.replaceChildren();
      return;
    }
    if (this.#loading) {
      return;
    }
    this.#loading = true;
    withCards(
      (cards) => {
        this.#loading = false;
        const card = this.#create(cards);
        this.#card = card;
        this.element.replaceChildren(card.element);
        if (this.#latest !== undefined) {
          card.update(this.#latest);
        }
      },
      (error) => {
        this.#loading = false;
        if (this.#latest !== undefined && this.#needed(this.#latest)) {
          this.element.replaceChildren(chunkError(this.#what, error));
        }
      },
    );
  }
}

/**
 * The component of a transcript entry whose class comes with the cards chunk (questions, notices,
 * turn footers): the card itself when the chunk is there (normally: the page fetches it when
 * idle), else a {@link LazyEntry} standing in for it.
 */
export function cardEntry(kind: EntryView['kind'], what: string, create: (cards: Cards) => EntryComponent): EntryComponent {
  const cards = loadCards();
  return cards instanceof Promise ? new LazyEntry(kind, what, create) : create(cards);
}

/**
 * Stands in for an entry's card until the chunk arrives. The transcript places `element` at once
 * (`display: contents`); the card renders into it, from the latest entry, when the chunk arrives.
 */
export class LazyEntry implements EntryComponent {
  readonly element = el('div', { class: 'lazy-slot' });
  #inner: EntryComponent | undefined;
  #latest: EntryView | undefined;
  #disposed = false;

  constructor(
    readonly kind: EntryView['kind'],
    what: string,
    create: (cards: Cards) => EntryComponent,
  ) {
    withCards(
      (cards) => {
        if (this.#disposed) {
          return;
        }
        const inner = create(cards);
        this.#inner = inner;
        this.element.replaceChildren(inner.element);
        if (this.#latest !== undefined) {
          inner.update(this.#latest, 'full');
        }
      },
      (error) => this.element.replaceChildren(chunkError(what, error)),
    );
  }

  update(entry: EntryView, change: SlotChange): void {
    this.#latest = entry;
    this.#inner?.update(entry, change);
  }

  headerChanged(): void {
    this.#inner?.headerChanged?.();
  }

  dispose(): void {
    this.#disposed = true;
    this.#inner?.dispose?.();
  }
}
