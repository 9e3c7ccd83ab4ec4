import { el } from '../dom';
import type { Cards } from './cards';
import { withCards } from './lazyCard';

interface Menu {
  readonly element: HTMLElement;
  readonly isOpen: boolean;
  handleKey(e: KeyboardEvent): boolean;
  close(): void;
}

/**
 * The composer's `/` and `@` menus, whose classes come with the cards chunk (the page fetches it
 * when idle after its first paint, so it is normally there before anyone types). Until it arrives
 * the composer works without them: keys go to the textarea and the text is sent as typed; once it
 * arrives the menu is evaluated for what is typed by then. A chunk that cannot be loaded leaves
 * the menus off (the cards that need it show the error) rather than retrying on every keystroke.
 */
export class LazyMenu<M extends Menu> {
  readonly element = el('div', { class: 'lazy-slot' });
  #menu: M | undefined;
  #state: 'idle' | 'loading' | 'failed' = 'idle';

  readonly #create: (cards: Cards) => M;
  readonly #evaluate: (menu: M) => void;

  constructor(create: (cards: Cards) => M, evaluate: (menu: M) => void) {
    this.#create = create;
    this.#evaluate = evaluate;
  }

  get isOpen(): boolean {
    return this.#menu?.isOpen ?? false;
  }

  /** Re-evaluates the menu for the textarea's text and caret. */
  refresh(): void {
    if (this.#menu !== undefined) {
      this.#evaluate(this.#menu);
      return;
    }
    if (this.#state !== 'idle') {
      return;
    }
    this.#state = 'loading';
    withCards(
      (cards) => {
        const menu = this.#create(cards);
        this.#menu = menu;
        this.element.replaceChildren(menu.element);
        this.#evaluate(menu);
      },
      () => {
        this.#state = 'failed';
      },
    );
  }

  handleKey(e: KeyboardEvent): boolean {
    return this.#menu?.handleKey(e) ?? false;
  }

  close(): void {
    this.#menu?.close();
  }
}
