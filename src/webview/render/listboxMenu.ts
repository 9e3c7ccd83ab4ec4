import { clear, el, setHidden, uniqueId } from '../dom';

/**
 * How an item was chosen. Tab (and a click) complete what is typed; Enter also sends the message
 * when the choice is what the user typed (see each menu's rule).
 */
export type PickKey = 'enter' | 'tab' | 'click';

/**
 * A listbox of suggestions driven from the composer's textarea with `aria-activedescendant`
 * (focus stays in the textarea): ArrowUp/ArrowDown move, Enter/Tab choose, Escape closes.
 * The slash-command and `@`-mention menus share it.
 */
export abstract class ListboxMenu<T> {
  readonly element: HTMLUListElement;
  private readonly listId = uniqueId('listbox');
  protected matches: readonly T[] = [];
  protected active = 0;

  constructor(
    protected readonly textarea: HTMLTextAreaElement,
    label: string,
    extraClass = '',
  ) {
    this.element = el('ul', { class: `slash-menu ${extraClass}`.trim(), attrs: { role: 'listbox', id: this.listId, 'aria-label': label } });
    setHidden(this.element, true);
    this.textarea.setAttribute('aria-autocomplete', 'list');
    // Clicking an option must not blur the textarea.
    this.element.addEventListener('mousedown', (e) => e.preventDefault());
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** Handles a keydown in the textarea; true when the menu consumed it. */
  handleKey(e: KeyboardEvent): boolean {
    if (!this.isOpen || e.isComposing) {
      return false;
    }
    switch (e.key) {
      case 'ArrowDown':
        this.move(1);
        return true;
      case 'ArrowUp':
        this.move(-1);
        return true;
      case 'Enter':
      case 'Tab': {
        const item = this.matches[this.active];
        if (item === undefined || e.shiftKey) {
          return false;
        }
        this.pick(item, e.key === 'Enter' ? 'enter' : 'tab');
        return true;
      }
      case 'Escape':
        this.dismiss();
        return true;
      default:
        return false;
    }
  }

  close(): void {
    if (this.element.hidden) {
      return;
    }
    setHidden(this.element, true);
    this.textarea.removeAttribute('aria-activedescendant');
    this.textarea.removeAttribute('aria-controls');
  }

  /** The user chose an item (Enter, Tab, click). */
  protected abstract pick(item: T, key: PickKey): void;

  /** The option's content. */
  protected abstract renderItem(item: T): (HTMLElement | false)[];

  /** A line under the options (not an option); none by default. */
  protected footer(): HTMLElement | undefined {
    return undefined;
  }

  /** Escape: closes (subclasses also remember not to reopen for the same text). */
  protected dismiss(): void {
    this.close();
  }

  protected show(matches: readonly T[], keepActive?: (item: T) => boolean): void {
    const keep = keepActive !== undefined ? matches.findIndex(keepActive) : -1;
    this.matches = matches;
    this.active = keep >= 0 ? keep : 0;
    this.render();
  }

  private move(delta: number): void {
    const n = this.matches.length;
    if (n > 0) {
      this.active = (this.active + delta + n) % n;
      this.render();
    }
  }

  private render(): void {
    clear(this.element);
    this.matches.forEach((item, index) => {
      const selected = index === this.active;
      const option = el(
        'li',
        { class: selected ? 'slash-option active' : 'slash-option', attrs: { role: 'option', id: `${this.listId}-${index}`, 'aria-selected': String(selected) } },
        this.renderItem(item),
      );
      option.addEventListener('click', () => this.pick(item, 'click'));
      this.element.appendChild(option);
    });
    const footer = this.footer();
    if (footer !== undefined) {
      this.element.appendChild(footer);
    }
    setHidden(this.element, false);
    this.textarea.setAttribute('aria-controls', this.listId);
    this.textarea.setAttribute('aria-activedescendant', `${this.listId}-${this.active}`);
    const active = this.element.children.item(this.active);
    // jsdom has no scrollIntoView.
    if (active !== null && typeof active.scrollIntoView === 'function') {
      active.scrollIntoView({ block: 'nearest' });
    }
  }
}
