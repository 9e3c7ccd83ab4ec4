import type { TrafficLog } from '../../wire/trafficLog';
import { isObject } from '../../util/json';
import type { IncomingRequest } from '../jsonRpc/jsonRpcPeer';
import type { TransportPorts } from '../../agentPort/questionPort';
import { answerServerRequest, redactAnswer, type ServerRequestContext } from './serverRequests';
import type { OpenRequest } from './wire';

export interface GatewayQuestionsDeps {
  readonly ports: TransportPorts;
  readonly log: TrafficLog;
  request(method: string, params: unknown, logParams?: unknown): Promise<unknown>;
  /** Aborts a live server request's handler; its answer is not sent. */
  withdrawLive(id: string, reason: string): boolean;
  publicId(wireId: string): string;
  openToolNamed(wireId: string, toolName: string | undefined): string | undefined;
}

/**
 * The gateway's questions for this client: live server requests (answered with a response frame)
 * and the `open_requests` a resume / activate re-delivers (asked again and answered by id with
 * `request.answer`, since the frame went to a connection that is gone). `request.cancel` withdraws
 * either kind: its prompt clears and its answer is dropped.
 */
export class GatewayQuestions {
  private readonly replayed = new Map<string, AbortController>();

  constructor(private readonly deps: GatewayQuestionsDeps) {}

  live(request: IncomingRequest): Promise<unknown> {
    const params = isObject(request.params) ? request.params : {};
    const wireId = typeof params.session_id === 'string' ? params.session_id : '';
    // A live frame for a question shown from a replay: the live one wins.
    this.replayed.get(String(request.id))?.abort(new Error('re-delivered'));
    return answerServerRequest(request.method, params, this.context(String(request.id), wireId, false, request.signal));
  }

  replay(requests: readonly OpenRequest[], wireId: string): void {
    for (const r of requests) {
      if (this.replayed.has(r.id)) {
        continue;
      }
      const abort = new AbortController();
      this.replayed.set(r.id, abort);
      answerServerRequest(r.method, r.params, this.context(r.id, wireId, true, abort.signal))
        .then(async (result) => {
          if (!abort.signal.aborted) {
            await this.deps.request('request.answer', { id: r.id, result }, { id: r.id, result: redactAnswer(r.method, result) });
          }
        })
        .catch((e: unknown) => this.deps.log.note(`open request ${r.method} #${r.id} not answered: ${e instanceof Error ? e.message : String(e)}`))
        .finally(() => this.replayed.delete(r.id));
    }
  }

  withdraw(id: string, reason: string): void {
    this.deps.withdrawLive(id, reason);
    this.replayed.get(id)?.abort(new Error(reason));
  }

  abortAll(error: Error): void {
    for (const a of this.replayed.values()) {
      a.abort(error);
    }
  }

  private context(requestId: string, wireId: string, replayed: boolean, signal: AbortSignal): ServerRequestContext {
    return {
      ports: this.deps.ports,
      sessionId: this.deps.publicId(wireId),
      requestId,
      replayed,
      signal,
      openToolNamed: (name) => this.deps.openToolNamed(wireId, name),
      lock: async (questionId, answer) => {
        const raw = await this.deps.request('clarify.lock', { request_id: requestId, question_id: questionId, answer });
        return isObject(raw) && raw.status === 'ok' ? 'ok' : 'expired';
      },
    };
  }
}
