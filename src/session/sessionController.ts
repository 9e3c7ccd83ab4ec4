import type * as acp from '@agentclientprotocol/sdk';
import type { Disposable } from '../util/disposable';
import { Emitter } from '../util/emitter';
import { formatMessage, type Localize } from '../util/l10n';
import type { AgentConnection } from '../agentPort/agentConnection';
import { PendingPermissions } from './pendingPermissions';
import { PendingQuestions, type SessionQuestion } from './pendingQuestions';
import type { PendingPermission, PermissionDecider } from './permissionDecider';
import type { SessionAction } from './sessionActions';
import { reduceSession } from './sessionReducer';
import { initialSessionState, type AgentQuirks, type NoticeAction, type NoticeLevel, type SessionState } from './sessionState';
import * as settings from './sessionSettings';
import { describe, mismatchNotice, parseModels, providerFailureOf, startMeta, type StartOptions } from './sessionResponses';
export type { StartOptions } from './sessionResponses';
import { planRewrite, rowsBound, runRewrite } from './sessionRewrite';
import { SessionFeed } from './sessionFeed';
import { UpdateProblemNotices } from './updateProblems';
import type { DeepCutQuestion } from '../agentPort/transport';
import type { ClarifyAnswer, SecretAnswer } from '../agentPort/questionPort';
import { armTurnDeadline, defaultPromptDeadlineMs } from './turnDeadline';

export interface SessionChange {
  readonly prev: SessionState;
  readonly next: SessionState;
  readonly action: SessionAction;
}

export type { PendingPermission, PermissionDecider, PermissionVerdict } from './permissionDecider';

/** What session setup carries besides the id and cwd (ACP session-setup). */
export interface SessionSetupParams {
  readonly mcpServers: acp.McpServer[];
  readonly additionalDirectories?: string[];
}

export interface SessionControllerDeps {
  /** The agent connection; may be provided later ({@link SessionController.useConnection}) and replaced after a restart. */
  readonly connection?: AgentConnection;
  readonly cwd: string;
  readonly quirks: AgentQuirks;
  /** Injected clock (ms). */
  readonly now: () => number;
  /** Injected id source for entries. */
  readonly newId: () => string;
  readonly mcpServers?: acp.McpServer[];
  readonly permissions?: PermissionDecider;
  /** The notices the controller itself adds (`vscode.l10n.t` in the extension). */
  readonly t?: Localize;
  /** When a turn is cancelled for running too long ({@link armTurnDeadline}); 60 min by default. */
  readonly promptDeadlineMs?: number;
}

/** The result of one prompt turn as the caller sees it. */
export type TurnResult =
  | { readonly kind: 'ended'; readonly stopReason: acp.StopReason; readonly response: acp.PromptResponse }
  | { readonly kind: 'failed'; readonly error: unknown }
  | { readonly kind: 'interrupted'; readonly error: unknown };

/** A rewrite's result: a turn like a prompt's, or declined (the user said no to a deep cut). */
export type RewriteTurnResult = TurnResult | { readonly kind: 'declined' };

/**
 * Owns one ACP session: its state (through the pure reducer), its pending permission requests and
 * the calls on the agent connection. No timers but the turn deadline and the update feed's window,
 * and no VS Code: the surface layer subscribes to {@link onDidChange} and answers through the
 * methods here.
 */
export class SessionController implements Disposable {
  private stateValue: SessionState;
  private turnCounter = 0;
  private readonly feed: SessionFeed;
  private readonly onDidChangeEmitter = new Emitter<SessionChange>();
  readonly onDidChange = this.onDidChangeEmitter.event;
  /** A request is waiting for the user (not fired for requests a rule answered). */
  readonly onPermissionRequested: PendingPermissions['onRequested'];
  /** A request was answered (by anyone) — notifications about it can go. */
  readonly onPermissionSettled: PendingPermissions['onSettled'];
  private readonly permissions: PendingPermissions;
  /** Clarify and secret questions waiting for the user: answer, lock or cancel them here. */
  readonly questions: PendingQuestions;
  private disposed = false;
  private readonly problemNotices = new UpdateProblemNotices();
  private connectionValue: AgentConnection | undefined;
  private setupValue: SessionSetupParams;
  private readonly t: Localize;

  constructor(private readonly deps: SessionControllerDeps) {
    this.stateValue = initialSessionState(deps.quirks);
    this.t = deps.t ?? formatMessage;
    this.setupValue = { mcpServers: deps.mcpServers ?? [] };
    this.connectionValue = deps.connection;
    this.permissions = new PendingPermissions({
      state: () => this.state,
      dispatch: (action) => this.dispatch(action),
      now: deps.now,
      newId: deps.newId,
      ...(deps.permissions !== undefined ? { decider: deps.permissions } : {}),
    });
    this.feed = new SessionFeed({
      now: deps.now,
      newId: deps.newId,
      apply: (action) => this.apply(action),
      afterBatch: (updates) => {
        for (const u of this.permissions.size > 0 ? updates : []) {
          this.permissions.afterUpdate(u);
        }
      },
      onProblem: (p) => {
        const n = this.problemNotices.noticeFor(p);
        return n !== undefined ? this.addNotice('warning', n.title, n.detail) : undefined;
      },
    });
    this.questions = new PendingQuestions({ state: () => this.state, dispatch: (action) => this.dispatch(action), now: deps.now, newId: deps.newId });
    this.onPermissionRequested = this.permissions.onRequested;
    this.onPermissionSettled = this.permissions.onSettled;
  }

  /** Binds (or, after an agent restart, rebinds) the connection this session talks through. */
  useConnection(connection: AgentConnection, quirks?: AgentQuirks): void {
    if (this.connectionValue !== connection) {
      this.feed.dispose();
      this.connectionValue = connection;
    }
    if (quirks !== undefined) {
      this.dispatch({ type: 'agentConnected', quirks });
    }
  }

  /** What session setup carries besides id and cwd (MCP servers, other workspace folders), from the next new/load/resume on. */
  useSetup(setup: SessionSetupParams): void {
    this.setupValue = setup;
  }

  get setup(): SessionSetupParams {
    return this.setupValue;
  }

  get hasConnection(): boolean {
    return this.connectionValue !== undefined && !this.connectionValue.isClosed;
  }

  get state(): SessionState {
    this.feed.flush();
    return this.stateValue;
  }

  get sessionId(): string | undefined {
    return this.stateValue.sessionId;
  }

  get connection(): AgentConnection {
    if (this.connectionValue === undefined) {
      throw new Error('The session has no agent connection.');
    }
    return this.connectionValue;
  }

  /** Pending permission request ids, oldest first. */
  get pendingPermissions(): readonly PendingPermission[] {
    return this.permissions.list(this.stateValue.sessionId ?? '');
  }

  /** Applies an action (none: nothing happens). */
  dispatch(action: SessionAction | undefined): void {
    // Updates still queued happened before this action: apply them first.
    this.feed.flush();
    if (action !== undefined) {
      this.apply(action);
    }
  }

  private apply(action: SessionAction): void {
    const prev = this.stateValue;
    const next = reduceSession(prev, action);
    if (next === prev) {
      return;
    }
    this.stateValue = next;
    this.onDidChangeEmitter.fire({ prev, next, action });
  }

  /** `session/new`; a refused model/provider pairing leaves a notice with the suggestions (rethrown). */
  async start(options: StartOptions = {}): Promise<void> {
    this.dispatch({ type: 'sessionStarting' });
    try {
      const res = await this.connection.newSession({ cwd: this.deps.cwd, ...this.setupValue, ...startMeta(options) });
      this.attach(res.sessionId, res);
    } catch (e) {
      this.dispatch(mismatchNotice(e, this.deps.newId(), this.deps.now(), this.t));
      this.dispatch({ type: 'sessionStartFailed' });
      throw e;
    }
  }

  /** `session/load` (or `session/resume`): replayed history is collected and merged, so nothing shown appears twice. */
  async load(sessionId: string, how: 'load' | 'resume' = 'load'): Promise<void> {
    this.dispatch({ type: 'sessionStarting' });
    // Collect before subscribing: updates the connection buffered for this session are history too.
    this.dispatch({ type: 'replayStarted' });
    this.feed.subscribe(this.connection, sessionId);
    try {
      const params = { sessionId, cwd: this.deps.cwd, ...this.setupValue };
      const res = how === 'load' ? await this.connection.loadSession(params) : await this.connection.resumeSession(params);
      this.dispatch({ type: 'replayEnded' });
      this.attach(sessionId, res ?? {});
      this.dispatch(rowsBound(this.connectionValue, sessionId));
    } catch (e) {
      this.dispatch({ type: 'replayEnded' });
      this.dispatch({ type: 'sessionStartFailed' });
      throw e;
    }
  }

  /** Adopts a session created elsewhere (e.g. by `session/fork`) and its initial modes/models. */
  attach(sessionId: string, res: { modes?: acp.SessionModeState | null; configOptions?: acp.SessionConfigOption[] | null; models?: unknown }): void {
    this.feed.subscribe(this.connection, sessionId);
    const models = parseModels(res.models);
    this.dispatch({
      type: 'sessionStarted',
      sessionId,
      ...(res.modes !== undefined ? { modes: res.modes } : {}),
      ...(res.configOptions !== undefined ? { configOptions: res.configOptions } : {}),
      ...(models !== undefined ? { models } : {}),
    });
  }

  /**
   * Sends a prompt and resolves when the turn ended (never rejects). `context` blocks are sent
   * before the prompt but not shown as the user's message (a fork's transcript, notes).
   */
  async prompt(blocks: readonly acp.ContentBlock[], context: readonly acp.ContentBlock[] = []): Promise<TurnResult> {
    const sessionId = this.stateValue.sessionId;
    if (sessionId === undefined || this.stateValue.phase !== 'idle') {
      throw new Error(`Cannot send a prompt while the session is ${this.stateValue.phase}.`);
    }
    const turnId = ++this.turnCounter;
    this.dispatch({ type: 'promptSubmitted', turnId, id: this.deps.newId(), at: this.deps.now(), blocks });
    return this.runTurn(turnId, () => this.connection.prompt({ sessionId, prompt: [...context, ...blocks] }));
  }

  /**
   * Edit and resend from any user message, done natively by the agent (transports that declare
   * `rewrite`): the transcript is cut before `entryId` once the submit goes out, the turn runs like a
   * prompt's, and the surviving user turns get their fresh row ids. `confirmDeepCut` is asked when
   * more than one user turn would be archived; declining changes nothing.
   */
  async rewrite(entryId: string, blocks: readonly acp.ContentBlock[], confirmDeepCut: (q: DeepCutQuestion) => Promise<boolean>): Promise<RewriteTurnResult> {
    const plan = planRewrite(this.connectionValue, this.state, entryId, this.t);
    const turnId = ++this.turnCounter;
    let declined = false;
    const result = await this.runTurn(turnId, async () => {
      const outcome = await runRewrite({ ...plan, entryId, blocks, turnId, confirmDeepCut, dispatch: (a) => this.dispatch(a), now: this.deps.now, newId: this.deps.newId });
      declined = outcome.kind === 'declined';
      return outcome.kind === 'declined' ? { stopReason: 'cancelled' } : outcome.response;
    });
    return declined ? { kind: 'declined' } : result;
  }

  private async runTurn(turnId: number, send: () => Promise<acp.PromptResponse>): Promise<TurnResult> {
    const disarm = armTurnDeadline(this, this.t, this.deps.promptDeadlineMs ?? defaultPromptDeadlineMs);
    try {
      const response = await send();
      this.dispatch({ type: 'turnEnded', turnId, id: this.deps.newId(), at: this.deps.now(), stopReason: response.stopReason, usage: (response as { usage?: unknown }).usage, meta: response._meta });
      return { kind: 'ended', stopReason: response.stopReason, response };
    } catch (error) {
      if (this.connection.isClosed) {
        return { kind: 'interrupted', error };
      }
      const provider = providerFailureOf(error);
      this.dispatch({
        type: 'turnFailed',
        turnId,
        id: this.deps.newId(),
        noticeId: this.deps.newId(),
        at: this.deps.now(),
        error: describe(error),
        title: this.t('The agent could not complete this turn.'),
        ...(provider !== undefined ? { provider } : {}),
      });
      return { kind: 'failed', error };
    } finally {
      disarm();
      this.permissions.settleTurn(turnId, 'the turn ended first');
    }
  }

  /**
   * ACP prompt-turn cancellation: `session/cancel` only while a prompt is in flight (an idle cancel
   * poisons Hermes' next prompt), every pending permission answered `cancelled` (MUST), unfinished
   * tool calls marked cancelled; updates keep applying until the prompt response arrives.
   */
  async cancel(): Promise<boolean> {
    const sessionId = this.stateValue.sessionId;
    if (sessionId === undefined || this.stateValue.phase !== 'running') {
      return false;
    }
    this.dispatch({ type: 'cancelRequested', at: this.deps.now() });
    const sent = this.connection.cancel(sessionId);
    this.permissions.cancelAll('turn cancelled');
    this.questions.cancelAll('turn cancelled');
    await sent;
    return true;
  }

  /** Handles `session/request_permission` for this session. Always settles. */
  requestPermission(request: acp.RequestPermissionRequest, signal?: AbortSignal): Promise<acp.RequestPermissionResponse> {
    return this.permissions.request(request, signal);
  }

  /** A clarifying question or a masked-value prompt (TUI Gateway); always settles. See {@link PendingQuestions}. */
  requestQuestion(question: SessionQuestion, signal?: AbortSignal): Promise<ClarifyAnswer | SecretAnswer> {
    return this.questions.ask(question, signal);
  }

  /**
   * Work that must be done before the answer to a pending request reaches the agent (the
   * Changes view snapshots the files a permission names: an agent may write them the moment it
   * is allowed, and a rule answers at once). The answer is recorded at once either way.
   */
  holdAnswer(requestId: string, until: Promise<unknown>): void {
    this.permissions.holdAnswer(requestId, until);
  }

  /**
   * Answers a pending request with an option the agent offered. Returns false (and answers
   * nothing) when the request is no longer pending or the option was not offered.
   */
  choosePermission(requestId: string, optionId: string, answeredBy = 'user', remembered?: string): boolean {
    return this.permissions.choose(requestId, optionId, answeredBy, remembered);
  }

  /** The user dismissed the request without choosing: answered `cancelled` (see {@link PendingPermissions.dismiss}). */
  dismissPermission(requestId: string): boolean {
    return this.permissions.dismiss(requestId);
  }

  /** Answers every pending request `cancelled` (the agent is about to be restarted, …). */
  cancelPendingPermissions(reason: string): void {
    this.permissions.cancelAll(reason);
  }

  /** The agent's own deadline passed (Hermes denies after 60 s): show it expired, answer cancelled. */
  expirePermission(requestId: string): void {
    this.permissions.expire(requestId);
  }

  /** The agent ended: the transcript stays, the turn is interrupted; `expected` (a restart) is neutral; `silent`: no notice (the caller's card says it). */
  agentExited(message: string, stderrTail: string, expected = false, silent = false): void {
    this.permissions.cancelAll('agent exited');
    this.questions.cancelAll('agent exited');
    if (this.stateValue.phase === 'exited') {
      return;
    }
    this.feed.dispose();
    this.dispatch({ type: 'agentExited', id: this.deps.newId(), noticeId: this.deps.newId(), at: this.deps.now(), message, stderrTail, ...(expected ? { expected } : {}), ...(silent ? { silent } : {}) });
  }

  /**
   * A notice in the transcript: `detail` is prose, `log` machine output (a stderr tail); `forkFrom`
   * (a user entry id) adds "Start fresh from here".
   */
  addNotice(level: NoticeLevel, title: string, detail?: string, actions?: readonly NoticeAction[], forkFrom?: string, log?: string): void {
    this.dispatch({
      type: 'noticeAdded',
      id: this.deps.newId(),
      at: this.deps.now(),
      level,
      title,
      ...(detail !== undefined ? { detail } : {}),
      ...(log !== undefined && log !== '' ? { log } : {}),
      ...(actions !== undefined ? { actions } : {}),
      ...(forkFrom !== undefined ? { forkFrom } : {}),
      ...(log !== undefined && log !== '' ? { log } : {}),
    });
  }

  setMode(modeId: string): Promise<void> {
    return settings.setMode(this, modeId);
  }

  setModel(modelId: string): Promise<void> {
    return settings.setModel(this, modelId);
  }

  setConfigOption(configId: string, value: string | boolean): Promise<void> {
    return settings.setConfigOption(this, configId, value);
  }

  /** Answers everything still pending and stops listening. Idempotent. */
  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    this.permissions.dispose('session closed');
    this.questions.cancelAll('session closed');
    this.feed.dispose();
    this.onDidChangeEmitter.dispose();
  }
}
