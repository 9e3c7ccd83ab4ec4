import type { CommandView } from '../../protocol/sessionView';
import { clear, el, setHidden, uniqueId } from '../dom';
import { t } from '../strings';

/**
 * Slash-command autocomplete for the composer: typing `/` at the start lists the agent's commands
 * filtered by prefix, in a listbox driven from the textarea with `aria-activedescendant`
 * (focus stays in the textarea). ArrowUp/ArrowDown move, Enter/Tab choose, Escape closes.
 */
export class SlashMenu {
  readonly element: HTMLUListElement;
  private readonly listId = uniqueId('commands');
  private matches: readonly CommandView[] = [];
  private active = 0;
  private dismissedFor: string | undefined;

  constructor(
    private readonly textarea: HTMLTextAreaElement,
    private readonly choose: (command: CommandView) => void,
  ) {
    this.element = el('ul', { class: 'slash-menu', attrs: { role: 'listbox', id: this.listId, 'aria-label': t('Commands') } });
    setHidden(this.element, true);
    this.textarea.setAttribute('aria-autocomplete', 'list');
    // Clicking an option must not blur the textarea.
    this.element.addEventListener('mousedown', (e) => e.preventDefault());
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** Re-evaluates the menu for the textarea's text and caret. */
  refresh(commands: readonly CommandView[]): void {
    const value = this.textarea.value;
    const caret = this.textarea.selectionStart;
    const m = /^\/(\S*)$/.exec(value.slice(0, caret));
    const firstToken = /^\/\S*/.exec(value)?.[0];
    if (m === null || commands.length === 0 || firstToken?.length !== caret) {
      this.close();
      return;
    }
    if (this.dismissedFor === value) {
      return;
    }
    this.dismissedFor = undefined;
    const query = (m[1] ?? '').toLowerCase();
    const matches = commands.filter((c) => c.name.toLowerCase().startsWith(query));
    if (matches.length === 0) {
      this.close();
      return;
    }
    const previous = this.matches[this.active]?.name;
    this.matches = matches;
    const keep = matches.findIndex((c) => c.name === previous);
    this.active = keep >= 0 ? keep : 0;
    this.render();
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
        if (e.shiftKey) {
          return false;
        }
        const command = this.matches[this.active];
        if (command !== undefined) {
          this.close();
          this.choose(command);
          return true;
        }
        return false;
      }
      case 'Escape':
        this.dismissedFor = this.textarea.value;
        this.close();
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

  private move(delta: number): void {
    const n = this.matches.length;
    if (n === 0) {
      return;
    }
    this.active = (this.active + delta + n) % n;
    this.render();
  }

  private render(): void {
    clear(this.element);
    this.matches.forEach((command, index) => {
      const selected = index === this.active;
      const option = el('li', { class: selected ? 'slash-option active' : 'slash-option', attrs: { role: 'option', id: `${this.listId}-${index}`, 'aria-selected': String(selected) } }, [
        el('span', { class: 'slash-name', text: `/${command.name}` }),
        command.hint !== undefined && command.hint !== '' ? el('span', { class: 'slash-hint', text: command.hint }) : false,
        el('span', { class: 'slash-description', text: command.description }),
      ]);
      option.addEventListener('click', () => {
        this.close();
        this.choose(command);
      });
      this.element.appendChild(option);
    });
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
