import type { Disposable } from './disposable';
import { SessionBuffer } from './sessionBuffer';

/**
 * The one way session updates reach their session: one subscriber per session id, each item
 * delivered synchronously and in arrival order; items for a session nobody listens to yet wait
 * (bounded, see {@link SessionBuffer}) and are delivered on subscribe. Used by the ACP connection
 * (UpdateDispatcher) and by the non-ACP transports (SessionRouter).
 */
export class SessionRoutes<S, T> {
  private readonly subscribers = new Map<string, S>();
  private readonly buffered = new SessionBuffer<T>();

  constructor(private readonly deliver: (subscriber: S, item: T) => void) {}

  /** `subscriber` replaces the session's previous one; disposing it removes it only while it is current. */
  subscribe(sessionId: string, subscriber: S): Disposable {
    this.subscribers.set(sessionId, subscriber);
    for (const item of this.buffered.take(sessionId)) {
      this.deliver(subscriber, item);
    }
    return {
      dispose: () => {
        if (this.subscribers.get(sessionId) === subscriber) {
          this.subscribers.delete(sessionId);
        }
      },
    };
  }

  route(sessionId: string, item: T): void {
    const subscriber = this.subscribers.get(sessionId);
    if (subscriber !== undefined) {
      this.deliver(subscriber, item);
      return;
    }
    this.buffered.push(sessionId, item);
  }
}
