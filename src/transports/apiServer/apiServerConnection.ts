import type * as acp from '@agentclientprotocol/sdk';
import { randomUUID } from 'node:crypto';
import { AgentTimeoutError } from '../../agentPort/agentErrors';
import type { TrafficLog } from '../../wire/trafficLog';
import type { Disposable } from '../../util/disposable';
import { Deferred } from '../../util/deferred';
import { isObject } from '../../util/json';
import { approvalChoice, approvalPermission } from '../approval';
import { HttpStatusError, NotSupportedError, TransportClosedError } from '../../agentPort/transportErrors';
import { promptText } from '../promptText';
import type { TransportPorts } from '../../agentPort/questionPort';
import { SessionRouter } from '../sessionRouter';
import type { RunRecovery, Transport, TransportDescriptor, UnknownRunResolution } from '../../agentPort/transport';
import { ApiHttp, type ApiTarget } from './apiHttp';
import { ChatStreamTranslator, type TokenCounts } from './chatStream';
import { resolveUnknownRun } from './runRecovery';
import { RunStreamTranslator, type ApprovalAsk } from './runStream';
import { storedCallUpdate, storedToolCalls } from './sessionMessages';

export interface ApiTimeouts {
  /** JSON calls (capabilities, run admission, approval, stop). */
  readonly request: number;
  /** One whole turn. */
  readonly turn: number;
  /** Silence on a stream (Hermes sends keepalives; a dead server sends nothing). */
  readonly idle: number;
}

export const defaultApiTimeouts: ApiTimeouts = { request: 30_000, turn: 60 * 60_000, idle: 5 * 60_000 };

export interface ApiServerOptions {
  readonly target: ApiTarget;
  readonly log: TrafficLog;
  /** Approvals (runs mode) go to the permission port. */
  readonly ports: TransportPorts;
  /**
   * `chat`: `POST /v1/chat/completions` streaming (any OpenAI-compatible server; no approvals on this
   * stream). `runs`: `POST /v1/runs` + its event stream (Hermes only; approvals, stop).
   */
  readonly mode?: 'chat' | 'runs';
  /** The `model` field; Hermes' API server answers as `hermes-agent`. */
  readonly model?: string;
  readonly timeouts?: Partial<ApiTimeouts>;
}

interface ApiSession {
  readonly id: string;
  /** `X-Hermes-Session-Id` (chat, when a key is set) / `session_id` (runs): the server keeps the history. */
  readonly remoteId: string;
  readonly history: { role: 'user' | 'assistant'; content: string }[];
  turn: { readonly abort: AbortController; cancelled: boolean; runId?: string } | undefined;
}

/**
 * An {@link AgentConnection} over Hermes' OpenAI-compatible API Server (HTTP + SSE), for a Hermes
 * that runs elsewhere. A session is client-side (its id travels as Hermes' session id so the server
 * keeps the history); a prompt is one streamed request; cancel drops the stream (the server
 * interrupts the agent on disconnect) or stops the run.
 */
export class ApiServerConnection implements Transport, RunRecovery {
  transport: TransportDescriptor = {
    kind: 'api-server',
    capabilities: { fork: false, load: false, list: false, modes: false, rewrite: false, clarify: false, secrets: false, attach: false, modelSuggestions: false, toolProgress: true, runRecovery: false },
  };
  private readonly http: ApiHttp;
  private readonly router = new SessionRouter();
  private readonly sessions = new Map<string, ApiSession>();
  private readonly timeouts: ApiTimeouts;
  private readonly closedDeferred = new Deferred<Error>();
  private initValue: acp.InitializeResponse | undefined;
  private features: Readonly<Record<string, unknown>> = {};
  /** The model the server answers as (`/v1/capabilities` `model`, else `/v1/models`). */
  private modelName: string | undefined;
  private disposed = false;
  readonly closed = this.closedDeferred.promise;

  constructor(private readonly options: ApiServerOptions) {
    this.timeouts = { ...defaultApiTimeouts, ...options.timeouts };
    this.http = new ApiHttp(options.target, options.log, this.timeouts.request);
  }

  get agent(): acp.InitializeResponse | undefined {
    return this.initValue;
  }

  get isClosed(): boolean {
    return this.disposed;
  }

  /** Checks the server and the key, and reads its feature flags (`GET /v1/capabilities`). */
  async connect(): Promise<acp.InitializeResponse> {
    this.options.log.note(`connecting to ${this.http.description} (${this.options.mode ?? 'chat'} mode)`);
    try {
      const caps = await this.http.json('GET', '/v1/capabilities');
      this.features = isObject(caps) && isObject(caps.features) ? caps.features : {};
      this.modelName = isObject(caps) && typeof caps.model === 'string' && caps.model !== '' ? caps.model : undefined;
    } catch (e) {
      if (!(HttpStatusError.is(e) && e.status === 404)) {
        throw e;
      }
      // An OpenAI-compatible server without Hermes' capabilities route: check it answers at all.
      const models = await this.http.json('GET', '/v1/models');
      const first: unknown = isObject(models) && Array.isArray(models.data) ? models.data[0] : undefined;
      this.modelName = isObject(first) && typeof first.id === 'string' ? first.id : undefined;
    }
    this.transport = { ...this.transport, capabilities: { ...this.transport.capabilities, runRecovery: this.features.run_unknown_resolution === true } };
    // Hermes' version (`/health`, unauthenticated); an OpenAI-compatible server without it is fine.
    const health = await this.http.json('GET', '/health').catch(() => undefined);
    this.initValue = {
      protocolVersion: 1,
      agentInfo: { name: 'hermes-api-server', title: 'Hermes (API Server)', version: isObject(health) && typeof health.version === 'string' ? health.version : '' },
      agentCapabilities: { loadSession: false },
      authMethods: [],
    };
    return this.initValue;
  }

  newSession(): Promise<acp.NewSessionResponse> {
    const id = `vscode-${randomUUID()}`;
    this.sessions.set(id, { id, remoteId: id, history: [], turn: undefined });
    const model = this.options.model ?? this.modelName;
    return Promise.resolve({ sessionId: id, ...(model !== undefined ? { models: { currentModelId: model, availableModels: [{ modelId: model, name: model }] } } : {}) });
  }

  loadSession(): Promise<acp.LoadSessionResponse> {
    return Promise.reject(new NotSupportedError('API Server', 'loading sessions'));
  }

  resumeSession(): Promise<acp.ResumeSessionResponse> {
    return Promise.reject(new NotSupportedError('API Server', 'resuming sessions'));
  }

  forkSession(): Promise<{ readonly sessionId: string }> {
    return Promise.reject(new NotSupportedError('API Server', 'forking sessions'));
  }

  listSessions(): Promise<acp.ListSessionsResponse> {
    return Promise.reject(new NotSupportedError('API Server', 'listing sessions'));
  }

  closeSession(sessionId: string): Promise<unknown> {
    this.sessions.get(sessionId)?.turn?.abort.abort(new TransportClosedError('The session was closed.'));
    this.sessions.delete(sessionId);
    return Promise.resolve({});
  }

  setMode(): Promise<unknown> {
    return Promise.reject(new NotSupportedError('API Server', 'session modes'));
  }

  setModel(): Promise<unknown> {
    return Promise.reject(new NotSupportedError('API Server', 'switching models mid-session'));
  }

  setConfigOption(): Promise<acp.SetSessionConfigOptionResponse> {
    return Promise.reject(new NotSupportedError('API Server', 'session config options'));
  }

  subscribeSession(sessionId: string, listener: (n: acp.SessionNotification) => void): Disposable {
    return this.router.subscribe(sessionId, listener);
  }

  async prompt(params: acp.PromptRequest): Promise<acp.PromptResponse> {
    const session = this.sessions.get(params.sessionId);
    if (session === undefined || this.disposed) {
      throw new Error(`Unknown API Server session ${params.sessionId}.`);
    }
    const turn = { abort: new AbortController(), cancelled: false };
    session.turn = turn;
    const timer = setTimeout(() => turn.abort.abort(new AgentTimeoutError('the turn', this.timeouts.turn)), this.timeouts.turn);
    const text = promptText(params.prompt);
    try {
      return await (this.options.mode === 'runs' ? this.runTurn(session, text) : this.chatTurn(session, text));
    } catch (e) {
      if (turn.cancelled) {
        return { stopReason: 'cancelled' };
      }
      throw e;
    } finally {
      clearTimeout(timer);
      session.turn = undefined;
    }
  }

  async cancel(sessionId: string): Promise<void> {
    const turn = this.sessions.get(sessionId)?.turn;
    if (turn === undefined) {
      return;
    }
    turn.cancelled = true;
    if (turn.runId !== undefined) {
      // The run stops cooperatively; its stream ends with run.cancelled.
      await this.http.json('POST', `/v1/runs/${encodeURIComponent(turn.runId)}/stop`, {}).catch(() => turn.abort.abort(new Error('cancelled')));
      return;
    }
    // Dropping the stream is the chat-completions cancel: the server interrupts the agent on disconnect.
    turn.abort.abort(new Error('cancelled'));
  }

  resolveUnknownRun(runId: string): Promise<UnknownRunResolution> {
    if (this.features.run_unknown_resolution !== true) {
      return Promise.reject(new NotSupportedError('API Server', 'settling unknown runs (features.run_unknown_resolution is off)'));
    }
    return resolveUnknownRun(this.http, runId);
  }

  dispose(): void {
    this.disposed = true;
    for (const s of this.sessions.values()) {
      s.turn?.abort.abort(new TransportClosedError('The connection was closed.'));
    }
    this.closedDeferred.resolve(new TransportClosedError('The API Server connection was closed.'));
  }

  private async chatTurn(session: ApiSession, text: string): Promise<acp.PromptResponse> {
    const translator = new ChatStreamTranslator((u) => this.router.deliver(session.id, u));
    const messages = [...session.history, { role: 'user' as const, content: text }];
    const key = this.options.target.apiKey;
    let stored: string | undefined;
    await this.http.stream('POST', '/v1/chat/completions', { model: this.options.model ?? this.modelName ?? 'hermes-agent', stream: true, messages }, (e) => translator.onEvent(e), {
      idleTimeoutMs: this.timeouts.idle,
      ...(session.turn !== undefined ? { signal: session.turn.abort.signal } : {}),
      // Hermes refuses session continuation without a configured key (403); without one the history travels in the body.
      ...(key !== undefined && key !== '' ? { headers: { 'X-Hermes-Session-Id': session.remoteId } } : {}),
      onHeaders: (headers) => (stored = headers.get('X-Hermes-Session-Id') ?? undefined),
    });
    const end = translator.result;
    if (end.toolCallIds.length > 0 && stored !== undefined) {
      await this.fillToolCalls(session.id, stored, text, (calls) => calls.flatMap((c) => (end.toolCallIds.includes(c.id) ? [storedCallUpdate(c.id, c, true)] : [])));
    }
    if (end.finishReason === 'error' || end.error !== undefined) {
      throw new Error(end.error ?? 'The agent run failed; see the traffic log.');
    }
    if (end.finishReason === undefined && !end.done) {
      throw new TransportClosedError('The API server ended the stream before the reply finished.');
    }
    session.history.push({ role: 'user', content: text }, { role: 'assistant', content: end.text });
    return withUsage({ stopReason: end.finishReason === 'length' ? 'max_tokens' : 'end_turn' }, end.usage);
  }

  private async runTurn(session: ApiSession, text: string): Promise<acp.PromptResponse> {
    const turn = session.turn;
    const accepted = await this.http.json('POST', '/v1/runs', { input: text, session_id: session.remoteId, model: this.options.model ?? this.modelName ?? 'hermes-agent' });
    const runId = isObject(accepted) && typeof accepted.run_id === 'string' ? accepted.run_id : undefined;
    if (runId === undefined || turn === undefined) {
      throw new TransportClosedError('The API server admitted the run without a run id; see the traffic log.');
    }
    turn.runId = runId;
    if (turn.cancelled) {
      // Cancelled while the run was being admitted: stop it rather than leave it running unseen.
      await this.http.json('POST', `/v1/runs/${encodeURIComponent(runId)}/stop`, {}).catch(() => undefined);
    }
    const approvals = new Map<string, AbortController>();
    const translator: RunStreamTranslator = new RunStreamTranslator(
      runId,
      (u) => this.router.deliver(session.id, u),
      (ask) => this.approve(session.id, runId, ask, approvals, translator.lastOpenTool),
      (requestId) => {
        for (const [id, a] of approvals) {
          if (requestId === undefined || id === requestId) {
            a.abort(new Error('answered elsewhere'));
          }
        }
      },
    );
    try {
      await this.http.stream('GET', `/v1/runs/${encodeURIComponent(runId)}/events`, undefined, (e) => translator.onEvent(e), { idleTimeoutMs: this.timeouts.idle, signal: turn.abort.signal });
    } finally {
      for (const a of approvals.values()) {
        a.abort(new Error('the run ended'));
      }
    }
    const end = translator.end;
    const ids = translator.toolCallIds;
    if (ids.length > 0) {
      // Run tool events carry no call id: the stored calls of this turn, in order, are the run's.
      await this.fillToolCalls(session.id, session.remoteId, text, (calls) => calls.slice(0, ids.length).map((c, i) => storedCallUpdate(ids[i] ?? c.id, c, false)));
    }
    if (end === undefined) {
      throw new TransportClosedError(`The run ${runId} stream ended without a result; its status is at /v1/runs/${runId}.`);
    }
    switch (end.status) {
      case 'completed':
        return withUsage({ stopReason: 'end_turn' }, end.usage);
      case 'cancelled':
        return { stopReason: 'cancelled' };
      case 'interrupted':
        throw new Error(`${end.error ?? 'The API server shut down during the run.'} Run ${runId} may need settling (resolve-unknown).`);
      default:
        throw new Error(end.error ?? `The run ended ${end.status}.`);
    }
  }

  /** Arguments (and, over chat completions, results) of the turn's tool calls from the stored session; best effort. */
  private async fillToolCalls(sessionId: string, storedId: string, userText: string, updates: (calls: Awaited<ReturnType<typeof storedToolCalls>>) => acp.SessionUpdate[]): Promise<void> {
    try {
      for (const u of updates(await storedToolCalls(this.http, storedId, userText))) {
        this.router.deliver(sessionId, u);
      }
    } catch (e) {
      this.options.log.note(`the tool calls' arguments could not be read from session ${storedId}: ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  private approve(sessionId: string, runId: string, ask: ApprovalAsk, approvals: Map<string, AbortController>, toolCallId: string | undefined): void {
    const key = ask.requestId ?? `${runId}-approval-${approvals.size + 1}`;
    const abort = new AbortController();
    approvals.set(key, abort);
    const request = approvalPermission({ sessionId, requestId: key, command: ask.command, description: ask.description, choices: ask.choices, ...(toolCallId !== undefined ? { toolCallId } : {}) });
    void this.options.ports.permission
      .requestPermission(request, abort.signal)
      .then(async (res) => {
        if (!abort.signal.aborted) {
          await this.http.json('POST', `/v1/runs/${encodeURIComponent(runId)}/approval`, { choice: approvalChoice(res), ...(ask.requestId !== undefined ? { request_id: ask.requestId } : {}) });
        }
      })
      .catch((e: unknown) => this.options.log.note(`approval for run ${runId} not delivered: ${e instanceof Error ? e.message : String(e)}`))
      .finally(() => approvals.delete(key));
  }
}

/** The response with the turn's tokens (`PromptResponse.usage`, read by the session layer's `parseUsage`). */
function withUsage(response: acp.PromptResponse, usage: TokenCounts | undefined): acp.PromptResponse {
  return usage !== undefined ? Object.assign(response, { usage }) : response;
}
