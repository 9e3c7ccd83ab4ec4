import { Deferred } from '../../util/deferred';
import type { JsonObject } from '../../util/json';
import type { GatewayUsage } from './wire';

/** How a turn ended (`message.complete`, or an `error` event, which ends a turn on v0.19.0). */
export interface TurnEnd {
  /** `complete`, `interrupted`, `error` (`prompt_turn._result_status`). */
  readonly status: string;
  readonly payload: JsonObject;
  /** This turn's tokens (the gateway reports the live session's running total). */
  readonly usage?: GatewayUsage;
}

/**
 * Which `message.complete` ends the turn a submit started. The gateway numbers nothing, so turns are
 * counted: a submit answered `streaming` (it started a turn) or `steered`/`redirected` (folded into
 * the running one) ends with the next completion; `queued` waits behind the running turn, so with
 * the one after. Completions that land before the submit's answer are remembered, so the count
 * taken before sending stays right whatever the interleaving (SHARED_SESSION_WIRE.md: "scheduling
 * may place start before or after the reply").
 */
export class TurnTracker {
  private completes = 0;
  private runningFlag = false;
  private readonly recent = new Map<number, TurnEnd>();
  private readonly waiters = new Map<number, Deferred<TurnEnd>[]>();

  get running(): boolean {
    return this.runningFlag;
  }

  /** Someone waits for a turn's end (a submit was answered and its turn has not ended). */
  get awaited(): boolean {
    return this.waiters.size > 0;
  }

  /** Completions seen so far: take it before submitting. */
  get mark(): number {
    return this.completes;
  }

  started(): void {
    this.runningFlag = true;
  }

  /** Attached to a session whose turn is already running (snapshot `running`). */
  adoptRunning(running: boolean): void {
    this.runningFlag = running;
  }

  completed(end: TurnEnd): void {
    this.runningFlag = false;
    this.completes++;
    this.recent.set(this.completes, end);
    this.recent.delete(this.completes - 16);
    for (const d of this.waiters.get(this.completes) ?? []) {
      d.resolve(end);
    }
    this.waiters.delete(this.completes);
  }

  /** The end of the turn a submit with this status started, counted from `mark`. */
  waitFor(mark: number, submitStatus: string): Promise<TurnEnd> {
    const target = mark + (submitStatus === 'queued' ? 2 : 1);
    const seen = this.recent.get(target);
    if (seen !== undefined) {
      return Promise.resolve(seen);
    }
    const d = new Deferred<TurnEnd>();
    const list = this.waiters.get(target) ?? [];
    list.push(d);
    this.waiters.set(target, list);
    return d.promise;
  }

  failAll(error: Error): void {
    for (const list of this.waiters.values()) {
      for (const d of list) {
        d.reject(error);
      }
    }
    this.waiters.clear();
  }
}
