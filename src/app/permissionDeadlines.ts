import type { SessionController } from '../session/sessionController';
import type { Disposable } from '../util/disposable';

/**
 * Agents that stop waiting for a permission answer on their own (Hermes denies after 60 s,
 * `permissionTimeoutMs`): the request is shown expired instead of left clickable. One timer per
 * pending request, cleared when it settles and on dispose.
 */
export class PermissionDeadlines implements Disposable {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly subscriptions: Disposable[];

  /** Arms a timer for every request the controller raises and clears it when the request settles. */
  constructor(private readonly controller: SessionController) {
    this.subscriptions = [controller.onPermissionRequested((p) => this.arm(p.requestId)), controller.onPermissionSettled((id) => this.clear(id))];
  }

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
    this.subscriptions.forEach((d) => d.dispose());
    for (const t of this.timers.values()) {
      clearTimeout(t);
    }
    this.timers.clear();
  }
}
