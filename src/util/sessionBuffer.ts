/**
 * Items for sessions nobody listens to yet, kept until someone subscribes. ACP allows updates before
 * the `session/new` response and during load replays, and agents send some for sessions the client
 * never opened, so the buffer is bounded twice: the oldest session goes when too many wait, and the
 * oldest item when one session has too many.
 */
export class SessionBuffer<T> {
  private readonly queues = new Map<string, T[]>();

  constructor(
    private readonly maxPerSession = 5000,
    private readonly maxSessions = 32,
  ) {}

  push(sessionId: string, item: T): void {
    let queue = this.queues.get(sessionId);
    if (queue === undefined) {
      if (this.queues.size >= this.maxSessions) {
        const oldest = this.queues.keys().next().value;
        if (oldest !== undefined) {
          this.queues.delete(oldest);
        }
      }
      queue = [];
      this.queues.set(sessionId, queue);
    }
    queue.push(item);
    if (queue.length > this.maxPerSession) {
      queue.shift();
    }
  }

  /** Removes and returns what waited for `sessionId`, oldest first. */
  take(sessionId: string): readonly T[] {
    const queue = this.queues.get(sessionId);
    this.queues.delete(sessionId);
    return queue ?? [];
  }
}
