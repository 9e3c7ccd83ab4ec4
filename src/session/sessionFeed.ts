import type * as acp from '@agentclientprotocol/sdk';
import type { Disposable } from '../util/disposable';
import type { AgentConnection, UpdateProblem } from '../agentPort/agentConnection';
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
 * How long the first queued update waits for others. An agent streaming 1,000 chunks a second
 * writes each in its own line, and each line is its own read from the pipe: reduced one by one,
 * every chunk paid a copy of the entry list (2 µs at 2,000 entries, issue 20's P3) and a state
 * change for every listener. Nothing shows it: the chat posts text at most every 100 ms, and
 * reading the state, or dispatching anything, reduces what is queued first.
 */
export const feedWindowMs = 16;

/**
 * The session's subscription to its connection's updates. Updates are queued and reduced together,
 * {@link feedWindowMs} after the first of them arrived: one state change and one copy of the entry
 * list per window instead of per chunk. The controller flushes before reading its state or
 * dispatching anything, so nothing ever observes updates out of order.
 */
export class SessionFeed implements Disposable {
  private subscription: Disposable | undefined;
  private subscribedTo: string | undefined;
  private queued: { id: string; at: number; update: acp.SessionUpdate }[] = [];
  private timer: ReturnType<typeof setTimeout> | undefined;

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
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
    if (this.queued.length === 0) {
      return;
    }
    const updates = this.queued;
    this.queued = [];
    this.deps.apply(updates.length === 1 && updates[0] !== undefined ? { type: 'updateReceived', ...updates[0] } : { type: 'updatesReceived', updates });
    this.deps.afterBatch(updates.map((u) => u.update));
  }

  /** Stops listening. What is queued stays queued: the next read of the state still reduces it. */
  dispose(): void {
    this.subscription?.dispose();
    this.subscription = undefined;
    if (this.timer !== undefined) {
      clearTimeout(this.timer);
      this.timer = undefined;
    }
  }

  private onUpdate(update: acp.SessionUpdate): void {
    this.queued.push({ id: this.deps.newId(), at: this.deps.now(), update });
    this.timer ??= setTimeout(() => this.flush(), feedWindowMs);
  }
}
