import type { SessionHeaderView, SignInView } from '../../protocol/sessionView';
import { button, el, replaceChildren, setHidden, uniqueId } from '../dom';
import { t } from '../strings';
import type { RenderEnv } from './env';

/**
 * The "Sign in" card (the agent answered `auth_required`): a region named by its heading, one
 * button per sign-in method (its name; the description read with it), the last failure as an
 * alert, and "Try again". The host runs the method (issue 17).
 */
export class SignInCard {
  readonly element = el('section', { class: 'sign-in notice notice-warning' });
  private key = '';

  constructor(private readonly env: RenderEnv) {
    setHidden(this.element, true);
  }

  update(header: SessionHeaderView): void {
    const view = header.signIn;
    const key = view === undefined ? '' : JSON.stringify(view);
    if (key === this.key) {
      return;
    }
    this.key = key;
    setHidden(this.element, view === undefined);
    if (view === undefined) {
      replaceChildren(this.element, []);
      this.element.removeAttribute('aria-labelledby');
      return;
    }
    this.render(view);
  }

  private render(view: SignInView): void {
    const headingId = uniqueId('sign-in');
    this.element.setAttribute('aria-labelledby', headingId);
    const methods = view.methods.map((m) => {
      const descId = uniqueId('sign-in-method');
      const b = button(m.name, { class: 'sign-in-method', onClick: () => this.env.actions.signIn(m.id) });
      if (view.busy !== undefined) {
        b.disabled = true;
        b.setAttribute('aria-busy', String(view.busy === m.id));
      }
      const detail = m.description ?? methodKind(m.type);
      b.setAttribute('aria-describedby', descId);
      return el('li', { class: 'sign-in-item' }, [b, el('span', { class: 'sign-in-description', text: detail, attrs: { id: descId } })]);
    });
    const retry = button(t('Try again'), { class: 'secondary', onClick: () => this.env.actions.retrySignIn() });
    retry.disabled = view.busy !== undefined;
    replaceChildren(this.element, [
      el('h2', { class: 'sign-in-heading notice-title', text: t('Sign in to {0}', view.agentName), attrs: { id: headingId } }),
      el('p', { text: t('{0} asks you to sign in before it can start a session. Choose a way:', view.agentName) }),
      el('ul', { class: 'sign-in-methods' }, methods),
      view.error !== undefined ? el('p', { class: 'sign-in-error', text: view.error, attrs: { role: 'alert' } }) : false,
      view.note !== undefined ? el('p', { class: 'sign-in-note', text: view.note, attrs: { role: 'status' } }) : false,
      el('div', { class: 'notice-actions' }, [retry]),
    ]);
  }
}

function methodKind(type: string): string {
  switch (type) {
    case 'env_var':
      return t('Enter a key; it is kept in VS Code’s secret storage.');
    case 'terminal':
      return t('Runs in a terminal.');
    default:
      return t('The agent signs in by itself.');
  }
}
