import type { QuestionEntryView } from '../protocol/sessionView';
import type { QuestionEntry } from './sessionState';

/** A question's card. Built from the entry alone, which never holds a secret's value. */
export function questionView(e: QuestionEntry): QuestionEntryView {
  const q = e.question;
  return {
    kind: 'question',
    id: e.id,
    requestId: e.requestId,
    status: e.status,
    replayed: e.replayed,
    ...(e.reason !== undefined ? { reason: e.reason } : {}),
    question:
      q.kind === 'clarify'
        ? {
            kind: 'clarify',
            questions: q.questions.map((c) => ({ id: c.id, text: c.text, choices: c.choices, multiSelect: c.multiSelect })),
            locked: q.locked,
            ...(e.answers !== undefined ? { answers: e.answers } : {}),
          }
        : {
            kind: 'secret',
            secretKind: q.secretKind,
            prompt: q.prompt,
            ...(q.envVar !== undefined ? { envVar: q.envVar } : {}),
            ...(e.provided !== undefined ? { provided: e.provided } : {}),
          },
  };
}
