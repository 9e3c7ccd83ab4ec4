import type { Entry } from './sessionState';

/**
 * Merges history replayed by `session/load` / `session/resume` into a transcript that may already
 * show that history (a chat restored after an agent crash, or Hermes replaying again on resume).
 *
 * Turns are aligned by count: the replay's first K user turns are the K the chat already shows
 * (agents rewrite user text — Hermes merges a cancelled or failed prompt into the next — so texts
 * cannot be compared reliably); only replayed turns beyond those are appended. Nothing shown is
 * removed and nothing is shown twice.
 */
export function mergeReplay(existing: readonly Entry[], replayed: readonly Entry[]): readonly Entry[] {
  if (replayed.length === 0) {
    return existing;
  }
  const shown = existing.filter((e) => e.kind === 'user' || e.kind === 'assistant' || e.kind === 'tool');
  if (shown.length === 0) {
    return existing.concat(replayed);
  }
  const knownTurns = existing.filter((e) => e.kind === 'user').length;
  let seen = 0;
  for (let i = 0; i < replayed.length; i++) {
    if (replayed[i]?.kind === 'user') {
      if (seen === knownTurns) {
        return existing.concat(replayed.slice(i));
      }
      seen++;
    }
  }
  return existing;
}
