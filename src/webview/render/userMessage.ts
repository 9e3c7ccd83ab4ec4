import type { EntryView } from '../../protocol/sessionView';
import { button, el, icon, replaceChildren, setAttr } from '../dom';
import { t } from '../strings';
import type { EntryComponent } from '../viewStore';
import { renderBlock } from './blocks';
import type { RenderEnv } from './env';

type UserEntry = Extract<EntryView, { kind: 'user' }>;

/** A prompt: its blocks (Markdown, chips, thumbnails) and a "Fork from here" button. */
export class UserMessageView implements EntryComponent {
  readonly kind = 'user';
  readonly element = el('article', { class: 'entry entry-user' });
  private entry: UserEntry | undefined;

  constructor(private readonly env: RenderEnv) {
    this.element.setAttribute('aria-label', t('You'));
  }

  update(entry: EntryView): void {
    if (entry.kind !== 'user' || entry === this.entry) {
      return;
    }
    this.entry = entry;
    setAttr(this.element, 'data-entry-id', entry.id);
    this.element.classList.toggle('excluded', entry.excluded);
    this.element.classList.toggle('origin-replay', entry.origin === 'replay');
    this.element.classList.toggle('origin-agent', entry.origin === 'agent');

    const body = el('div', { class: 'user-body' });
    const chips = el('div', { class: 'chips' });
    for (const block of entry.blocks) {
      const node = renderBlock(block, this.env);
      (block.type === 'text' ? body : chips).appendChild(node);
    }
    const id = entry.id;
    const fork = button('', {
      icon: 'repo-forked',
      class: 'icon-button fork',
      title: t('Fork from here'),
      ariaLabel: t('Fork from here'),
      onClick: () => this.env.actions.forkFromHere(id),
    });
    const meta: (HTMLElement | false)[] = [
      entry.origin === 'replay' && el('span', { class: 'origin', text: t('restored') }),
      entry.origin === 'agent' && el('span', { class: 'origin', text: t('sent by the agent') }),
      entry.excluded && el('span', { class: 'excluded-note' }, [icon('eye-closed'), el('span', { text: t('not sent to the agent again') })]),
    ];
    replaceChildren(this.element, [
      el('div', { class: 'user-tools' }, [...meta, fork]),
      body,
      chips.childElementCount > 0 && chips,
    ]);
  }
}
