import type { PermissionOptionView, PermissionView } from '../../protocol/sessionView';
import { append, clear, el, icon, uniqueId } from '../dom';
import { t } from '../strings';
import { visibleTitle } from '../text';
import type { RenderEnv } from './env';
import { checkDetails, offersRememberChoice, RememberChoice } from './permissionCheck';

/** Alt+Y answers the first allow_once option, Alt+N the first reject_once option. */
export const allowShortcut = 'Alt+Y';
export const rejectShortcut = 'Alt+N';

/**
 * A permission request inside its tool card: one real button per option (none pre-selected),
 * what the client's policy checked and why it asks, how long it has waited and, when the agent
 * gives up on its own, the countdown; for a single command, which words "always" remembers.
 * Once answered, the buttons go and the card says what was chosen, by whom, and what was remembered.
 */
export class PermissionPrompt {
  readonly element: HTMLElement;
  readonly #headingId = uniqueId('permission');
  readonly #timer = el('span', { class: 'permission-timer' });
  #permission: PermissionView | undefined;
  #title = '';
  #remember: RememberChoice | undefined;
  #ticking = false;
  readonly #tick = (): void => this.#updateTimer();

  readonly #env: RenderEnv;

  constructor(env: RenderEnv) {
    this.#env = env;
    this.element = el('div', { class: 'permission', attrs: { role: 'group', tabindex: '-1' } });
  }

  get pending(): boolean {
    return this.#permission?.status === 'pending';
  }

  update(permission: PermissionView, title: string): void {
    const same =
      this.#permission?.requestId === permission.requestId &&
      this.#permission.status === permission.status &&
      this.#permission.optionId === permission.optionId &&
      this.#permission.answeredBy === permission.answeredBy &&
      this.#permission.expiresAt === permission.expiresAt &&
      this.#permission.check === permission.check &&
      this.#permission.remembered === permission.remembered &&
      this.#title === title;
    this.#permission = permission;
    this.#title = title;
    if (same) {
      return;
    }
    const e = this.element;
    clear(e);
    e.className = `permission permission-${permission.status}`;
    e.setAttribute('aria-label', t('Permission requested: {0}', visibleTitle(title)));
    this.#remember = undefined;
    if (permission.status === 'pending') {
      this.#remember = offersRememberChoice(permission) ? new RememberChoice(permission.check.argv) : undefined;
      append(e, [
        el('div', { class: 'permission-head' }, [
          icon('shield'),
          el('span', { class: 'permission-title', attrs: { id: this.#headingId }, text: t('{0} asks for permission', agentName(this.#env)) }),
        ]),
        this.#timer,
        permission.check !== undefined ? checkDetails(permission.check, undefined) : null,
        this.#remember?.element,
        this.#options(permission),
      ]);
      this.#updateTimer();
    } else {
      e.removeAttribute('aria-label');
      e.append(el('div', { class: 'permission-head' }, [icon(outcomeIcon(permission)), el('span', { text: outcomeText(permission, this.#env) })]));
      if (permission.check !== undefined || permission.remembered !== undefined) {
        e.append(checkDetails(permission.check ?? { targets: [], decision: '' }, permission.remembered));
      }
    }
    this.#setTicking(permission.status === 'pending');
  }

  /** The first option of `kind`, for the keyboard shortcuts. */
  option(kind: PermissionOptionView['kind']): PermissionOptionView | undefined {
    return this.#permission?.status === 'pending' ? this.#permission.options.find((o) => o.kind === kind) : undefined;
  }

  choose(option: PermissionOptionView): void {
    const permission = this.#permission;
    if (permission?.status !== 'pending') {
      return;
    }
    // Until the host confirms, the buttons stay visible but cannot send a second answer.
    for (const b of Array.from(this.element.querySelectorAll('button'))) {
      b.disabled = true;
    }
    this.element.classList.add('answering');
    this.#remember?.disable();
    const always = option.kind === 'allow_always' || option.kind === 'reject_always';
    this.#env.actions.choosePermission(permission.requestId, option.optionId, always ? this.#remember?.prefix : undefined);
  }

  dispose(): void {
    this.#setTicking(false);
  }

  #options(permission: PermissionView): HTMLElement {
    const row = el('div', { class: 'permission-options' });
    const firstAllow = permission.options.find((o) => o.kind === 'allow_once');
    const firstReject = permission.options.find((o) => o.kind === 'reject_once');
    for (const option of permission.options) {
      const allow = option.kind === 'allow_once' || option.kind === 'allow_always';
      const shortcut = option === firstAllow ? allowShortcut : option === firstReject ? rejectShortcut : undefined;
      const b = el('button', {
        class: `option ${allow ? 'option-allow' : 'option-reject'} kind-${option.kind.replace('_', '-')}`,
        attrs: { type: 'button', 'aria-keyshortcuts': shortcut, 'aria-describedby': this.#headingId },
      });
      b.append(icon(allow ? (option.kind === 'allow_always' ? 'check-all' : 'check') : option.kind === 'reject_always' ? 'circle-slash' : 'close'));
      b.append(el('span', { class: 'label', text: option.name }));
      if (shortcut !== undefined) {
        b.append(el('kbd', { attrs: { 'aria-hidden': 'true' }, text: shortcut }));
      }
      b.addEventListener('click', () => this.choose(option));
      row.appendChild(b);
    }
    return row;
  }

  #updateTimer(): void {
    const p = this.#permission;
    if (p?.status !== 'pending') {
      return;
    }
    const now = this.#env.clock.hostNow();
    const waited = Math.max(0, Math.floor((now - p.requestedAt) / 1000));
    let text = t('Waiting for you for {0} s', waited);
    if (p.expiresAt !== undefined) {
      const left = Math.max(0, Math.ceil((p.expiresAt - now) / 1000));
      text += ` · ${t('{0} denies in {1} s', agentName(this.#env), left)}`;
      this.#timer.classList.toggle('urgent', left <= 10);
    }
    this.#timer.textContent = text;
  }

  #setTicking(on: boolean): void {
    if (on && !this.#ticking) {
      this.#env.ticker.add(this.#tick);
    } else if (!on && this.#ticking) {
      this.#env.ticker.remove(this.#tick);
    }
    this.#ticking = on;
  }
}

function outcomeIcon(p: PermissionView): string {
  if (p.status === 'selected') {
    const kind = p.options.find((o) => o.optionId === p.optionId)?.kind;
    return kind === 'allow_once' || kind === 'allow_always' ? 'check' : 'circle-slash';
  }
  return p.status === 'expired' ? 'watch' : 'close';
}

function outcomeText(p: PermissionView, env: RenderEnv): string {
  switch (p.status) {
    case 'selected': {
      const name = p.options.find((o) => o.optionId === p.optionId)?.name ?? p.optionId ?? '?';
      const by = p.answeredBy;
      if (by === undefined || by === 'user') {
        return t('Answered “{0}” by you', name);
      }
      return t('Answered “{0}” by {1}', name, by);
    }
    case 'expired':
      return t('Expired: {0} stopped waiting for an answer', agentName(env));
    case 'cancelled':
      return p.answeredBy === 'user dismissed'
        ? t('Dismissed: {0} was told no', agentName(env))
        : t('Cancelled ({0})', p.answeredBy ?? t('the request was withdrawn'));
    case 'pending':
      return '';
  }
}

/** The agent's name (as `env.ts` says it; the cards chunk takes no code from the bundle but dom, strings and text). */
function agentName(env: RenderEnv): string {
  return env.header()?.agentName ?? t('Agent');
}
