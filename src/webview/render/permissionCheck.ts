import type { PermissionCheckView, PermissionView } from '../../protocol/sessionView';
import { el, uniqueId } from '../dom';
import { t } from '../strings';
import { visibleTitle } from '../text';

/**
 * What the client's policy checked before asking (or answering): one line per target and the
 * rule that decided, or why the user is asked. The lines are the host's text, shown as text.
 */
export function checkDetails(check: PermissionCheckView, remembered: string | undefined): HTMLElement {
  const id = uniqueId('permission-checked');
  const list = el('ul', { class: 'permission-targets', attrs: { 'aria-labelledby': id } });
  for (const target of check.targets) {
    list.append(el('li', { text: visibleTitle(target) }));
  }
  return el('div', { class: 'permission-check' }, [
    el('span', { class: 'permission-check-label', attrs: { id }, text: check.targets.length > 0 ? t('Checked') : t('Nothing to check') }),
    check.targets.length > 0 ? list : null,
    el('span', { class: 'permission-decision', text: visibleTitle(check.decision) }),
    remembered !== undefined ? el('span', { class: 'permission-remembered', text: visibleTitle(remembered) }) : null,
  ]);
}

/**
 * For a single command and an "always" option: which words an "always" answer remembers — the
 * whole command (the default), or a prefix the user picks (`git commit …`). Never a pattern of
 * the text. A native `<select>` with a visible label: keyboard-reachable and named.
 */
export class RememberChoice {
  readonly element: HTMLElement;
  private readonly select: HTMLSelectElement;
  private readonly argv: readonly string[];

  constructor(argv: readonly string[]) {
    this.argv = argv;
    const id = uniqueId('permission-remember');
    this.select = el('select', { class: 'permission-remember-select', attrs: { id } });
    for (let n = argv.length; n >= 1; n--) {
      const words = argv.slice(0, n).join(' ');
      const label = n === argv.length ? t('exactly “{0}”', words) : t('“{0}” with any arguments', words);
      this.select.append(el('option', { attrs: { value: String(n) }, text: visibleTitle(label) }));
    }
    this.element = el('div', { class: 'permission-remember' }, [el('label', { attrs: { for: id }, text: t('“Always” remembers') }), this.select]);
  }

  /** The prefix length picked, or undefined for the whole command. */
  get prefix(): number | undefined {
    const n = Number(this.select.value);
    return Number.isInteger(n) && n >= 1 && n < this.argv.length ? n : undefined;
  }

  disable(): void {
    this.select.disabled = true;
  }
}

/** Whether the card offers the choice: a rememberable command and an "always" option. */
export function offersRememberChoice(p: PermissionView): p is PermissionView & { readonly check: PermissionCheckView & { readonly argv: readonly string[] } } {
  return p.check?.argv !== undefined && p.check.argv.length > 1 && p.options.some((o) => o.kind === 'allow_always' || o.kind === 'reject_always');
}
