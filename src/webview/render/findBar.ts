import { button, el, setHidden } from '../dom';
import { t } from '../strings';

export interface FindBarHandlers {
  /** The query changed (typed). */
  query(text: string): void;
  /** Next (`1`) or previous (`-1`) match. */
  step(direction: 1 | -1): void;
  close(): void;
}

/**
 * "Find in chat" (Ctrl+F): a search field, "3 of 17", previous/next and close. It searches the
 * whole conversation through the host, entries off screen included (src/webview/find.ts).
 * Enter goes to the next match, Shift+Enter to the previous one, Escape closes.
 */
export class FindBar {
  readonly element: HTMLElement;
  readonly input: HTMLInputElement;
  private readonly status = el('span', { class: 'find-status', attrs: { role: 'status', 'aria-live': 'polite' } });

  constructor(handlers: FindBarHandlers) {
    this.input = el('input', { class: 'find-input', attrs: { type: 'search', 'aria-label': t('Find in chat'), placeholder: t('Find in chat'), spellcheck: 'false' } });
    const previous = button('', { icon: 'arrow-up', class: 'icon-button', title: t('Previous match (Shift+Enter)'), ariaLabel: t('Previous match'), onClick: () => handlers.step(-1) });
    const next = button('', { icon: 'arrow-down', class: 'icon-button', title: t('Next match (Enter)'), ariaLabel: t('Next match'), onClick: () => handlers.step(1) });
    const close = button('', { icon: 'close', class: 'icon-button', title: t('Close (Escape)'), ariaLabel: t('Close find'), onClick: () => handlers.close() });
    this.element = el('div', { class: 'find-bar', attrs: { role: 'search', 'aria-label': t('Find in chat') } }, [this.input, this.status, previous, next, close]);
    this.input.addEventListener('input', () => handlers.query(this.input.value));
    this.input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        handlers.step(e.shiftKey ? -1 : 1);
      } else if (e.key === 'Escape') {
        e.preventDefault();
        e.stopPropagation();
        handlers.close();
      }
    });
    setHidden(this.element, true);
  }

  get open(): boolean {
    return !this.element.hidden;
  }

  show(): void {
    setHidden(this.element, false);
    this.input.focus();
    this.input.select();
  }

  hide(): void {
    setHidden(this.element, true);
  }

  setStatus(text: string): void {
    if (this.status.textContent !== text) {
      this.status.textContent = text;
    }
  }
}
