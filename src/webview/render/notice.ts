import type { EntryView, NoticeActionView } from '../../protocol/sessionView';
import { button, el, icon, replaceChildren, setAttr } from '../dom';
import { t } from '../strings';
import type { EntryComponent } from '../viewStore';
import type { RenderEnv } from './env';

export function noticeActionLabel(action: NoticeActionView): string {
  switch (action) {
    case 'showTraffic':
      return t('Show Traffic');
    case 'restartAgent':
      return t('Restart Agent');
    case 'setupProvider':
      return t('Set Up Provider');
    case 'newSession':
      return t('New Session');
    case 'checkInstallation':
      return t('Check Installation');
    case 'useDemoAgent':
      return t('Use Demo Agent');
    case 'openSettings':
      return t('Open User Settings');
    case 'openRemoteSettings':
      return t('Open Remote Settings');
    case 'setupAgent':
      return t('Set Up Agent…');
    case 'reconnectAgent':
      return t('Reconnect with the new settings');
    case 'openHandoffSource':
      return t('Open the original chat');
  }
}

const levelIcons = { info: 'info', warning: 'warning', error: 'error' } as const;

/** An info/warning/error line from the host, with its detail (e.g. a stderr tail) and actions. */
export class NoticeView implements EntryComponent {
  readonly kind = 'notice';
  readonly element = el('article', { class: 'entry notice' });
  private entry: Extract<EntryView, { kind: 'notice' }> | undefined;

  constructor(private readonly env: RenderEnv) {}

  update(entry: EntryView): void {
    if (entry.kind !== 'notice' || entry === this.entry) {
      return;
    }
    this.entry = entry;
    setAttr(this.element, 'data-entry-id', entry.id);
    this.element.className = `entry notice notice-${entry.level}`;
    this.element.setAttribute('aria-label', entry.title);
    const forkFrom = entry.forkFrom;
    const levelWord = entry.level === 'error' ? t('Error') : entry.level === 'warning' ? t('Warning') : t('Info');
    replaceChildren(this.element, [
      el('div', { class: 'notice-head' }, [
        icon(levelIcons[entry.level], 'notice-icon'),
        el('span', { class: 'visually-hidden', text: `${levelWord}: ` }),
        el('span', { class: 'notice-title', text: entry.title }),
      ]),
      // Prose in the chat's font, wrapped in full; only what the agent wrote (a stderr tail) in a monospace log box.
      entry.detail !== undefined && entry.detail !== '' ? el('p', { class: 'notice-text', text: entry.detail }) : false,
      entry.log !== undefined && entry.log !== '' ? el('pre', { class: 'notice-log', attrs: { 'aria-label': t('What the agent wrote') }, text: entry.log }) : false,
      entry.suggestions !== undefined && entry.suggestions.values.length > 0
        ? el('div', { class: 'notice-suggestions', attrs: { role: 'group', 'aria-label': t('Suggested models') } }, [
            ...entry.suggestions.values.map((value) =>
              button(value, { class: 'secondary suggestion', ariaLabel: t('Use model {0}', value), onClick: () => this.env.actions.chooseSuggestion(entry.id, value) }),
            ),
          ])
        : false,
      entry.actions.length > 0 || forkFrom !== undefined
        ? el('div', { class: 'notice-actions' }, [
            ...(forkFrom !== undefined ? [button(t('Start fresh from here'), { icon: 'repo-forked', class: 'secondary', onClick: () => this.env.actions.forkFromHere(forkFrom) })] : []),
            ...entry.actions.map((action) => button(noticeActionLabel(action), { class: 'secondary', onClick: () => this.env.actions.noticeAction(action) })),
          ])
        : false,
    ]);
  }
}
