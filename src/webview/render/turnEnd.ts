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

/**
 * The footer of a turn: outcome in words, duration, tokens. A failed turn's footer is its one
 * failure block (issue 38): the cause, what to do, and Retry / Start fresh / Show Traffic — no
 * notice beside it repeats any of that.
 */
export class TurnEndView implements EntryComponent {
  readonly kind = 'turnEnd';
  readonly element = el('div', { class: 'entry turn-end', attrs: { role: 'note' } });
  #entry: TurnEndEntry | undefined;

  readonly #env: RenderEnv;

  constructor(env: RenderEnv) {
    this.#env = env;
  }

  update(entry: EntryView): void {
    if (entry.kind !== 'turnEnd' || entry === this.#entry) {
      return;
    }
    this.#entry = entry;
    setAttr(this.element, 'data-entry-id', entry.id);
    this.element.className = `entry turn-end outcome-${entry.outcome}`;
    const facts: string[] = [formatDuration(entry.durationMs)];
    if (entry.usage !== undefined) {
      const u = entry.usage;
      facts.push(t('this turn: {0} in · {1} out · {2} total tokens', compactNumber(u.inputTokens), compactNumber(u.outputTokens), compactNumber(u.totalTokens)));
    } else if (entry.outcome === 'cancelled') {
      // Hermes answers a cancel with every count 0 although text had streamed: not "0 tokens".
      facts.push(t('no token count reported'));
    }
    const failed = entry.outcome === 'error' || entry.retry === true;
    replaceChildren(this.element, [
      el('div', { class: 'turn-end-line' }, [
        // The icon travels with the words: a narrow footer wraps them together.
        el('span', { class: 'outcome' }, [icon(outcomeIcons[entry.outcome]), el('span', { text: entry.provider !== undefined ? providerOutcomeText(entry.provider) : outcomeText(entry.outcome) })]),
        el('span', {
          class: 'muted turn-facts',
          text: facts.join(' · '),
          attrs: { title: entry.usage !== undefined ? t('Tokens this turn sent and received; the header’s figure is how full the context window is now.') : undefined },
        }),
      ]),
      failed ? this.#failureBlock(entry) : entry.error !== undefined && entry.error !== '' ? el('pre', { class: 'turn-error', text: entry.error }) : false,
      entry.changes !== undefined ? this.#changesRow(entry.turnId, entry.changes) : false,
    ]);
  }

  /** The cause, what to do, and the actions: everything the chat says about this failure. */
  #failureBlock(entry: TurnEndEntry): HTMLElement {
    const p = entry.provider;
    const agent = this.#env.header()?.agentName ?? t('The agent');
    const hint = [
      p === undefined ? t('The traffic log shows what the agent answered.') : p.transient ? t('This is usually temporary: try again in a moment.') : t('Check the model provider’s configuration.'),
      entry.retryIn === 'newSession' ? t('{0} keeps this message and would send it again in front of your next one, so Retry sends it once, in a new session that starts from before it.', agent) : '',
    ].filter((x) => x !== '');
    const turnId = entry.turnId;
    const startFresh = entry.startFresh;
    const newSession = entry.retryIn === 'newSession';
    return el('div', { class: 'turn-failure', attrs: { role: 'group', 'aria-label': t('What failed') } }, [
      entry.error !== undefined && entry.error !== '' ? el(p !== undefined ? 'p' : 'pre', { class: p !== undefined ? 'failure-cause' : 'turn-error', text: entry.error }) : false,
      el('p', { class: 'failure-hint', text: hint.join(' ') }),
      el('div', { class: 'turn-actions' }, [
        entry.retry === true &&
          button(newSession ? t('Retry in a new session') : t('Retry'), {
            icon: 'refresh',
            class: 'secondary',
            title: newSession ? t('Send this message once, in a new session forked from before it') : t('Send this prompt again'),
            onClick: () => this.#env.actions.retryTurn(turnId),
          }),
        startFresh !== undefined &&
          button(t('Start fresh'), { icon: 'repo-forked', class: 'secondary', title: t('A new session from before this message, with it in the composer'), onClick: () => this.#env.actions.forkFromHere(startFresh) }),
        p !== undefined && !p.transient && button(t('Set Up Provider'), { class: 'secondary', onClick: () => this.#env.actions.noticeAction('setupProvider') }),
        button(t('Show Traffic'), { class: 'secondary', onClick: () => this.#env.actions.noticeAction('showTraffic') }),
      ]),
    ]);
  }

  /** The turn's file changes still pending review, with the checkpoint actions. */
  #changesRow(turnId: number, changes: NonNullable<TurnEndEntry['changes']>): HTMLElement {
    return el('div', { class: 'turn-changes' }, [
      icon('diff-multiple'),
      el('span', { class: 'muted', text: t('{0} file(s) changed · +{1} −{2}', changes.files, changes.added, changes.removed) }),
      button(t('Restore files to before this turn'), { class: 'secondary', onClick: () => this.#env.actions.restoreTurn(turnId) }),
      button(t('Rewind code and conversation'), { class: 'secondary', onClick: () => this.#env.actions.rewindTurn(turnId) }),
    ]);
  }
}
