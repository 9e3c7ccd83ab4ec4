import type { MentionView } from '../../protocol/webviewProtocol';
import { clear, el, icon, setHidden, uniqueId } from '../dom';
import { t } from '../strings';
import { visibleLabel } from '../text';

/**
 * `@` mentions in the composer: typing `@` (at the start or after a space) asks the host for
 * workspace files matching what follows; the choice becomes a context chip and the `@query` text
 * is removed. A listbox driven from the textarea like the slash menu (focus stays in the textarea).
 */
export class MentionMenu {
  readonly element: HTMLUListElement;
  private readonly listId = uniqueId('mentions');
  private matches: readonly MentionView[] = [];
  private active = 0;
  private query: { start: number; text: string } | undefined;
  private requestSeq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    private readonly textarea: HTMLTextAreaElement,
    private readonly search: (query: string) => Promise<readonly MentionView[]>,
    private readonly choose: (mention: MentionView, range: { start: number; end: number }) => void,
  ) {
    this.element = el('ul', { class: 'slash-menu mention-menu', attrs: { role: 'listbox', id: this.listId, 'aria-label': t('Files') } });
    setHidden(this.element, true);
    this.element.addEventListener('mousedown', (e) => e.preventDefault());
  }

  get isOpen(): boolean {
    return !this.element.hidden;
  }

  /** Re-evaluates the `@word` under the caret; searches (debounced) when there is one. */
  refresh(): void {
    const caret = this.textarea.selectionStart;
    const before = this.textarea.value.slice(0, caret);
    const m = /(^|\s)@([^\s@]*)$/.exec(before);
    if (m === null) {
      this.query = undefined;
      this.close();
      return;
    }
    const text = m[2] ?? '';
    this.query = { start: caret - text.length - 1, text };
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    this.timer = setTimeout(() => void this.run(text), 80);
  }

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
        const mention = this.matches[this.active];
        if (mention === undefined || e.shiftKey) {
          return false;
        }
        this.pick(mention);
        return true;
      }
      case 'Escape':
        this.query = undefined;
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

  private async run(text: string): Promise<void> {
    const seq = ++this.requestSeq;
    let results: readonly MentionView[];
    try {
      results = await this.search(text);
    } catch {
      results = [];
    }
    // A newer keystroke started a newer search, or the @word is gone: drop this answer.
    if (seq !== this.requestSeq || this.query?.text !== text) {
      return;
    }
    this.matches = results;
    this.active = 0;
    if (results.length === 0) {
      this.close();
      return;
    }
    this.render();
  }

  private pick(mention: MentionView): void {
    const q = this.query;
    this.close();
    this.query = undefined;
    if (q !== undefined) {
      this.choose(mention, { start: q.start, end: q.start + 1 + q.text.length });
    }
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
    this.matches.forEach((mention, index) => {
      const selected = index === this.active;
      const option = el('li', { class: selected ? 'slash-option active' : 'slash-option', attrs: { role: 'option', id: `${this.listId}-${index}`, 'aria-selected': String(selected) } }, [
        icon('file'),
        el('span', { class: 'slash-name', text: visibleLabel(mention.label) }),
        mention.detail !== undefined && mention.detail !== '' ? el('span', { class: 'slash-description', text: visibleLabel(mention.detail) }) : false,
      ]);
      option.addEventListener('click', () => this.pick(mention));
      this.element.appendChild(option);
    });
    setHidden(this.element, false);
    this.textarea.setAttribute('aria-controls', this.listId);
    this.textarea.setAttribute('aria-activedescendant', `${this.listId}-${this.active}`);
  }
}
