import type { Token } from 'marked';
import { firstBlocksWithin } from './blockLexer';
import { finishedCharsPerBatch, finishedCharsPerTask, finishedMsPerTask } from './viewLimits';

/**
 * Places finished blocks a batch at a time while one task is within its budget: at least one
 * batch, more while the task has run under `finishedMsPerTask` and placed under
 * `finishedCharsPerTask`. Returns the blocks left for the next task.
 */
export function placeWithinBudget(finished: Token[], place: (batch: Token[]) => void, now: () => number): Token[] {
  const started = now();
  let rest = finished;
  let chars = 0;
  do {
    const batch = firstBlocksWithin(rest, finishedCharsPerBatch);
    place(batch);
    chars += batch.reduce((n, tk) => n + tk.raw.length, 0);
    rest = rest.slice(batch.length);
  } while (rest.length > 0 && chars < finishedCharsPerTask && now() - started < finishedMsPerTask);
  return rest;
}
