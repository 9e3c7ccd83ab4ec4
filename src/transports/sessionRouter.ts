import type * as acp from '@agentclientprotocol/sdk';
import type { Disposable } from '../util/disposable';
import { SessionBuffer } from '../util/sessionBuffer';

/**
 * Delivers translated updates to the session's listener, synchronously and in arrival order, the
 * way `AcpClient.subscribeSession` does: updates for a session nobody listens to yet are kept
 * (bounded) and delivered on subscribe. Also maps the wire's session ids to the ids the session
 * layer uses — the TUI Gateway answers `session.resume(stored id)` with a different runtime id.
 */
export class SessionRouter {
  private readonly listeners = new Map<string, (n: acp.SessionNotification) => void>();
  private readonly buffered = new SessionBuffer<acp.SessionNotification>();
  private readonly publicByWire = new Map<string, string>();
  private readonly wireByPublic = new Map<string, string>();

  /** From now on, updates for `wireId` go to listeners of `publicId`, and calls for `publicId` use `wireId`. */
  alias(wireId: string, publicId: string): void {
    this.publicByWire.set(wireId, publicId);
    this.wireByPublic.set(publicId, wireId);
  }

  publicId(wireId: string): string {
    return this.publicByWire.get(wireId) ?? wireId;
  }

  wireId(publicId: string): string {
    return this.wireByPublic.get(publicId) ?? publicId;
  }

  subscribe(sessionId: string, listener: (n: acp.SessionNotification) => void): Disposable {
    this.listeners.set(sessionId, listener);
    for (const n of this.buffered.take(sessionId)) {
      listener(n);
    }
    return {
      dispose: () => {
        if (this.listeners.get(sessionId) === listener) {
          this.listeners.delete(sessionId);
        }
      },
    };
  }

  /** `sessionId` is the public id. */
  deliver(sessionId: string, update: acp.SessionUpdate): void {
    const n: acp.SessionNotification = { sessionId, update };
    const listener = this.listeners.get(sessionId);
    if (listener !== undefined) {
      listener(n);
      return;
    }
    this.buffered.push(sessionId, n);
  }
}
