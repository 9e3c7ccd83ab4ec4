import type { SessionController } from '../session/sessionController';

/**
 * An agent that gives up on a permission request after a while (Hermes denies after 60 s): the
 * request is shown expired at that moment instead of staying clickable. One timer per request.
 */
export class PermissionDeadlines {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(private readonly controller: SessionController) {}

  arm(requestId: string): void {
    const ms = this.controller.state.quirks.permissionTimeoutMs;
    if (ms === undefined) {
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(requestId);
      this.controller.expirePermission(requestId);
    }, ms);
    this.timers.set(requestId, timer);
  }

  clear(requestId: string): void {
    const t = this.timers.get(requestId);
    if (t !== undefined) {
      clearTimeout(t);
      this.timers.delete(requestId);
    }
  }

  dispose(): void {
    for (const t of this.timers.values()) {
      clearTimeout(t);
    }
    this.timers.clear();
  }
}
