/** The most intervals `[from, to]` that overlap at one moment. */
export function mostAtOnce(intervals: readonly (readonly [number, number])[]): number {
  const edges = intervals.flatMap(([from, to]) => [[from, 1] as const, [to, -1] as const]).sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  let now = 0;
  let most = 0;
  for (const [, step] of edges) {
    now += step;
    most = Math.max(most, now);
  }
  return most;
}
