import type * as acp from '@agentclientprotocol/sdk';
import type { TrafficLog } from '../../wire/trafficLog';
import type { Disposable } from '../../util/disposable';
import { Deferred } from '../../util/deferred';
import { SessionBuffer } from '../../util/sessionBuffer';
import { isObject, type JsonObject } from '../../util/json';
import { ModelMismatchError, NotSupportedError, TransportClosedError, TransportRpcError } from '../../agentPort/transportErrors';
import { JsonRpcPeer } from '../jsonRpc/jsonRpcPeer';
import type { LineChannel } from '../jsonRpc/lineChannel';
import type { TransportPorts } from '../../agentPort/questionPort';
import { SessionRouter } from '../sessionRouter';
import type { HistoryRewriter, LiveSessionDirectory, LiveSessionInfo, RewriteRequest, RewriteResult, Transport, TransportDescriptor } from '../../agentPort/transport';
import { EventQuestions } from './eventQuestions';
import { gatewayAgentInfo, gatewayDescriptor, type GatewayGeneration } from './gatewayGeneration';
import { GatewaySession } from './gatewaySession';
import { parseLiveSessions, parseStoredSessions } from './listings';
import { promptText } from '../promptText';
import { interruptAndSettle, rewriteHistory } from './rewrite';
import { GatewayQuestions } from './gatewayQuestions';
import { redactAnswer } from './serverRequests';
import { turnOutcome } from './turnOutcome';
import { GatewayCode, parseEvent, parseModelMismatch, parseSnapshot, parseSubmit, parseTranscript, type GatewayEvent, type SessionSnapshot, type SubmitResult } from './wire';

export interface GatewayTimeouts {
  /** From connecting to `gateway.ready` (a cold Python start with MCP discovery takes a while). */
  readonly ready: number;
  /** session.create / resume / activate / branch, and a created session's agent being built. */
  readonly session: number;
  /** One whole turn, from submit to `message.complete`. */
  readonly turn: number;
  readonly other: number;
}

export const defaultGatewayTimeouts: GatewayTimeouts = { ready: 60_000, session: 120_000, turn: 60 * 60_000, other: 30_000 };

export interface TuiGatewayOptions {
  readonly log: TrafficLog;
  readonly ports: TransportPorts;
  readonly timeouts?: Partial<GatewayTimeouts>;
  /** Per-session model and provider for `session.create` (a `_meta.hermes` on the request overrides). */
  readonly model?: string;
  readonly provider?: string;
}

/**
 * An {@link AgentConnection} over Hermes' TUI Gateway (JSON-RPC over stdio or WebSocket). Sessions,
 * prompts and cancels become gateway methods; gateway events become ACP `session/update`s; the
 * gateway's questions go to the permission and question ports. Several clients can be attached to
 * one live session: resuming or activating it adds a subscriber, and every client sees every event.
 */
export class TuiGatewayConnection implements Transport, HistoryRewriter, LiveSessionDirectory {
  /** The newer generation's until the handshake says otherwise. */
  transport: TransportDescriptor = gatewayDescriptor('requests');
  /** Which gateway this is (gatewayGeneration.ts); known after {@link handshake}. */
  generation: GatewayGeneration = 'requests';
  private readonly peer: JsonRpcPeer;
  private readonly router = new SessionRouter();
  private readonly sessions = new Map<string, GatewaySession>();
  /**
   * Events of a session whose create / resume / activate answer is parsed but not yet adopted: `ws`
   * emits the frames of one read synchronously, so the session's next events can run before the
   * awaiting code sees the snapshot. Dropping them lost the end of a turn an attach joined mid-way.
   */
  private readonly early = new SessionBuffer<GatewayEvent>(1000, 8);
  private readonly timeouts: GatewayTimeouts;
  private readonly ready = new Deferred<JsonObject>();
  private readonly liveIds = new Set<string>();
  private readonly questions: GatewayQuestions;
  private readonly eventQuestions: EventQuestions;
  private initValue: acp.InitializeResponse | undefined;
  private closedError: Error | undefined;
  readonly closed: Promise<Error>;

  constructor(
    channel: LineChannel,
    private readonly options: TuiGatewayOptions,
  ) {
    this.timeouts = { ...defaultGatewayTimeouts, ...options.timeouts };
    this.ready.promise.catch(() => undefined);
    this.questions = new GatewayQuestions({
      ports: options.ports,
      log: options.log,
      request: (method, params, logParams) => this.peer.request(method, params, logParams !== undefined ? { logParams } : {}),
      withdrawLive: (id, reason) => this.peer.withdraw(id, reason),
      publicId: (wireId) => this.router.publicId(wireId),
      openToolNamed: (wireId, name) => this.sessions.get(wireId)?.mapper.openToolNamed(name),
    });
    this.eventQuestions = new EventQuestions({
      ports: options.ports,
      log: options.log,
      request: (method, params, logParams) => this.peer.request(method, params, logParams !== undefined ? { logParams } : {}),
      publicId: (wireId) => this.router.publicId(wireId),
      openTool: (wireId) => this.sessions.get(wireId)?.mapper.openToolNamed(undefined),
      notify: (wireId, update) => this.router.deliver(this.router.publicId(wireId), update),
    });
    this.peer = new JsonRpcPeer(channel, {
      log: options.log,
      defaultTimeoutMs: this.timeouts.other,
      onNotification: (method, params) => this.onNotification(method, params),
      onRequest: (request) => this.questions.live(request),
      redactAnswer,
    });
    this.closed = this.peer.closed.then((error) => {
      this.closedError = error;
      this.ready.reject(error);
      for (const s of this.sessions.values()) {
        s.turns.failAll(error);
      }
      this.questions.abortAll(error);
      this.eventQuestions.abortAll(error);
      return error;
    });
  }

  get agent(): acp.InitializeResponse | undefined {
    return this.initValue;
  }

  get isClosed(): boolean {
    return this.closedError !== undefined;
  }

  /**
   * Waits for `gateway.ready`, then declares that this client answers server requests
   * (`client.capabilities {server_requests: true}`): without it a WebSocket client has every
   * approval / clarify / sudo request refused at once. A gateway without the method (-32601) is
   * Hermes v0.19.0's generation, which asks through events (eventQuestions.ts).
   */
  async handshake(): Promise<acp.InitializeResponse> {
    const timer = setTimeout(
      () => this.ready.reject(new TransportClosedError(`The gateway did not send gateway.ready within ${Math.round(this.timeouts.ready / 1000)} s.`)),
      this.timeouts.ready,
    );
    try {
      await this.ready.promise;
    } finally {
      clearTimeout(timer);
    }
    try {
      await this.peer.request('client.capabilities', { server_requests: true });
    } catch (e) {
      if (!TransportRpcError.hasCode(e, GatewayCode.methodNotFound)) {
        throw e;
      }
      this.generation = 'events';
      this.transport = gatewayDescriptor('events');
      this.options.log.note('the gateway has no client.capabilities (-32601): questions arrive as events (Hermes v0.19.0)');
    }
    this.initValue = gatewayAgentInfo('');
    return this.initValue;
  }

  async newSession(params: acp.NewSessionRequest): Promise<acp.NewSessionResponse> {
    const meta = isObject(params._meta) && isObject(params._meta.hermes) ? params._meta.hermes : {};
    const model = typeof meta.model === 'string' ? meta.model : this.options.model;
    const provider = typeof meta.provider === 'string' ? meta.provider : this.options.provider;
    let raw: unknown;
    try {
      raw = await this.peer.request(
        'session.create',
        { cwd: params.cwd, ...(model !== undefined ? { model } : {}), ...(provider !== undefined ? { provider } : {}) },
        { timeoutMs: this.timeouts.session },
      );
    } catch (e) {
      const mismatch = TransportRpcError.hasCode(e, GatewayCode.invalidParams) ? parseModelMismatch(e.data) : undefined;
      if (mismatch !== undefined && TransportRpcError.is(e)) {
        throw new ModelMismatchError(mismatch, e.message);
      }
      throw e;
    }
    const snapshot = this.requireSnapshot('session.create', raw);
    this.adopt(snapshot, snapshot.sessionId);
    if (snapshot.info.lazy === true) {
      await this.sessions.get(snapshot.sessionId)?.whenBuilt(this.timeouts.session, this.closed);
    }
    const current = snapshot.info.model;
    return {
      sessionId: snapshot.sessionId,
      ...(current !== undefined ? { models: { currentModelId: current, availableModels: [{ modelId: current, name: current }] } } : {}),
    };
  }

  /** A live session of this gateway (from {@link listLiveSessions}) is activated, any other resumed. */
  async loadSession(params: { readonly sessionId: string }): Promise<acp.LoadSessionResponse> {
    const method = this.liveIds.has(params.sessionId) ? 'session.activate' : 'session.resume';
    const raw = await this.peer.request(method, { session_id: params.sessionId }, { timeoutMs: this.timeouts.session });
    const snapshot = this.requireSnapshot(method, raw);
    this.adopt(snapshot, params.sessionId);
    this.questions.replay(snapshot.openRequests, snapshot.sessionId);
    return {};
  }

  resumeSession(params: acp.ResumeSessionRequest): Promise<acp.ResumeSessionResponse> {
    return this.loadSession(params);
  }

  async listSessions(params: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
    return { sessions: parseStoredSessions(await this.peer.request('session.list', { limit: 50 }), params.cwd ?? '') };
  }

  async listLiveSessions(): Promise<readonly LiveSessionInfo[]> {
    const live = parseLiveSessions(await this.peer.request('session.active_list', {}));
    for (const s of live) {
      this.liveIds.add(s.sessionId);
    }
    return live;
  }

  async forkSession(params: { sessionId: string }): Promise<{ readonly sessionId: string }> {
    const raw = await this.peer.request('session.branch', { session_id: this.router.wireId(params.sessionId) }, { timeoutMs: this.timeouts.session });
    const snapshot = this.requireSnapshot('session.branch', raw);
    this.track(snapshot, snapshot.sessionId).book.reset(snapshot.messages);
    return { sessionId: snapshot.sessionId };
  }

  closeSession(sessionId: string): Promise<unknown> {
    return this.peer.request('session.close', { session_id: this.router.wireId(sessionId) });
  }

  async prompt(params: acp.PromptRequest): Promise<acp.PromptResponse> {
    const session = this.session(params.sessionId);
    const text = promptText(params.prompt);
    const mark = session.turns.mark;
    session.expectOwnInput(text);
    let result: SubmitResult;
    session.submitting(1);
    try {
      result = parseSubmit(await this.peer.request('prompt.submit', { session_id: session.wireId, text }));
    } catch (e) {
      session.dropOwnInput(text);
      throw e;
    } finally {
      session.submitting(-1);
    }
    if (result.status === 'steered' || result.status === 'redirected') {
      session.dropOwnInput(text);
    } else {
      session.book.appendTurn();
    }
    return turnOutcome(session, mark, result.status, this.timeouts.turn, this.closed);
  }

  async cancel(sessionId: string): Promise<void> {
    if (this.closedError === undefined) {
      await this.peer.request('session.interrupt', { session_id: this.router.wireId(sessionId) });
    }
  }

  setMode(): Promise<unknown> {
    return Promise.reject(new NotSupportedError('TUI Gateway', 'session modes'));
  }

  /** `/model` through `command.dispatch`, as Hermes' own clients switch models mid-session. */
  setModel(sessionId: string, modelId: string): Promise<unknown> {
    return this.peer.request('command.dispatch', { session_id: this.router.wireId(sessionId), command: `/model ${modelId}` });
  }

  setConfigOption(): Promise<acp.SetSessionConfigOptionResponse> {
    return Promise.reject(new NotSupportedError('TUI Gateway', 'session config options'));
  }

  subscribeSession(sessionId: string, listener: (n: acp.SessionNotification) => void): Disposable {
    return this.router.subscribe(sessionId, listener);
  }

  userRowIds(sessionId: string): readonly (number | null)[] {
    return this.sessions.get(this.router.wireId(sessionId))?.book.list() ?? [];
  }

  async rewrite(request: RewriteRequest): Promise<RewriteResult> {
    const session = this.session(request.sessionId);
    const text = promptText(request.prompt);
    let mark = session.turns.mark;
    const outcome = await rewriteHistory(request, text, {
      book: session.book,
      submit: async (extra) => {
        mark = session.turns.mark;
        session.expectOwnInput(text);
        try {
          return parseSubmit(await this.peer.request('prompt.submit', { session_id: session.wireId, ...extra }));
        } catch (e) {
          session.dropOwnInput(text);
          throw e;
        }
      },
      interrupt: () => interruptAndSettle(session.turns, () => this.peer.request('session.interrupt', { session_id: session.wireId })),
      refreshRows: async () => {
        const raw = await this.peer.request('session.history', { session_id: session.wireId });
        session.book.reset(parseTranscript(isObject(raw) ? raw.messages : undefined));
      },
    });
    if (outcome.kind === 'declined') {
      return outcome;
    }
    const response = await turnOutcome(session, mark, outcome.result.status, this.timeouts.turn, this.closed);
    return { kind: 'rewritten', response, survivorRowIds: outcome.survivors, interrupts: outcome.interrupts };
  }

  async dispose(): Promise<void> {
    await this.peer.close();
  }

  /** Tracks the session, shows its snapshot, then the events that arrived before the snapshot was adopted. */
  private adopt(snapshot: SessionSnapshot, publicId: string): void {
    const session = this.track(snapshot, publicId);
    session.adopt(snapshot);
    for (const event of this.early.take(snapshot.sessionId)) {
      session.onEvent(event);
    }
  }

  private track(snapshot: SessionSnapshot, publicId: string): GatewaySession {
    this.router.alias(snapshot.sessionId, publicId);
    let session = this.sessions.get(snapshot.sessionId);
    if (session === undefined) {
      session = new GatewaySession(snapshot.sessionId, publicId, (u) => this.router.deliver(publicId, u));
      this.sessions.set(snapshot.sessionId, session);
    }
    this.liveIds.add(snapshot.sessionId);
    return session;
  }

  private session(publicId: string): GatewaySession {
    const session = this.sessions.get(this.router.wireId(publicId));
    if (session === undefined) {
      throw new Error(`Unknown gateway session ${publicId}: create, resume or attach it first.`);
    }
    return session;
  }

  private requireSnapshot(method: string, raw: unknown): SessionSnapshot {
    const snapshot = parseSnapshot(raw);
    if (snapshot === undefined) {
      throw new TransportRpcError(method, -32603, `The gateway answered \`${method}\` without a session id; see the traffic log.`);
    }
    return snapshot;
  }

  /** What an event means for the open questions and the agent's identity, before the session shows it. */
  private onTurnEvent(event: GatewayEvent, wireId: string): void {
    const p = event.payload;
    switch (event.type) {
      case 'tool.complete':
        if (typeof p.tool_id === 'string') {
          this.eventQuestions.toolCompleted(wireId, p.tool_id);
        }
        return;
      case 'message.complete':
      case 'error':
        this.eventQuestions.turnEnded(wireId, event.type === 'error' ? 'the turn failed' : 'the turn ended');
        return;
      case 'session.info':
        if (typeof p.version === 'string' && p.version !== '' && this.initValue?.agentInfo?.version !== p.version) {
          this.initValue = gatewayAgentInfo(p.version);
        }
        return;
      default:
    }
  }

  private onNotification(method: string, params: unknown): void {
    const event = method === 'event' ? parseEvent(params) : undefined;
    if (event === undefined) {
      return;
    }
    if (event.type === 'gateway.ready') {
      this.ready.resolve(event.payload);
      return;
    }
    if (event.type === 'request.cancel') {
      // Withdrawn (answered on another client, timed out, interrupted): clear exactly that prompt.
      const id = event.payload.id;
      if (typeof id === 'string') {
        const reason = `withdrawn by the agent (${typeof event.payload.reason === 'string' ? event.payload.reason : 'cancelled'})`;
        this.questions.withdraw(id, reason);
      }
      return;
    }
    if (event.sessionId === undefined || this.eventQuestions.onEvent(event)) {
      return;
    }
    this.onTurnEvent(event, event.sessionId);
    const session = this.sessions.get(event.sessionId);
    if (session === undefined) {
      this.early.push(event.sessionId, event);
      return;
    }
    session.onEvent(event);
  }
}
