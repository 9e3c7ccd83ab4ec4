import { firstBlocksWithin } from './blockLexer';
import { finishedCharsPerBatch, finishedCharsPerTask, finishedMsPerTask } from './viewLimits';

/**
 * Places finished blocks a batch at a time within one task's budget: at least one batch, then
 * more while under `finishedCharsPerTask` placed and while one more batch, at the rate this task
 * has placed so far, would end within `finishedMsPerTask` (`all`: every batch, no budget) — and
 * none after a key or click came to wait for the page (`inputPending`): the user's input goes
 * first. Returns the blocks left for the next task. A refresh that fits runs as one task (one
 * frame follows, not one per batch); on a loaded machine, where a batch alone may take tens of
 * milliseconds, the task stops after it.
 */
export function placeWithinBudget<T extends { readonly raw: string }>(finished: T[], place: (batch: T[]) => void, clock: { now(): number; inputPending(): boolean }, all = false): T[] {
  const started = clock.now();
  let rest = finished;
  let chars = 0;
  do {
    const batch = firstBlocksWithin(rest, finishedCharsPerBatch);
    place(batch);
    chars += batch.reduce((n, tk) => n + tk.raw.length, 0);
    rest = rest.slice(batch.length);
  } while (
    rest.length > 0 &&
    (all || (chars < finishedCharsPerTask && ((clock.now() - started) * (chars + finishedCharsPerBatch)) / chars <= finishedMsPerTask)) &&
    !clock.inputPending()
  );
  return rest;
}
