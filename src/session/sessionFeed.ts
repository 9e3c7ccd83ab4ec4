import type * as acp from '@agentclientprotocol/sdk';
import type { Disposable } from '../util/disposable';
import type { AgentConnection, UpdateProblem } from './agentConnection';
import type { SessionAction } from './sessionActions';

export interface SessionFeedDeps {
  readonly now: () => number;
  readonly newId: () => string;
  /** Applies a batch without flushing again (the controller's reducer step). */
  readonly apply: (action: SessionAction) => void;
  /** After a batch was applied (pending permissions watch their tool calls). */
  readonly afterBatch: (updates: readonly acp.SessionUpdate[]) => void;
  readonly onProblem: (p: UpdateProblem) => void;
}

/**
 * The session's subscription to its connection's updates. Updates are queued and reduced together
 * at the end of the current task (one read from the pipe often holds hundreds): one state change and
 * one copy of the entry list per burst instead of per chunk. The controller flushes before reading
 * its state or dispatching anything, so nothing ever observes updates out of order.
 */
export class SessionFeed implements Disposable {
  private subscription: Disposable | undefined;
  private subscribedTo: string | undefined;
  private queued: { id: string; at: number; update: acp.SessionUpdate }[] = [];

  constructor(private readonly deps: SessionFeedDeps) {}

  subscribe(connection: AgentConnection, sessionId: string): void {
    if (this.subscription !== undefined && this.subscribedTo === sessionId) {
      return;
    }
    this.subscription?.dispose();
    this.subscribedTo = sessionId;
    this.subscription = connection.subscribeSession(sessionId, (n) => this.onUpdate(n.update), this.deps.onProblem);
  }

  flush(): void {
    if (this.queued.length === 0) {
      return;
    }
    const updates = this.queued;
    this.queued = [];
    this.deps.apply(updates.length === 1 && updates[0] !== undefined ? { type: 'updateReceived', ...updates[0] } : { type: 'updatesReceived', updates });
    this.deps.afterBatch(updates.map((u) => u.update));
  }

  dispose(): void {
    this.subscription?.dispose();
    this.subscription = undefined;
  }

  private onUpdate(update: acp.SessionUpdate): void {
    this.queued.push({ id: this.deps.newId(), at: this.deps.now(), update });
    if (this.queued.length === 1) {
      queueMicrotask(() => this.flush());
    }
  }
}
