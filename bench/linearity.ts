/**
 * Linearity of a stream from one-second slices: the main thread's CPU time per character shown in
 * the stream's last quarter versus its first (the message is 4× longer by then; ~1 when a
 * character costs the same however long the message already is).
 *
 * Per character shown, not per slice: the view refreshes a fast stream about once a second, paced
 * to share frames, so a quarter of one-second slices holds three to five refreshes, and the plain
 * CPU ratio swung by a fifth between runs of one build for that reason alone.
 */

/** One slice of a sampled stream: the main thread's CPU time, and the characters shown by its end. */
export interface Slice {
  readonly cpuMs: number;
  readonly shownChars: number;
}

export interface QuarterFigures {
  /** CPU per character shown, last quarter / first quarter (summed over the runs). */
  readonly growth: number;
  /** The same without dividing by the characters shown: last quarter's CPU / first quarter's. */
  readonly growthCpu: number;
  readonly firstQuarterCpuMs: number;
  readonly lastQuarterCpuMs: number;
  /** Characters that appeared on screen during the first and the last quarter. */
  readonly firstQuarterChars: number;
  readonly lastQuarterChars: number;
}

/**
 * The first and the last quarter of each run's slices, after its first slice (which inserts the
 * message), summed over the runs.
 */
export function quarterFigures(runs: readonly (readonly Slice[])[]): QuarterFigures {
  const first = { cpuMs: 0, chars: 0 };
  const last = { cpuMs: 0, chars: 0 };
  const add = (to: { cpuMs: number; chars: number }, all: readonly Slice[], from: number, end: number): void => {
    to.cpuMs += all.slice(from, end).reduce((n, slice) => n + slice.cpuMs, 0);
    to.chars += (all[end - 1]?.shownChars ?? 0) - (all[from - 1]?.shownChars ?? 0);
  };
  for (const all of runs) {
    const quarter = Math.max(1, Math.floor((all.length - 1) / 4));
    add(first, all, 1, 1 + quarter);
    add(last, all, all.length - quarter, all.length);
  }
  return {
    growth: last.cpuMs / last.chars / (first.cpuMs / first.chars),
    growthCpu: last.cpuMs / first.cpuMs,
    firstQuarterCpuMs: first.cpuMs,
    lastQuarterCpuMs: last.cpuMs,
    firstQuarterChars: first.chars,
    lastQuarterChars: last.chars,
  };
}
