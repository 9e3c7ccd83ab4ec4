import type { SessionAction } from '../sessionActions';
import type { Entry, QuestionEntry, SessionState } from '../sessionState';
import { appendEntry, replaceAt } from './entryList';

/** The actions this slice owns: questions ACP has no request for (clarify, secrets) and their answers. */
export type QuestionAction = Extract<SessionAction, { type: 'questionAsked' | 'questionSettled' | 'clarifyLocked' }>;

/**
 * Clarifying questions and masked-value prompts as transcript entries. A secret's entry records only
 * that a value was (or was not) given: the value itself never enters the state, so it cannot reach the
 * transcript, the view model or a saved session.
 */
export function reduceQuestion(state: SessionState, action: QuestionAction): SessionState {
  switch (action.type) {
    case 'questionAsked': {
      if (findQuestionIndex(state.entries, action.requestId) >= 0) {
        return state;
      }
      const entry: QuestionEntry = {
        kind: 'question',
        id: action.id,
        requestId: action.requestId,
        question: action.question,
        status: 'pending',
        replayed: action.replayed,
        at: action.at,
        ...(state.turn !== undefined ? { turnId: state.turn.id } : {}),
      };
      return { ...state, entries: appendEntry(state.entries, entry, action.at) };
    }
    case 'questionSettled':
      return updateQuestion(state, action.requestId, (q) => {
        if (q.status !== 'pending') {
          return q;
        }
        const answers = q.question.kind === 'clarify' && action.answers !== undefined ? { answers: { ...lockedOf(q), ...action.answers } } : {};
        return {
          ...q,
          status: action.status,
          answeredAt: action.at,
          ...answers,
          ...(q.question.kind === 'secret' && action.status === 'answered' ? { provided: action.provided === true } : {}),
          ...(action.reason !== undefined ? { reason: action.reason } : {}),
        };
      });
    case 'clarifyLocked':
      return updateQuestion(state, action.requestId, (q) =>
        q.status !== 'pending' || q.question.kind !== 'clarify'
          ? q
          : { ...q, question: { ...q.question, locked: { ...q.question.locked, [action.questionId]: action.answer } } },
      );
  }
}

export function findQuestion(state: SessionState, requestId: string): QuestionEntry | undefined {
  const i = findQuestionIndex(state.entries, requestId);
  return i >= 0 ? (state.entries[i] as QuestionEntry) : undefined;
}

function lockedOf(q: QuestionEntry): Readonly<Record<string, string | null>> {
  return q.question.kind === 'clarify' ? q.question.locked : {};
}

function findQuestionIndex(entries: readonly Entry[], requestId: string): number {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'question' && e.requestId === requestId) {
      return i;
    }
  }
  return -1;
}

function updateQuestion(state: SessionState, requestId: string, fn: (q: QuestionEntry) => QuestionEntry): SessionState {
  const i = findQuestionIndex(state.entries, requestId);
  const q = i >= 0 ? (state.entries[i] as QuestionEntry) : undefined;
  if (q === undefined) {
    return state;
  }
  const next = fn(q);
  return next === q ? state : { ...state, entries: replaceAt(state.entries, i, next) };
}
