import type { ClarifyQuestionView, EntryView, QuestionEntryView } from '../../protocol/sessionView';
import { button, el, icon, replaceChildren, setAttr, uniqueId } from '../dom';
import { t } from '../strings';
import { visibleText } from '../text';
import type { EntryComponent } from '../viewStore';
import type { RenderEnv } from './env';

function statusText(q: QuestionEntryView): string {
  switch (q.status) {
    case 'pending':
      return '';
    case 'answered':
      return q.question.kind === 'secret' ? (q.question.provided === true ? t('Provided (not recorded)') : t('Declined')) : t('Answered');
    case 'cancelled':
      return t('Cancelled');
    case 'withdrawn':
      return q.reason !== undefined ? t('Withdrawn: {0}', q.reason) : t('Withdrawn by the agent');
  }
}

/**
 * A question ACP has no card for (TUI Gateway `clarify`, `sudo` / `secret` / `vault.*`). Clarify:
 * each question with its choices as radio buttons (checkboxes for multi-select) and a free-text field,
 * a "Lock" per question in a batch, Submit and Cancel. Secret: a masked input (`type=password`),
 * Submit and Cancel — the value is posted once and the field cleared; it is never rendered back.
 */
export class QuestionView implements EntryComponent {
  readonly kind = 'question';
  readonly element = el('article', { class: 'entry question-card' });
  readonly #titleId = uniqueId('question-title');
  #entry: QuestionEntryView | undefined;

  readonly #env: RenderEnv;

  constructor(env: RenderEnv) {
    this.#env = env;
    this.element.setAttribute('aria-labelledby', this.#titleId);
  }

  update(entry: EntryView): void {
    if (entry.kind !== 'question' || entry === this.#entry) {
      return;
    }
    const wasPending = this.#entry?.status === 'pending';
    const sameRequest = this.#entry?.requestId === entry.requestId;
    this.#entry = entry;
    setAttr(this.element, 'data-entry-id', entry.id);
    this.element.className = `entry question-card question-${entry.question.kind} status-${entry.status}`;
    // A pending card keeps what the user is typing across a lock update; anything else re-renders.
    if (wasPending && sameRequest && entry.status === 'pending' && entry.question.kind === 'clarify') {
      this.#markLocked(entry.question.locked);
      return;
    }
    replaceChildren(this.element, entry.question.kind === 'clarify' ? this.#clarify(entry, entry.question) : this.#secret(entry, entry.question));
    if (entry.status === 'pending' && !wasPending) {
      this.#env.announce(t('The agent asks a question.'));
    }
  }

  #head(text: string, q: QuestionEntryView): HTMLElement {
    const status = statusText(q);
    return el('div', { class: 'question-head' }, [
      icon(q.question.kind === 'secret' ? 'lock' : 'question'),
      el('h3', { class: 'question-title', text, attrs: { id: this.#titleId } }),
      status !== '' ? el('span', { class: 'question-status muted', text: status }) : false,
    ]);
  }

  #clarify(q: QuestionEntryView, c: Extract<QuestionEntryView['question'], { kind: 'clarify' }>): HTMLElement[] {
    const pending = q.status === 'pending';
    const answers = c.answers ?? c.locked;
    const groups = c.questions.map((question) => this.#questionGroup(q.requestId, question, pending, c.questions.length > 1, answers[question.id]));
    const out: HTMLElement[] = [this.#head(t('The agent asks'), q), ...groups];
    if (pending) {
      const form = this.element;
      out.push(
        el('div', { class: 'question-actions' }, [
          button(t('Submit answers'), {
            // The locks as they are now (a lock updates the card in place, not this handler).
            onClick: () => this.#env.actions.answerQuestion(q.requestId, collectAnswers(form, c.questions, this.#currentLocks(c.locked))),
          }),
          button(t('Cancel question'), { class: 'secondary', onClick: () => this.#env.actions.cancelQuestion(q.requestId) }),
        ]),
      );
    }
    return out;
  }

  #questionGroup(requestId: string, question: ClarifyQuestionView, pending: boolean, batch: boolean, answer: string | null | undefined): HTMLElement {
    const labelId = uniqueId('clarify-q');
    const name = uniqueId('clarify-choice');
    const group = el('fieldset', { class: 'clarify-question', attrs: { 'data-question-id': question.id, 'aria-labelledby': labelId } }, [
      el('legend', { class: 'clarify-text', text: visibleText(question.text), attrs: { id: labelId } }),
    ]);
    if (!pending || answer !== undefined) {
      group.appendChild(el('p', { class: 'clarify-answer', attrs: { 'data-locked': String(pending) } }, [pending ? icon('lock') : false, answer === null || answer === undefined ? t('(skipped)') : t('Answer: {0}', visibleText(answer))]));
      if (!pending) {
        return group;
      }
    }
    for (const choice of question.choices) {
      const input = el('input', { attrs: { type: question.multiSelect ? 'checkbox' : 'radio', name, value: choice, class: 'clarify-choice' } });
      group.appendChild(el('label', { class: 'clarify-option' }, [input, el('span', { text: visibleText(choice) })]));
    }
    const free = el('input', { class: 'clarify-free', attrs: { type: 'text', role: 'textbox', 'aria-label': t('Your own answer to: {0}', visibleText(question.text)), placeholder: t('Or type an answer') } });
    group.appendChild(free);
    if (batch && answer === undefined) {
      group.appendChild(
        button(t('Lock answer'), {
          class: 'secondary',
          ariaLabel: t('Lock the answer to: {0}', visibleText(question.text)),
          onClick: () => this.#env.actions.lockAnswer(requestId, question.id, answerOf(group)),
        }),
      );
    }
    return group;
  }

  #currentLocks(fallback: Readonly<Record<string, string | null>>): Readonly<Record<string, string | null>> {
    const q = this.#entry?.question;
    return q?.kind === 'clarify' ? q.locked : fallback;
  }

  #markLocked(locked: Readonly<Record<string, string | null>>): void {
    for (const group of Array.from(this.element.querySelectorAll<HTMLElement>('fieldset.clarify-question'))) {
      const id = group.getAttribute('data-question-id') ?? '';
      if (id in locked && group.querySelector('.clarify-answer') === null) {
        const answer = locked[id];
        group.querySelectorAll('input, button').forEach((n) => n.remove());
        group.querySelectorAll('label.clarify-option').forEach((n) => n.remove());
        group.appendChild(el('p', { class: 'clarify-answer', attrs: { 'data-locked': 'true' } }, [icon('lock'), answer === null || answer === undefined ? t('(skipped)') : t('Answer: {0}', visibleText(answer))]));
      }
    }
  }

  #secret(q: QuestionEntryView, s: Extract<QuestionEntryView['question'], { kind: 'secret' }>): HTMLElement[] {
    const title = s.secretKind === 'sudo' ? t('The agent needs your sudo password') : s.envVar !== undefined ? t('The agent asks for {0}', s.envVar) : t('The agent asks for a secret');
    const out: HTMLElement[] = [this.#head(title, q), el('p', { class: 'question-prompt', text: visibleText(s.prompt) })];
    if (q.status !== 'pending') {
      return out;
    }
    const input = el('input', { class: 'secret-input', attrs: { type: 'password', autocomplete: 'off', spellcheck: 'false', 'aria-label': title } });
    const submit = (): void => {
      const value = input.value;
      input.value = '';
      this.#env.actions.answerSecret(q.requestId, value);
    };
    input.addEventListener('keydown', (e) => {
      if (e.key === 'Enter') {
        e.preventDefault();
        submit();
      }
    });
    out.push(
      input,
      el('div', { class: 'question-actions' }, [
        button(t('Submit secret'), { onClick: submit }),
        button(t('Cancel'), { class: 'secondary', ariaLabel: t('Decline: {0}', title), onClick: () => this.#env.actions.cancelQuestion(q.requestId) }),
      ]),
    );
    return out;
  }
}

/** A question's answer from its controls: the free text when typed, else the picked choice(s). */
function answerOf(group: HTMLElement): string | null {
  const free = group.querySelector<HTMLInputElement>('input.clarify-free')?.value.trim() ?? '';
  if (free !== '') {
    return free;
  }
  const picked = Array.from(group.querySelectorAll<HTMLInputElement>('input.clarify-choice')).filter((i) => i.checked).map((i) => i.value);
  return picked.length > 0 ? picked.join(', ') : null;
}

function collectAnswers(form: HTMLElement, questions: readonly ClarifyQuestionView[], locked: Readonly<Record<string, string | null>>): Record<string, string | null> {
  const out: Record<string, string | null> = {};
  for (const q of questions) {
    if (q.id in locked) {
      continue;
    }
    const group = Array.from(form.querySelectorAll<HTMLElement>('fieldset.clarify-question')).find((g) => g.getAttribute('data-question-id') === q.id);
    out[q.id] = group !== undefined ? answerOf(group) : null;
  }
  return out;
}
