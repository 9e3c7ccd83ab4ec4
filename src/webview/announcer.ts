import { el } from './dom';

/**
 * A visually hidden polite live region. The transcript itself is `aria-live="off"` (a log would
 * announce every streamed chunk); completed messages, permission requests and turn outcomes are
 * announced here instead.
 */
export class Announcer {
  readonly element = el('div', { class: 'visually-hidden', attrs: { role: 'status', 'aria-live': 'polite', 'aria-atomic': 'false' } });

  announce(message: string): void {
    if (message === '') {
      return;
    }
    this.element.appendChild(el('div', { text: message }));
    while (this.element.childNodes.length > 3 && this.element.firstChild !== null) {
      this.element.removeChild(this.element.firstChild);
    }
  }
}
