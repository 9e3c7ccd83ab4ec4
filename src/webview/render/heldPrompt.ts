import type { EntryView, SessionHeaderView } from '../../protocol/sessionView';
import { append, button, clear, el, icon, setHidden } from '../dom';
import { t } from '../strings';
import type { RenderEnv } from './env';

/**
 * A prompt the agent holds (Hermes puts a cancelled or failed prompt in front of the next message):
 * said above the composer before the next message is sent, with "Start fresh" — and, under a message
 * sent that way, "sent together with …". From the cards chunk (a chat shows them rarely).
 */
export class HeldPromptLine {
  readonly element = el('div', { class: 'composer-held', attrs: { role: 'status' } });
  private key = '';

  constructor(private readonly env: RenderEnv) {}

  update(header: SessionHeaderView): void {
    const held = header?.held;
    const key = held === undefined ? '' : JSON.stringify([held, header.agentName]);
    if (key === this.key) {
      return;
    }
    this.key = key;
    clear(this.element);
    setHidden(this.element, held === undefined);
    if (held === undefined) {
      return;
    }
    const agent = header.agentName;
    const text =
      held.reason === 'cancelled'
        ? t('{0} will send your next message together with the cancelled one: “{1}”.', agent, held.preview)
        : t('{0} will send your next message together with the failed one: “{1}”.', agent, held.preview);
    const startFresh = held.startFresh;
    append(this.element, [
      icon('combine'),
      el('span', { class: 'composer-held-text', text }),
      startFresh !== undefined &&
        button(t('Start fresh'), { icon: 'repo-forked', class: 'secondary', title: t('A new session from before that message'), onClick: () => this.env.actions.forkFromHere(startFresh) }),
    ]);
  }
}

/** Under a message the agent sent together with a prompt it held: said so, with that prompt on demand. */
export function mergedNote(merged: NonNullable<Extract<EntryView, { kind: 'user' }>['mergedWith']>): HTMLElement {
  const label = merged.reason === 'cancelled' ? t('sent together with the cancelled message') : t('sent together with the failed message');
  return el('details', { class: 'merged-note' }, [el('summary', {}, [icon('combine'), el('span', { text: label })]), el('div', { class: 'merged-text', text: merged.text })]);
}
