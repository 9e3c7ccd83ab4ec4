import { button, el, replaceChildren, uniqueId } from '../dom';
import { t } from '../strings';
import type { RenderEnv } from './env';

/**
 * "Edit and resend" on a user message (transports that rewrite history natively, TUI Gateway): the
 * message becomes an editor; resending cuts the conversation before it. When more than one of the
 * user's turns would be cut, an alert dialog asks first (Hermes `confirm_deep_truncate`: the agent
 * archives those turns) — "Keep history" changes nothing.
 */
export class RewriteEditor {
  readonly element = el('div', { class: 'rewrite-editor' });

  constructor(
    private readonly env: RenderEnv,
    private readonly entryId: string,
    /** The user turns the cut removes: this one and every later one. */
    private readonly turnsCut: () => number,
    private readonly close: () => void,
  ) {}

  open(text: string): void {
    const area = el('textarea', { class: 'rewrite-text', attrs: { 'aria-label': t('Edit your message'), rows: '3' } });
    area.value = text;
    replaceChildren(this.element, [
      area,
      el('div', { class: 'rewrite-actions' }, [
        button(t('Resend'), { onClick: () => this.resend(area.value) }),
        button(t('Cancel edit'), { class: 'secondary', onClick: () => this.close() }),
      ]),
    ]);
    area.focus();
  }

  private resend(text: string): void {
    if (text.trim() === '') {
      return;
    }
    const cut = this.turnsCut();
    if (cut <= 1) {
      this.env.actions.rewriteMessage(this.entryId, text, cut);
      this.close();
      return;
    }
    const titleId = uniqueId('deep-cut-title');
    const confirm = button(t('Cut {0} turns and resend', cut), {
      onClick: () => {
        this.env.actions.rewriteMessage(this.entryId, text, cut);
        this.close();
      },
    });
    const dialog = el('div', { class: 'deep-cut-dialog', attrs: { role: 'alertdialog', 'aria-modal': 'false', 'aria-labelledby': titleId } }, [
      el('p', { text: t('Resending from here removes {0} of your messages and every reply after them from the conversation.', cut), attrs: { id: titleId } }),
      el('div', { class: 'rewrite-actions' }, [confirm, button(t('Keep history'), { class: 'secondary', onClick: () => this.close() })]),
    ]);
    this.element.appendChild(dialog);
    confirm.focus();
  }
}
