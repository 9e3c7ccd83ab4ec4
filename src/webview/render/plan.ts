import type { EntryView, PlanItemView, SessionHeaderView } from '../../protocol/sessionView';
import { el, icon, replaceChildren, setAttr, setHidden } from '../dom';
import { t } from '../strings';
import type { EntryComponent } from '../viewStore';

const statusIcon: Readonly<Record<PlanItemView['status'], [string, string]>> = {
  pending: ['circle-large-outline', ''],
  in_progress: ['loading', 'codicon-modifier-spin'],
  completed: ['pass-filled', ''],
};

function statusLabel(status: PlanItemView['status']): string {
  return status === 'completed' ? t('completed') : status === 'in_progress' ? t('in progress') : t('pending');
}

/** The plan as a checklist; each item says its status in words too (for screen readers). */
export function renderPlanList(items: readonly PlanItemView[]): HTMLElement {
  const list = el('ul', { class: 'plan-list' });
  for (const item of items) {
    const [name, extra] = statusIcon[item.status];
    list.appendChild(
      el('li', { class: `plan-item plan-${item.status.replace('_', '-')} priority-${item.priority}` }, [
        icon(name, extra),
        el('span', { class: 'plan-text', text: item.content }),
        el('span', { class: 'visually-hidden', text: ` (${statusLabel(item.status)}${item.priority === 'high' ? `, ${t('high priority')}` : ''})` }),
      ]),
    );
  }
  return list;
}

export function planProgress(items: readonly PlanItemView[]): string {
  const done = items.filter((i) => i.status === 'completed').length;
  return t('{0} of {1} done', done, items.length);
}

/** A plan entry in the transcript, updated in place. */
export class PlanView implements EntryComponent {
  readonly kind = 'plan';
  readonly element = el('article', { class: 'entry entry-plan' });
  private entry: Extract<EntryView, { kind: 'plan' }> | undefined;

  constructor() {
    this.element.setAttribute('aria-label', t('Plan'));
  }

  update(entry: EntryView): void {
    if (entry.kind !== 'plan' || entry === this.entry) {
      return;
    }
    this.entry = entry;
    setAttr(this.element, 'data-entry-id', entry.id);
    replaceChildren(this.element, [
      el('div', { class: 'plan-head' }, [icon('checklist'), el('span', { class: 'plan-title', text: t('Plan') }), el('span', { class: 'muted', text: planProgress(entry.entries) })]),
      renderPlanList(entry.entries),
    ]);
  }
}

/** The plan above the composer while it has unfinished items (collapsed to its current step). */
export class PlanDock {
  readonly element = el('details', { class: 'plan-dock' });
  private readonly summary = el('summary');
  private readonly body = el('div', { class: 'plan-dock-body' });
  private key = '';

  constructor() {
    this.element.append(this.summary, this.body);
    setHidden(this.element, true);
  }

  update(header: SessionHeaderView): void {
    const plan = header.plan;
    const unfinished = plan.some((p) => p.status !== 'completed');
    setHidden(this.element, plan.length === 0 || !unfinished);
    const key = JSON.stringify(plan);
    if (key === this.key) {
      return;
    }
    this.key = key;
    const current = plan.find((p) => p.status === 'in_progress') ?? plan.find((p) => p.status === 'pending');
    this.summary.replaceChildren(
      icon('checklist'),
      el('span', { class: 'plan-dock-title', text: t('Plan') }),
      el('span', { class: 'muted', text: planProgress(plan) }),
      current !== undefined ? el('span', { class: 'plan-dock-current', text: current.content }) : '',
    );
    this.body.replaceChildren(renderPlanList(plan));
  }
}
