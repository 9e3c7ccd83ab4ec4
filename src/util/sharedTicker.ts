/**
 * One timer for many callers that each want to run "in about N ms": what comes due within
 * `slackMs` of each other runs in the same task, in order of priority (0 first). The chat
 * channels post through it (src/views/chat/webviewChannel.ts), so eight chats streaming at once reach
 * their webviews in one burst per frame, the chat the user looks at first, rather than in eight
 * timers' worth of tasks spread over each frame (issue 43).
 */
export class SharedTicker {
  private readonly due = new Map<object, { at: number; priority: number; run: () => void }>();
  private timer: ReturnType<typeof setTimeout> | undefined;
  private timerAt = Number.POSITIVE_INFINITY;

  constructor(
    private readonly slackMs = 4,
    private readonly now: () => number = () => Date.now(),
  ) {}

  /** Runs `run` for `key` in `ms` (replacing what `key` had asked for). */
  schedule(key: object, ms: number, priority: number, run: () => void): void {
    const at = this.now() + Math.max(0, ms);
    this.due.set(key, { at, priority, run });
    if (at < this.timerAt) {
      this.arm(at);
    }
  }

  cancel(key: object): void {
    this.due.delete(key);
    if (this.due.size === 0 && this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
      this.timerAt = Number.POSITIVE_INFINITY;
    }
  }

  isScheduled(key: object): boolean {
    return this.due.has(key);
  }

  private arm(at: number): void {
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
    }
    this.timerAt = at;
    this.timer = setTimeout(() => this.fire(), Math.max(0, at - this.now()));
  }

  private fire(): void {
    this.timer = undefined;
    this.timerAt = Number.POSITIVE_INFINITY;
    const limit = this.now() + this.slackMs;
    const ready = [...this.due.entries()].filter(([, d]) => d.at <= limit).sort((a, b) => a[1].priority - b[1].priority || a[1].at - b[1].at);
    for (const [key] of ready) {
      this.due.delete(key);
    }
    for (const [, d] of ready) {
      d.run();
    }
    let next = Number.POSITIVE_INFINITY;
    for (const d of this.due.values()) {
      next = Math.min(next, d.at);
    }
    if (next !== Number.POSITIVE_INFINITY && next < this.timerAt) {
      this.arm(next);
    }
  }
}

/** The ticker every chat channel of this extension host shares. */
export const chatPostTicker = new SharedTicker();
