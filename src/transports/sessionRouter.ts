import type * as acp from '@agentclientprotocol/sdk';
import type { Disposable } from '../util/disposable';
import { SessionRoutes } from '../util/sessionRoutes';

/**
 * Delivers translated updates to the session's listener the way `AcpClient.subscribeSession` does,
 * through the same {@link SessionRoutes}. Also maps the wire's session ids to the ids the session
 * layer uses — the TUI Gateway answers `session.resume(stored id)` with a different runtime id.
 */
export class SessionRouter {
  private readonly routes = new SessionRoutes<(n: acp.SessionNotification) => void, acp.SessionNotification>((listener, n) => listener(n));
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
    return this.routes.subscribe(sessionId, listener);
  }

  /** `sessionId` is the public id. */
  deliver(sessionId: string, update: acp.SessionUpdate): void {
    this.routes.route(sessionId, { sessionId, update });
  }
}
