import type { MentionView } from '../../protocol/webviewProtocol';
import { el, icon } from '../dom';
import { t } from '../strings';
import { visibleLabel } from '../text';
import { ListboxMenu, type PickKey } from './listboxMenu';

/**
 * Whether Enter on `mention` also sends the message: the same rule as slash commands — the user
 * typed the file itself (its name, or its workspace-relative path), so there is nothing to choose.
 */
export function enterSendsMention(mention: MentionView, typed: string): boolean {
  const query = typed.toLowerCase();
  const relative = mention.detail !== undefined && mention.detail !== '' ? `${mention.detail}/${mention.label}` : mention.label;
  return query !== '' && (query === mention.label.toLowerCase() || query === relative.toLowerCase());
}

/**
 * `@` mentions in the composer: typing `@` (at the start or after a space) asks the host for
 * workspace files matching what follows; the choice becomes a context chip and the `@query` text
 * is removed.
 */
export class MentionMenu extends ListboxMenu<MentionView> {
  private query: { start: number; text: string } | undefined;
  private requestSeq = 0;
  private timer: ReturnType<typeof setTimeout> | undefined;

  constructor(
    textarea: HTMLTextAreaElement,
    private readonly search: (query: string) => Promise<readonly MentionView[]>,
    /** `send`: attach and send the message (Enter on what was typed); else attach only. */
    private readonly choose: (mention: MentionView, range: { start: number; end: number }, send: boolean) => void,
  ) {
    super(textarea, t('Files'), 'mention-menu');
  }

  /** Re-evaluates the `@word` under the caret; searches (debounced) when there is one. */
  refresh(): void {
    const caret = this.textarea.selectionStart;
    const m = /(^|\s)@([^\s@]*)$/.exec(this.textarea.value.slice(0, caret));
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

  protected override dismiss(): void {
    this.query = undefined;
    this.close();
  }

  protected override pick(mention: MentionView, key: PickKey): void {
    const q = this.query;
    this.close();
    this.query = undefined;
    if (q !== undefined) {
      this.choose(mention, { start: q.start, end: q.start + 1 + q.text.length }, key === 'enter' && enterSendsMention(mention, q.text));
    }
  }

  protected override renderItem(mention: MentionView): (HTMLElement | false)[] {
    return [
      icon('file'),
      el('span', { class: 'slash-name', text: visibleLabel(mention.label) }),
      mention.detail !== undefined && mention.detail !== '' ? el('span', { class: 'slash-description', text: visibleLabel(mention.detail) }) : false,
    ];
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
    if (results.length === 0) {
      this.close();
      return;
    }
    this.show(results);
  }
}
