import type * as acp from '@agentclientprotocol/sdk';
import { Deferred } from '../util/deferred';
import { Emitter } from '../util/emitter';
import { decideSafely, type PendingPermission, type PermissionDecider } from './permissionDecider';
import type { PermissionOutcome, SessionAction } from './sessionActions';
import { finishedToolStatuses, type SessionState } from './sessionState';
import { findPermissionTool } from './slices/toolSlice';

export interface PendingPermissionsDeps {
  /** The session state as it is now (the requests' turn, whether the session can still answer). */
  readonly state: () => SessionState;
  readonly dispatch: (action: SessionAction) => void;
  readonly now: () => number;
  readonly newId: () => string;
  /** The client-side policy, which may answer before a human is asked. */
  readonly decider?: PermissionDecider;
}

interface PendingRequest {
  readonly deferred: Deferred<acp.RequestPermissionResponse>;
  /** See {@link PendingPermissions.holdAnswer}. */
  readonly holds: Promise<unknown>[];
  readonly request: acp.RequestPermissionRequest;
  readonly toolCallId: string;
  readonly turnId: number | undefined;
}

/**
 * The permission requests of one session that wait for an answer, and their resolvers. Every one
 * settles: with the option the user (or a rule) chose, `cancelled` on cancel, exit, restart or close
 * (ACP prompt-turn: the client MUST answer pending requests `cancelled`), or expired when the agent
 * stopped waiting. Owned by the {@link SessionController}.
 */
export class PendingPermissions {
  private counter = 0;
  private readonly pending = new Map<string, PendingRequest>();
  private readonly onRequestedEmitter = new Emitter<PendingPermission>();
  private readonly onSettledEmitter = new Emitter<string>();
  /** A request is waiting for the user (not fired for requests a rule answered). */
  readonly onRequested = this.onRequestedEmitter.event;
  /** A request was answered (by anyone) — notifications about it can go. */
  readonly onSettled = this.onSettledEmitter.event;

  constructor(private readonly deps: PendingPermissionsDeps) {}

  get size(): number {
    return this.pending.size;
  }

  has(requestId: string): boolean {
    return this.pending.has(requestId);
  }

  /** Pending requests, oldest first. */
  list(sessionId: string): readonly PendingPermission[] {
    return [...this.pending.entries()].map(([requestId, p]) => ({ requestId, sessionId, request: p.request }));
  }

  /** Handles `session/request_permission`. Always settles. */
  request(request: acp.RequestPermissionRequest, signal?: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const requestId = `permission-${++this.counter}`;
    const deferred = new Deferred<acp.RequestPermissionResponse>();
    const verdict = decideSafely(this.deps.decider, request);
    // Registered before the state changes, so listeners of the change already see it pending.
    this.pending.set(requestId, { deferred, holds: [], request, toolCallId: request.toolCall.toolCallId, turnId: this.deps.state().turn?.id });
    this.deps.dispatch({
      type: 'permissionRequested',
      id: this.deps.newId(),
      at: this.deps.now(),
      requestId,
      toolCall: request.toolCall,
      options: request.options,
      ...(verdict?.check !== undefined ? { check: verdict.check } : {}),
    });
    if (this.deps.state().turn?.cancelRequested === true || this.deps.state().phase === 'exited') {
      // Requests arriving after session/cancel are answered `cancelled` too: ACP prompt-turn only says pending
      // ones MUST be, but nobody is left to answer a later one.
      this.settle(requestId, { kind: 'cancelled' }, 'turn cancelled');
      return deferred.promise;
    }
    signal?.addEventListener('abort', () => this.settle(requestId, { kind: 'expired' }, 'the agent withdrew the request'), { once: true });
    const optionId = verdict?.optionId;
    if (optionId !== undefined && request.options.some((o) => o.optionId === optionId)) {
      this.settle(requestId, { kind: 'selected', optionId }, `rule: ${verdict?.rule ?? ''}`);
      return deferred.promise;
    }
    this.onRequestedEmitter.fire({ requestId, sessionId: this.deps.state().sessionId ?? request.sessionId, request });
    return deferred.promise;
  }

  /**
   * Answers a pending request with an option the agent offered. Returns false (and answers
   * nothing) when the request is no longer pending or the option was not offered.
   */
  choose(requestId: string, optionId: string, answeredBy = 'user', remembered?: string): boolean {
    const p = this.pending.get(requestId);
    if (!p?.request.options.some((o) => o.optionId === optionId)) {
      return false;
    }
    this.settle(requestId, { kind: 'selected', optionId }, answeredBy, remembered);
    return true;
  }

  /**
   * The user dismissed the request without choosing (closed the prompt): answered `cancelled`,
   * which every agent treats as "not allowed" — never an option the user did not pick.
   */
  dismiss(requestId: string): boolean {
    if (!this.pending.has(requestId)) {
      return false;
    }
    this.settle(requestId, { kind: 'cancelled' }, 'user dismissed');
    return true;
  }

  /**
   * Work that must be done before the answer to a pending request reaches the agent (the
   * Changes view snapshots the files a permission names: an agent may write them the moment it
   * is allowed, and a rule answers at once). The answer is recorded at once either way.
   */
  holdAnswer(requestId: string, until: Promise<unknown>): void {
    this.pending.get(requestId)?.holds.push(until);
  }

  /** Answers every pending request `cancelled` (the agent is about to be restarted, …). */
  cancelAll(reason: string): void {
    for (const requestId of [...this.pending.keys()]) {
      this.settle(requestId, { kind: 'cancelled' }, reason);
    }
  }

  /** The agent's own deadline passed (Hermes denies after 60 s): show it expired, answer cancelled. */
  expire(requestId: string): void {
    this.settle(requestId, { kind: 'expired' }, 'the agent stopped waiting');
  }

  afterUpdate(update: acp.SessionUpdate): void {
    if (update.sessionUpdate === 'tool_call_update' && update.status !== undefined && update.status !== null) {
      // The agent finished the call while its permission was still pending: it stopped waiting.
      for (const [requestId, p] of this.pending) {
        if (p.toolCallId === update.toolCallId) {
          const tool = findPermissionTool(this.deps.state(), requestId);
          if (tool !== undefined && finishedToolStatuses.has(tool.status)) {
            this.settle(requestId, { kind: 'expired' }, 'the agent stopped waiting');
          }
        }
      }
    }
  }

  settleTurn(turnId: number, reason: string): void {
    for (const [requestId, p] of [...this.pending]) {
      if (p.turnId === turnId || p.turnId === undefined) {
        this.settle(requestId, { kind: 'expired' }, reason);
      }
    }
  }

  settle(requestId: string, outcome: PermissionOutcome, answeredBy: string, remembered?: string): void {
    const p = this.pending.get(requestId);
    if (p === undefined) {
      return;
    }
    this.pending.delete(requestId);
    this.deps.dispatch({ type: 'permissionResolved', requestId, at: this.deps.now(), outcome, answeredBy, ...(remembered !== undefined ? { remembered } : {}) });
    const response: acp.RequestPermissionResponse =
      outcome.kind === 'selected' ? { outcome: { outcome: 'selected', optionId: outcome.optionId } } : { outcome: { outcome: 'cancelled' } };
    if (p.holds.length === 0 || outcome.kind !== 'selected') {
      p.deferred.resolve(response);
    } else {
      const release = (): void => {
        p.deferred.resolve(response);
      };
      void Promise.all(p.holds).then(release, release);
    }
    this.onSettledEmitter.fire(requestId);
  }

  /** Answers everything still pending `cancelled` and stops announcing. */
  dispose(reason: string): void {
    this.cancelAll(reason);
    this.onRequestedEmitter.dispose();
    this.onSettledEmitter.dispose();
  }
}
