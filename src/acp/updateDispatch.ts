import type * as acp from '@agentclientprotocol/sdk';
import type { Disposable } from '../util/disposable';
import { Emitter } from '../util/emitter';
import { SessionRoutes } from '../util/sessionRoutes';
import type { TrafficLog } from '../wire/trafficLog';
import type { UpdateProblem } from '../agentPort/agentConnection';
import { parseSessionNotification } from './updateValidation';

export type { UpdateProblem } from '../agentPort/agentConnection';

export type UpdateListener = (n: acp.SessionNotification) => void;
export type ProblemListener = (p: UpdateProblem) => void;

type Buffered = { readonly n: acp.SessionNotification } | { readonly problem: UpdateProblem };

interface Subscriber {
  readonly update: UpdateListener;
  readonly problem: ProblemListener | undefined;
}

/**
 * Validates each `session/update` line and routes it to its session's listener, synchronously and
 * in wire order. Updates (and problems) for sessions nobody listens to yet — ACP allows them before
 * the `session/new` response and during load replays — are buffered, bounded, and delivered on
 * subscribe.
 */
export class UpdateDispatcher implements Disposable {
  private readonly routes = new SessionRoutes<Subscriber, Buffered>(deliver);
  private readonly onAnyUpdateEmitter = new Emitter<acp.SessionNotification>();
  /** Every valid `session/update`, whatever its session (for observers such as the traffic view). */
  readonly onAnyUpdate = this.onAnyUpdateEmitter.event;

  constructor(private readonly log: TrafficLog) {}

  subscribe(sessionId: string, update: UpdateListener, problem?: ProblemListener): Disposable {
    return this.routes.subscribe(sessionId, { update, problem });
  }

  /** One `session/update` line off the wire (`params` already JSON-parsed). */
  dispatch(params: unknown, text: string, size: number, utf8Note: string | undefined): void {
    const parsed = parseSessionNotification(params);
    if (!parsed.ok) {
      this.log.append({ dir: 'in', kind: 'ignored', method: 'session/update', size, text, note: parsed.reason });
      if (parsed.sessionId !== undefined) {
        this.routes.route(parsed.sessionId, { problem: { kind: 'rejected', updateKind: parsed.kind, reason: parsed.reason } });
      }
      return;
    }
    const salvaged = parsed.salvaged;
    const note = salvaged === undefined ? utf8Note : salvageNote(salvaged.droppedItems, salvaged.droppedFields, utf8Note);
    this.log.append({ dir: 'in', kind: 'notification', method: 'session/update', size, text, ...(note !== undefined ? { note } : {}) });
    const n = parsed.value;
    if (this.onAnyUpdateEmitter.hasListeners) {
      this.onAnyUpdateEmitter.fire(n);
    }
    if (salvaged !== undefined && salvaged.droppedItems.length > 0) {
      // Dropped items change what the user sees (a selector, a plan step, a tool's output): say so.
      const reason = `${salvaged.droppedItems.join(', ')} left out (not valid ACP)`;
      this.routes.route(n.sessionId, { problem: { kind: 'salvaged', updateKind: n.update.sessionUpdate, reason } });
    }
    this.routes.route(n.sessionId, { n });
  }

  dispose(): void {
    this.onAnyUpdateEmitter.dispose();
  }
}

function deliver(subscriber: Subscriber, item: Buffered): void {
  if ('n' in item) {
    subscriber.update(item.n);
  } else {
    subscriber.problem?.(item.problem);
  }
}

function salvageNote(items: readonly string[], fields: readonly string[], utf8Note: string | undefined): string {
  const note = `left out by the ACP schema: ${[...items, ...fields].join(', ')}`;
  return utf8Note !== undefined ? `${utf8Note}; ${note}` : note;
}
