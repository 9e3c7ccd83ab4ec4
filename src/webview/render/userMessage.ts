import type { EntryView } from '../../protocol/sessionView';
import { button, el, icon, replaceChildren, setAttr } from '../dom';
import { chunkError, withCards } from '../lazy/lazyCard';
import { t } from '../strings';
import type { EntryComponent } from '../viewStore';
import { renderBlock } from './blocks';
import type { RenderEnv } from './env';

type UserEntry = Extract<EntryView, { kind: 'user' }>;

/**
 * A prompt: its blocks (Markdown, chips, thumbnails) and a "Fork from here" button. A prompt the
 * agent replayed (`session/load`/`resume`) or announced (a queued prompt) is the user's message all
 * the same and looks exactly like one typed here (issue 22); only the origin attribute tells them
 * apart. Notes go under the text, never beside it, so the text keeps the card's width.
 */
export class UserMessageView implements EntryComponent {
  readonly kind = 'user';
  readonly element = el('article', { class: 'entry entry-user' });
  #entry: UserEntry | undefined;

  readonly #env: RenderEnv;

  constructor(env: RenderEnv) {
    this.#env = env;
    this.element.setAttribute('aria-label', t('You'));
  }

  update(entry: EntryView): void {
    if (entry.kind !== 'user' || entry === this.#entry) {
      return;
    }
    this.#entry = entry;
    setAttr(this.element, 'data-entry-id', entry.id);
    this.element.classList.toggle('excluded', entry.excluded);
    setAttr(this.element, 'data-origin', entry.origin);

    const body = el('div', { class: 'user-body' });
    const chips = el('div', { class: 'chips' });
    for (const block of entry.blocks) {
      const node = renderBlock(block, this.#env);
      (block.type === 'text' ? body : chips).appendChild(node);
    }
    const id = entry.id;
    const forkLabel = t('Fork from here');
    const fork = button('', {
      icon: 'repo-forked',
      class: 'icon-button fork',
      title: forkLabel,
      ariaLabel: forkLabel,
      onClick: () => this.#env.actions.forkFromHere(id),
    });
    const text = entry.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('');
    const editLabel = t('Edit and resend');
    const edit =
      this.#env.header()?.offers?.rewrite === true &&
      button('', {
        icon: 'edit',
        class: 'icon-button rewrite',
        title: editLabel,
        ariaLabel: editLabel,
        onClick: () =>
          withCards(
            (cards) => {
              const editor = new cards.RewriteEditor(this.#env, id, () => this.#env.userTurnsFrom(id), () => editor.element.remove());
              this.element.appendChild(editor.element);
              editor.open(text);
            },
            (error) => this.element.appendChild(chunkError(t('message editor'), error)),
          ),
      });
    replaceChildren(this.element, [
      el('div', { class: 'user-tools' }, [edit, fork]),
      body,
      chips.childElementCount > 0 && chips,
      entry.excluded && el('div', { class: 'excluded-note' }, [icon('eye-closed'), el('span', { text: t('not sent to the agent again') })]),
      entry.mergedWith !== undefined && this.#mergedNote(entry.mergedWith),
    ]);
  }

  /**
   * The agent sent this message together with a prompt it held (Hermes: the cancelled or failed one
   * in front): said under the text, with the held prompt on demand — never shown as the user's words.
   */
  #mergedNote(merged: NonNullable<UserEntry['mergedWith']>): HTMLElement {
    const slot = el('div', { class: 'merged-slot' });
    withCards(
      (cards) => slot.replaceChildren(cards.mergedNote(merged)),
      (error) => slot.replaceChildren(chunkError(t('note about the merged message'), error)),
    );
    return slot;
  }
}
