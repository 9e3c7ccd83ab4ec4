import type { ClarifyAnswer, ClarifyRequest, QuestionPort, SecretAnswer, SecretRequest } from '../agentPort/questionPort';
import { Deferred } from '../util/deferred';
import type { SessionAction } from './sessionActions';
import type { SessionState } from './sessionState';

/** A question the agent asks that ACP has no request for, as the session layer receives it. */
export type SessionQuestion = { readonly kind: 'clarify'; readonly request: ClarifyRequest } | { readonly kind: 'secret'; readonly request: SecretRequest };

export interface PendingQuestionsDeps {
  readonly state: () => SessionState;
  readonly dispatch: (action: SessionAction) => void;
  readonly now: () => number;
  readonly newId: () => string;
}

interface Pending {
  readonly question: SessionQuestion;
  readonly settle: (answer: ClarifyAnswer | SecretAnswer) => void;
}

/**
 * The clarify and secret questions of one session that wait for the user. Each settles exactly once:
 * answered, cancelled by the user (clarify `{}`, secret declined), or withdrawn by the agent
 * (`request.cancel`, its signal) — then the answer is not sent. A secret's value passes straight
 * through to the transport: only "a value was given" reaches the state.
 */
export class PendingQuestions {
  private counter = 0;
  private readonly pending = new Map<string, Pending>();

  constructor(private readonly deps: PendingQuestionsDeps) {}

  get size(): number {
    return this.pending.size;
  }

  /** These questions as the transports' question port. */
  readonly port: Required<Pick<QuestionPort, 'clarify' | 'secret'>> = {
    clarify: async (request, signal) => (await this.ask({ kind: 'clarify', request }, signal)) as ClarifyAnswer,
    secret: async (request, signal) => (await this.ask({ kind: 'secret', request }, signal)) as SecretAnswer,
  };

  /** Asks; resolves with the answer (cancelled / declined when withdrawn, closed or refused). */
  ask(question: SessionQuestion, signal?: AbortSignal): Promise<ClarifyAnswer | SecretAnswer> {
    const requestId = `question-${++this.counter}`;
    const deferred = new Deferred<ClarifyAnswer | SecretAnswer>();
    const refusal: ClarifyAnswer | SecretAnswer = question.kind === 'clarify' ? { kind: 'cancelled' } : { kind: 'declined' };
    if (signal?.aborted === true || this.deps.state().phase === 'exited') {
      return Promise.resolve(refusal);
    }
    const onAbort = (): void => {
      this.settle(requestId, refusal, { type: 'questionSettled', requestId, at: this.deps.now(), status: 'withdrawn', reason: reasonOf(signal) });
    };
    signal?.addEventListener('abort', onAbort, { once: true });
    this.pending.set(requestId, {
      question,
      settle: (answer): void => {
        signal?.removeEventListener('abort', onAbort);
        deferred.resolve(answer);
      },
    });
    const r = question.request;
    this.deps.dispatch({
      type: 'questionAsked',
      id: this.deps.newId(),
      at: this.deps.now(),
      requestId,
      replayed: r.replayed,
      question:
        question.kind === 'clarify'
          ? { kind: 'clarify', questions: question.request.questions, locked: question.request.locked }
          : { kind: 'secret', secretKind: question.request.kind, prompt: question.request.prompt, ...(question.request.envVar !== undefined ? { envVar: question.request.envVar } : {}) },
    });
    return deferred.promise;
  }

  /** The user's clarify answers (keyed by question id; `null` skips one). False when not pending. */
  answerClarify(requestId: string, answers: Readonly<Record<string, string | null>>): boolean {
    const p = this.pending.get(requestId);
    if (p?.question.kind !== 'clarify') {
      return false;
    }
    const known = new Set(p.question.request.questions.map((q) => q.id));
    const kept = Object.fromEntries(Object.entries(answers).filter(([id]) => known.has(id)));
    return this.settle(requestId, { kind: 'answered', answers: kept }, { type: 'questionSettled', requestId, at: this.deps.now(), status: 'answered', answers: kept });
  }

  /** Locks one clarify answer early (`clarify.lock`); the card shows it locked once the agent accepted. */
  async lockClarify(requestId: string, questionId: string, answer: string | null): Promise<'ok' | 'expired' | 'unknown'> {
    const p = this.pending.get(requestId);
    if (p?.question.kind !== 'clarify' || !p.question.request.questions.some((q) => q.id === questionId)) {
      return 'unknown';
    }
    const result = await p.question.request.lock(questionId, answer);
    if (result === 'ok') {
      this.deps.dispatch({ type: 'clarifyLocked', requestId, questionId, answer });
    }
    return result;
  }

  /** The masked value goes to the agent; the state only learns that one was given. */
  answerSecret(requestId: string, value: string): boolean {
    const p = this.pending.get(requestId);
    if (p?.question.kind !== 'secret') {
      return false;
    }
    return this.settle(requestId, { kind: 'value', value }, { type: 'questionSettled', requestId, at: this.deps.now(), status: 'answered', provided: value !== '' });
  }

  /** The user cancelled the question (clarify answers `{}`, a secret is declined). */
  cancel(requestId: string, reason = 'cancelled by the user'): boolean {
    const p = this.pending.get(requestId);
    if (p === undefined) {
      return false;
    }
    const refusal: ClarifyAnswer | SecretAnswer = p.question.kind === 'clarify' ? { kind: 'cancelled' } : { kind: 'declined' };
    return this.settle(requestId, refusal, { type: 'questionSettled', requestId, at: this.deps.now(), status: 'cancelled', reason });
  }

  /** Every pending question cancelled (turn cancelled, agent exited, session closed). */
  cancelAll(reason: string): void {
    for (const id of [...this.pending.keys()]) {
      this.cancel(id, reason);
    }
  }

  private settle(requestId: string, answer: ClarifyAnswer | SecretAnswer, action: SessionAction): boolean {
    const p = this.pending.get(requestId);
    if (p === undefined) {
      return false;
    }
    this.pending.delete(requestId);
    this.deps.dispatch(action);
    p.settle(answer);
    return true;
  }
}

function reasonOf(signal: AbortSignal | undefined): string {
  const r: unknown = signal?.reason;
  return r instanceof Error ? r.message : typeof r === 'string' ? r : 'withdrawn by the agent';
}
