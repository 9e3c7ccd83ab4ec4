import type * as acp from '@agentclientprotocol/sdk';
import type { TrafficLog } from '../../wire/trafficLog';
import type { JsonObject } from '../../util/json';
import { approvalChoice, approvalPermission } from '../approval';
import type { TransportPorts } from '../../agentPort/questionPort';
import type { GatewayEvent } from './wire';

/**
 * Questions of the older gateway generation (Hermes v0.19.0, recorded in
 * test/fixtures/hermes-gateway/): the gateway sends them as **events** and waits for the client's
 * call — `approval.request` (no id; answered per session with `approval.respond {session_id,
 * choice}`), `clarify.request` / `sudo.request` / `secret.request` (a `request_id`; answered with
 * `clarify.respond {request_id, answer}`, `sudo.respond {request_id, password}`,
 * `secret.respond {request_id, value}`). Read from `tui_gateway/server.py` (`_block`,
 * `_emit_approval_request`, `_respond`) at 15dc65ee and confirmed on the real program.
 *
 * Every question is answered exactly once, or withdrawn: when the call it belongs to completes
 * without our answer (another client answered it, the turn was interrupted), when the turn ends,
 * on `sudo.expire` / `secret.expire`, or when the connection ends. A question no port can show is
 * answered at once — empty, which Hermes reads as "skipped" — and a notice says so.
 */

/** `X.request` events answered by `X.respond` with the answer under this key. */
const answerKeys: Readonly<Record<string, string>> = {
  'clarify.request': 'answer',
  'sudo.request': 'password',
  'secret.request': 'value',
  'terminal.read.request': 'text',
};

/** Answers that are masked values: the traffic log shows `«redacted»`. */
const maskedRequests: ReadonlySet<string> = new Set(['sudo.request', 'secret.request']);

export interface EventQuestionsDeps {
  readonly ports: TransportPorts;
  readonly log: TrafficLog;
  request(method: string, params: JsonObject, logParams?: JsonObject): Promise<unknown>;
  /** The session id the session layer knows. */
  publicId(wireId: string): string;
  /** The most recent open tool call of the session (an approval names no call). */
  openTool(wireId: string): string | undefined;
  /** A notice in the session's transcript. */
  notify(wireId: string, update: acp.SessionUpdate): void;
}

interface Pending {
  readonly wireId: string;
  readonly abort: AbortController;
  /** The tool call it belongs to, when known: its completion withdraws the question. */
  readonly toolCallId: string | undefined;
}

export class EventQuestions {
  private readonly pending = new Map<string, Pending>();
  private approvals = 0;

  constructor(private readonly deps: EventQuestionsDeps) {}

  /** Handles a question event; false for any other event. */
  onEvent(event: GatewayEvent): boolean {
    const wireId = event.sessionId;
    if (wireId === undefined) {
      return false;
    }
    const p = event.payload;
    if (event.type === 'approval.request') {
      this.approval(wireId, p);
      return true;
    }
    if (event.type === 'sudo.expire' || event.type === 'secret.expire') {
      this.withdraw(str(p.request_id), 'the agent stopped waiting (expired)');
      return true;
    }
    if (event.type.endsWith('.request') && typeof p.request_id === 'string') {
      this.blocking(wireId, event.type, p.request_id, p);
      return true;
    }
    return false;
  }

  /** `tool.complete`: a question about this call that is still open was settled elsewhere. */
  toolCompleted(wireId: string, toolCallId: string): void {
    for (const [key, q] of this.pending) {
      if (q.wireId === wireId && q.toolCallId === toolCallId) {
        this.withdraw(key, 'settled elsewhere (the call completed)');
      }
    }
  }

  /** The session's turn ended (`message.complete`, `error`): nothing of it waits any more. */
  turnEnded(wireId: string, why: string): void {
    for (const [key, q] of this.pending) {
      if (q.wireId === wireId) {
        this.withdraw(key, why);
      }
    }
  }

  abortAll(error: Error): void {
    for (const key of [...this.pending.keys()]) {
      this.withdraw(key, error.message);
    }
  }

  private withdraw(key: string, reason: string): void {
    const q = this.pending.get(key);
    if (q !== undefined) {
      this.pending.delete(key);
      q.abort.abort(new Error(`withdrawn by the agent (${reason})`));
    }
  }

  private approval(wireId: string, p: JsonObject): void {
    const key = `approval-${wireId}-${++this.approvals}`;
    const toolCallId = this.deps.openTool(wireId);
    const abort = new AbortController();
    this.pending.set(key, { wireId, abort, toolCallId });
    const request = approvalPermission({
      sessionId: this.deps.publicId(wireId),
      requestId: key,
      command: str(p.command),
      description: str(p.description),
      choices: strings(p.choices),
      ...(toolCallId !== undefined ? { toolCallId } : {}),
    });
    void this.deps.ports.permission
      .requestPermission(request, abort.signal)
      .then(async (res) => {
        if (abort.signal.aborted) {
          return;
        }
        this.pending.delete(key);
        await this.deps.request('approval.respond', { session_id: wireId, choice: approvalChoice(res) });
      })
      .catch((e: unknown) => this.deps.log.note(`approval ${key} not answered: ${message(e)}`))
      .finally(() => this.pending.delete(key));
  }

  private blocking(wireId: string, type: string, requestId: string, p: JsonObject): void {
    const kind = type.slice(0, -'.request'.length);
    const answerKey = answerKeys[type];
    const abort = new AbortController();
    this.pending.set(requestId, { wireId, abort, toolCallId: this.deps.openTool(wireId) });
    this.answerFor(wireId, type, requestId, p, abort.signal)
      .then(async (answer) => {
        if (abort.signal.aborted) {
          return;
        }
        this.pending.delete(requestId);
        const params = { request_id: requestId, [answerKey ?? 'answer']: answer };
        await this.deps.request(`${kind}.respond`, params, maskedRequests.has(type) && answer !== '' ? { ...params, [answerKey ?? 'value']: '«redacted»' } : undefined);
      })
      .catch((e: unknown) => this.deps.log.note(`${type} ${requestId} not answered: ${message(e)}`))
      .finally(() => this.pending.delete(requestId));
  }

  /** The answer to send: the user's, or '' (skipped) when no port can ask or the prompt was dismissed. */
  private async answerFor(wireId: string, type: string, requestId: string, p: JsonObject, signal: AbortSignal): Promise<string> {
    const port = this.deps.ports.questions;
    const sessionId = this.deps.publicId(wireId);
    if (type === 'clarify.request' && port?.clarify !== undefined) {
      const answer = await port.clarify(
        {
          sessionId,
          requestId,
          questions: [{ id: 'answer', text: str(p.question), choices: strings(p.choices), multiSelect: false }],
          locked: {},
          replayed: false,
          lock: () => Promise.resolve('expired' as const),
        },
        signal,
      );
      return answer.kind === 'answered' ? (answer.answers.answer ?? '') : '';
    }
    if ((type === 'sudo.request' || type === 'secret.request') && port?.secret !== undefined) {
      const sudo = type === 'sudo.request';
      const answer = await port.secret(
        {
          sessionId,
          requestId,
          kind: sudo ? 'sudo' : 'secret',
          prompt: sudo ? 'Password for sudo' : str(p.prompt) || (str(p.env_var) !== '' ? `Value for ${str(p.env_var)}` : 'A secret value'),
          ...(typeof p.env_var === 'string' ? { envVar: p.env_var } : {}),
          replayed: false,
        },
        signal,
      );
      return answer.kind === 'value' ? answer.value : '';
    }
    this.deps.notify(wireId, {
      sessionUpdate: 'notice',
      severity: 'warning',
      title: `Hermes asked for something this client cannot show (${type}); answered empty`,
      description: 'Hermes treats an empty answer as skipped. Answer it in Hermes’ own TUI to give one.',
    });
    return '';
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function strings(v: unknown): string[] {
  return Array.isArray(v) ? v.filter((x): x is string => typeof x === 'string') : [];
}

function message(e: unknown): string {
  return e instanceof Error ? e.message : String(e);
}
