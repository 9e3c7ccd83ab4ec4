import type { MarkdownScheduler } from './markdown';
import type { Ticker } from './render/env';

/** The page's beat: elapsed-time labels and countdowns move once a second. */
export const beatMs = 1_000;
/** A paced timer may run this fraction of its delay earlier, or `lateSlack` later, to fall on a beat. */
const earlySlack = 0.1;
const lateSlack = 0.25;

/**
 * The one-second beat of the page and a scheduler for paced rendering that shares it. While the
 * beat runs (a turn's clock, a permission countdown), a paced timer due near a beat — up to a
 * quarter of its delay before it, or a tenth after it — runs on that beat, in its task, before the
 * labels move: the browser then paints what both change in one frame, not two. A reply streamed
 * fast is refreshed once a second, as the turn's clock ticks, and the clock's own frame was about
 * a tenth of such a stream's cost. Paced timers are timing hints (Markdown refreshes accept being
 * a tenth early: markdownView.ts); one waiting for the beat when the labels stop still gets it.
 */
export function createTicker(scheduler: MarkdownScheduler): Ticker & { readonly paced: MarkdownScheduler } {
  const callbacks = new Set<() => void>();
  const onBeat = new Map<number, () => void>();
  let handle: number | undefined;
  let beatAt = 0;
  let lastId = 0;
  const arm = (): void => {
    beatAt = scheduler.now() + beatMs;
    handle = scheduler.setTimeout(run, beatMs);
  };
  const run = (): void => {
    const due = [...onBeat.values(), ...callbacks];
    onBeat.clear();
    handle = undefined;
    for (const callback of due) {
      callback();
    }
    if (callbacks.size > 0 && handle === undefined) {
      arm();
    }
  };
  return {
    paced: {
      now: () => scheduler.now(),
      inputPending: () => scheduler.inputPending(),
      whenIdle: (callback, ms) => scheduler.whenIdle(callback, ms),
      cancelIdle: (handle) => scheduler.cancelIdle(handle),
      setTimeout(callback, ms) {
        const toBeat = beatAt - scheduler.now();
        if (handle === undefined || ms <= 0 || toBeat < ms * (1 - earlySlack) || toBeat > ms * (1 + lateSlack)) {
          return scheduler.setTimeout(callback, ms);
        }
        onBeat.set(--lastId, callback);
        return lastId;
      },
      clearTimeout(id) {
        if (id < 0) {
          onBeat.delete(id);
        } else {
          scheduler.clearTimeout(id);
        }
      },
    },
    add(callback) {
      callbacks.add(callback);
      if (handle === undefined) {
        arm();
      }
    },
    remove(callback) {
      callbacks.delete(callback);
      if (callbacks.size === 0 && onBeat.size === 0 && handle !== undefined) {
        scheduler.clearTimeout(handle);
        handle = undefined;
      }
    },
  };
}
