/**
 * Crash recovery's pace: after an exit nobody asked for, the agent restarts after 1 s, then 4 s,
 * then 15 s; a fourth exit within 5 minutes gets no automatic restart (the notice's "Restart Agent"
 * remains). Pure: the caller passes the clock and keeps the timers.
 */
export class RespawnPolicy<K> {
  private readonly restarts = new Map<K, number[]>();

  constructor(
    private readonly delaysMs: readonly number[] = [1000, 4000, 15_000],
    private readonly windowMs = 5 * 60_000,
  ) {}

  /** The delay before restarting `key` after an exit at `now`, or undefined when it exits too often. */
  next(key: K, now: number): number | undefined {
    const recent = (this.restarts.get(key) ?? []).filter((t) => now - t < this.windowMs);
    if (recent.length >= this.delaysMs.length) {
      return undefined;
    }
    this.restarts.set(key, [...recent, now]);
    return this.delaysMs[recent.length];
  }
}
