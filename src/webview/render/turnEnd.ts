import type { EntryView } from '../../protocol/sessionView';
import { button, el, icon, replaceChildren, setAttr } from '../dom';
import { t } from '../strings';
import { compactNumber, formatDuration } from '../text';
import type { EntryComponent } from '../viewStore';
import type { RenderEnv } from './env';

type TurnEndEntry = Extract<EntryView, { kind: 'turnEnd' }>;

export function outcomeText(outcome: TurnEndEntry['outcome']): string {
  switch (outcome) {
    case 'end_turn':
      return t('Completed');
    case 'cancelled':
      return t('Cancelled');
    case 'refusal':
      return t('Refused');
    case 'max_tokens':
      return t('Stopped: max tokens');
    case 'max_turn_requests':
      return t('Stopped: max turn requests');
    case 'error':
      return t('Failed');
    case 'interrupted':
      return t('Interrupted');
  }
}

/** "Failed: the model provider (HTTP 500)" — a failed turn the provider caused, in words. */
function providerOutcomeText(p: NonNullable<TurnEndEntry['provider']>): string {
  const why = p.httpStatus !== undefined ? t('the model provider failed (HTTP {0})', p.httpStatus) : t('the model provider failed');
  switch (p.kind) {
    case 'rateLimit':
      return t('Failed: rate limited by the model provider');
    case 'overloaded':
      return t('Failed: the model provider is overloaded');
    default:
      return t('Failed: {0}', why);
  }
}

const outcomeIcons: Readonly<Record<TurnEndEntry['outcome'], string>> = {
  end_turn: 'check',
  cancelled: 'circle-slash',
  refusal: 'circle-slash',
  max_tokens: 'warning',
  max_turn_requests: 'warning',
  error: 'error',
  interrupted: 'debug-disconnect',
};

/** The footer of a turn: outcome in words, duration, tokens, error. */
export class TurnEndView implements EntryComponent {
  readonly kind = 'turnEnd';
  readonly element = el('div', { class: 'entry turn-end', attrs: { role: 'note' } });
  private entry: TurnEndEntry | undefined;

  constructor(private readonly env: RenderEnv) {}

  update(entry: EntryView): void {
    if (entry.kind !== 'turnEnd' || entry === this.entry) {
      return;
    }
    this.entry = entry;
    setAttr(this.element, 'data-entry-id', entry.id);
    this.element.className = `entry turn-end outcome-${entry.outcome}`;
    const facts: string[] = [formatDuration(entry.durationMs)];
    if (entry.usage !== undefined) {
      const u = entry.usage;
      facts.push(t('{0} in · {1} out · {2} total tokens', compactNumber(u.inputTokens), compactNumber(u.outputTokens), compactNumber(u.totalTokens)));
    }
    replaceChildren(this.element, [
      el('div', { class: 'turn-end-line' }, [
        icon(outcomeIcons[entry.outcome]),
        el('span', { class: 'outcome', text: entry.provider !== undefined ? providerOutcomeText(entry.provider) : outcomeText(entry.outcome) }),
        el('span', { class: 'muted', text: facts.join(' · ') }),
      ]),
      // A provider failure's text is the reply just above (Hermes sends it as message text): the
      // outcome line names it, and repeating it here would show the same error twice.
      entry.error !== undefined && entry.error !== '' && entry.provider === undefined ? el('pre', { class: 'turn-error', text: entry.error }) : false,
      entry.provider?.transient === true ? el('div', { class: 'muted', text: t('This is usually temporary: try again later.') }) : false,
      entry.retry === true ? this.retryRow(entry.turnId) : false,
      entry.changes !== undefined ? this.changesRow(entry.turnId, entry.changes) : false,
    ]);
  }

  private retryRow(turnId: number): HTMLElement {
    return el('div', { class: 'turn-retry' }, [
      button(t('Retry'), { class: 'secondary', title: t('Send this prompt again'), onClick: () => this.env.actions.retryTurn(turnId) }),
    ]);
  }

  /** The turn's file changes still pending review, with the checkpoint actions. */
  private changesRow(turnId: number, changes: NonNullable<TurnEndEntry['changes']>): HTMLElement {
    return el('div', { class: 'turn-changes' }, [
      icon('diff-multiple'),
      el('span', { class: 'muted', text: t('{0} file(s) changed · +{1} −{2}', changes.files, changes.added, changes.removed) }),
      button(t('Restore files to before this turn'), { class: 'secondary', onClick: () => this.env.actions.restoreTurn(turnId) }),
      button(t('Rewind code and conversation'), { class: 'secondary', onClick: () => this.env.actions.rewindTurn(turnId) }),
    ]);
  }
}
