import type * as acp from '@agentclientprotocol/sdk';
import type { AgentHost, HostConnection } from '../host/agentHost';
import { SessionController, type RewriteTurnResult, type StartOptions, type TurnResult } from '../session/sessionController';
import type { DeepCutQuestion } from '../agentPort/transport';
import { ModelMismatchError } from '../agentPort/transportErrors';
import { PermissionDeadlines } from './permissionDeadlines';
import { defaultQuirks } from '../session/sessionState';
import { afterTurn, heldAfterLoad } from './turnNotices';
import { TurnRun } from './turnRun';
import { DisposableStore, type Disposable } from '../util/disposable';
import { Emitter } from '../util/emitter';
import { connectAgent, mayConnect } from './connectAgent';
import { ChatPermissions } from './chatPermissions';
import { ContextNotes, type ContextNoteSummary } from './contextNotes';
import { describeStartError, exitTitle } from './startErrors';
import { StartSteps } from './startSteps';
import { restoreSession } from './restoreSession';
import { SignIn } from './signIn';
import type { ChatSessionOptions, WorktreeLabel } from './chatSessionOptions';
import type { McpServersView } from '../protocol/sessionView';

export type { SpawnConsent } from './connectAgent';
export type { ChatSessionOptions } from './chatSessionOptions';

let chatCounter = 0;

/**
 * One conversation in the UI: a {@link SessionController} bound to an agent host, plus what the
 * surface needs around it (start-up, errors as notices, permission deadlines, restore after a
 * restart). VS Code-free apart from what it is given.
 */
export class ChatSession implements Disposable {
  readonly id = `chat-${++chatCounter}`;
  /** The chat this one was handed off from ("Continue with another agent…"), for the link back. */
  handedOffFrom: ChatSession | undefined;
  readonly controller: SessionController;
  private statusValue: string | undefined;
  private readOnlyValue = false;
  private starting: Promise<boolean> | undefined;
  private readonly notes = new ContextNotes(() => this.onDidChangeEmitter.fire());
  private usedValue = false;
  private startAttempted = false;
  /** The user asked for a restart: the agent's exit that follows is not a crash. */
  private restartRequested = false;
  /** From a restart's click until the session is back (or could not be): shown as starting, not as an exit. */
  private restartingValue = false;
  /** The title the chat gave the session itself (a fork's), until the agent names it. */
  private localTitleValue: string | undefined;
  private readonly steps: StartSteps;
  private entryCounter = 0;
  /** Model and provider for the next `session/new` (a suggestion the user picked). */
  private startOptions: StartOptions = {};
  private readonly disposables = new DisposableStore();
  private readonly onDidChangeEmitter = new Emitter<void>();
  /** The session state or the chat's own status changed. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly now: () => number;
  private readonly permissions: ChatPermissions;
  private readonly deadlines: PermissionDeadlines;
  /** The "Sign in" card when session setup answered `auth_required`. */
  readonly signIn: SignIn;
  private mcpViewValue: McpServersView | undefined;
  private hostValue: AgentHost;
  private exitWatch: Disposable;

  constructor(private readonly options: ChatSessionOptions) {
    this.now = options.now ?? Date.now;
    this.hostValue = options.host;
    this.permissions = new ChatPermissions(options, { note: (text) => this.hostValue.log.note(text) });
    this.controller = new SessionController({
      cwd: options.cwd,
      quirks: defaultQuirks,
      now: this.now,
      newId: () => `${this.id}-e${++this.entryCounter}`,
      permissions: options.decider ?? this.permissions,
      t: options.t,
      ...(options.promptDeadlineMs !== undefined ? { promptDeadlineMs: options.promptDeadlineMs } : {}),
    });
    this.disposables.add(this.controller.onDidChange(() => this.onDidChangeEmitter.fire()));
    this.deadlines = new PermissionDeadlines(this.controller);
    const hostOf = (): AgentHost => this.hostValue;
    const signInChat = { get host() { return hostOf(); }, claimStart: (run: () => Promise<boolean>) => this.claimStart(run), noteRestart: () => this.noteRestart(), changed: () => this.onDidChangeEmitter.fire() };
    this.signIn = new SignIn(signInChat, options.signIn, options.t);
    this.exitWatch = this.watchExit(options.host);
    this.steps = new StartSteps(this, options.t);
  }

  /** Moves the chat to another host of its agent ("Reconnect with the new settings"); the next ensureStarted restores the session there. */
  useHost(host: AgentHost): void {
    if (host !== this.hostValue) {
      this.controller.cancelPendingPermissions('the agent was replaced');
      this.endReviews('the agent was replaced');
      this.exitWatch.dispose();
      this.hostValue = host;
      this.exitWatch = this.watchExit(host);
    }
  }

  private watchExit(host: AgentHost): Disposable {
    return host.onDidExit((exit) => {
      this.endReviews(exit.expected ? 'the agent was stopped' : 'the agent exited');
      const t = this.options.t;
      const title = exit.expected ? (this.restartRequested ? t('Restarting {0}…', this.agentName) : t('The agent was stopped.')) : exitTitle(exit, t);
      // One card per failure: an exit that ends the chat's start is told by the start error's card,
      // with the stderr and its likely cause.
      const startFailure = this.steps.active || this.steps.endedBy(exit);
      this.controller.agentExited(title, exit.expected ? '' : exit.stderrTail, exit.expected, !exit.expected && startFailure);
      this.restartRequested = false;
    });
  }

  get host(): AgentHost {
    return this.hostValue;
  }

  get agentName(): string {
    return this.hostValue.definition.name;
  }

  get status(): string | undefined {
    return this.statusValue;
  }

  /** The MCP servers the last session setup passed, and those left out. */
  get mcpServers(): McpServersView | undefined {
    return this.mcpViewValue;
  }

  get readOnly(): boolean {
    return this.readOnlyValue;
  }

  /** A restart the user asked for is under way (the exit, the new process, the session's restore). */
  get restarting(): boolean {
    return this.restartingValue;
  }

  /** The title this chat gave its session (a fork's "Fork of …"), while the agent has not named it. */
  get localTitle(): string | undefined {
    return this.localTitleValue !== undefined && this.controller.state.title === this.localTitleValue ? this.localTitleValue : undefined;
  }

  get sessionId(): string | undefined {
    return this.controller.sessionId;
  }

  /** The session's cwd (a worktree session's: the worktree, or the same sub-folder of it). */
  get cwd(): string {
    return this.options.cwd;
  }

  get worktree(): WorktreeLabel | undefined {
    return this.options.worktree;
  }

  /** The folders its `fs/*` and terminal requests are bounded by, when not the workspace folders (a worktree session's). */
  get roots(): readonly string[] | undefined {
    return this.options.roots;
  }

  /** A prompt was sent in this chat, or it opened an existing session: worth listing in history. */
  get used(): boolean {
    return this.usedValue;
  }

  /** Starts the session when a chat is first shown; after a failure it waits for the user (a prompt, an action), not retrying on every reveal. */
  autoStart(): void {
    if (!this.startAttempted) {
      void this.ensureStarted();
    }
  }

  /** Starts the agent and the ACP session if needed. False (with a notice shown) when it could not. */
  ensureStarted(): Promise<boolean> {
    const phase = this.controller.state.phase;
    // A chat moved to another host (useHost) still holds the old connection: it is restored on the new one.
    if ((phase === 'idle' || phase === 'running' || phase === 'cancelling') && this.controller.hasConnection && this.controller.connection === this.hostValue.client) {
      return Promise.resolve(true);
    }
    return this.starting ?? this.claimStart(() => this.start());
  }

  /** Runs `run` as the chat's start (after the one under way, if any); ensureStarted waits for it. */
  private claimStart(run: () => Promise<boolean>): Promise<boolean> {
    const next: Promise<boolean> = (this.starting?.then(run, run) ?? run()).finally(() => {
      if (this.starting === next) {
        this.starting = undefined;
      }
    });
    this.starting = next;
    return next;
  }

  /** Sends a prompt (starting the session first if needed). */
  async submit(blocks: readonly acp.ContentBlock[]): Promise<TurnResult | undefined> {
    if (!(await this.ensureStarted())) {
      return undefined;
    }
    if (this.controller.state.phase !== 'idle') {
      return undefined;
    }
    const context = this.notes.take();
    this.usedValue = true;
    const files = this.options.fileText;
    const turn = await new TurnRun(this.controller, blocks, { context, now: this.now, ...(files !== undefined ? { files } : {}) }).done;
    this.endReviews('the turn ended');
    for (const n of afterTurn({ ...turn, agentName: this.agentName, t: this.options.t })) {
      this.controller.addNotice(n.level, n.title, n.detail, n.actions);
    }
    return turn.result;
  }

  /**
   * Edit and resend from a user message (transports that rewrite natively); `confirm` is asked
   * before more than one user turn is cut. Like {@link submit}: the turn's notices follow.
   */
  async rewrite(entryId: string, blocks: readonly acp.ContentBlock[], confirm: (q: DeepCutQuestion) => Promise<boolean>): Promise<RewriteTurnResult | undefined> {
    if (!(await this.ensureStarted()) || this.controller.state.phase !== 'idle') {
      return undefined;
    }
    this.usedValue = true;
    const result = await this.controller.rewrite(entryId, blocks, confirm);
    this.endReviews('the turn ended');
    return result;
  }

  /** Starts the session again with a model the agent suggested (a refused model/provider pairing). */
  useModel(model: string): Promise<boolean> {
    this.startOptions = { ...this.startOptions, model };
    return this.ensureStarted();
  }

  /**
   * The user restarts the agent (Restart Agent, a notice's button, after provider setup): the exit
   * that follows is a neutral "Restarting …" line, not a crash. The chat's start clears the status.
   */
  noteRestart(): void {
    this.restartRequested = this.controller.hasConnection;
    this.restartingValue ||= this.restartRequested;
    this.showStatus(this.restartRequested ? this.options.t('Restarting {0}…', this.agentName) : this.statusValue);
    // Writes waiting for review end rejected: the agent that asked is going away.
    this.endReviews('the agent was restarted');
  }

  /** A title the chat shows until the agent names the session (a fork, a session from the list). */
  showTitle(title: string): void {
    if (this.controller.state.title === undefined) {
      this.localTitleValue = title;
      this.controller.dispatch({ type: 'updateReceived', id: `${this.id}-title`, at: this.now(), update: { sessionUpdate: 'session_info_update', title } });
    }
  }

  /** Context sent once ahead of the next prompt, shown (and removable) in the composer; see ContextNotes. */
  setContextNote(key: string, label: string, blocks: readonly acp.ContentBlock[] | undefined, onRemove?: () => void): void {
    this.notes.set(key, label, blocks, onRemove);
  }

  removeContextNote(key: string): void {
    this.notes.remove(key);
  }

  get contextNotes(): readonly ContextNoteSummary[] {
    return this.notes.list;
  }

  /** A status line under the composer (restarts, restores); undefined clears it. */
  showStatus(status: string | undefined): void {
    if (this.statusValue !== status) {
      this.statusValue = status;
      this.onDidChangeEmitter.fire();
    }
  }

  cancel(): Promise<boolean> {
    if (this.controller.state.phase === 'running') {
      this.endReviews('the turn was cancelled');
    }
    return this.controller.cancel();
  }

  private endReviews(reason: string): void {
    const sessionId = this.controller.sessionId;
    if (sessionId !== undefined) {
      this.options.endReviews?.(sessionId, reason);
    }
  }

  /** The user answered a permission request; an "always" answer is remembered as client rules ({@link ChatPermissions.choose}). */
  choosePermission(requestId: string, optionId: string, answeredBy = 'user', rememberPrefix?: number): boolean {
    return this.permissions.choose(this.controller, requestId, optionId, answeredBy, rememberPrefix);
  }

  /**
   * Opens an existing agent session in this chat (history list) as the chat's start: a reveal meanwhile
   * waits for it, never races it with a `session/new` whose subscription makes the replay live.
   */
  open(sessionId: string): Promise<boolean> {
    this.usedValue = true;
    this.startAttempted = true;
    return this.claimStart(() => this.openNow(sessionId));
  }

  private async openNow(sessionId: string): Promise<boolean> {
    const client = await this.connect();
    if (client === undefined || !(await this.restore(client, sessionId))) {
      return false;
    }
    const state = this.controller.state;
    const held = heldAfterLoad(state.entries, state.quirks);
    if (held !== undefined) {
      this.controller.dispatch({ type: 'promptHeld', held });
    }
    return true;
  }

  dispose(): void {
    this.deadlines.dispose();
    this.endReviews('the session was closed');
    this.controller.dispose();
    this.exitWatch.dispose();
    this.disposables.dispose();
    this.onDidChangeEmitter.dispose();
  }

  private async start(): Promise<boolean> {
    try {
      return await this.startNow();
    } finally {
      if (this.restartingValue) {
        this.restartingValue = false;
        this.onDidChangeEmitter.fire();
      }
    }
  }

  private async startNow(): Promise<boolean> {
    this.startAttempted = true;
    const client = await this.connect();
    if (client === undefined) {
      return false;
    }
    const previous = this.controller.state.sessionId;
    if (previous !== undefined) {
      return this.restore(client, previous);
    }
    const started = await this.steps.run(this.options.t('Starting a session with {0}…', this.agentName), () => this.controller.start(this.startOptions));
    if ('error' in started) {
      return this.startFailed(started.error, () => this.start());
    }
    this.signIn.reset();
    return true;
  }

  private async connect(): Promise<HostConnection | undefined> {
    const o = this.options;
    const ctx = { host: this.hostValue, controller: this.controller, consent: o.consent, agentName: this.agentName, t: o.t, cwd: o.cwd, quirks: o.quirks, setup: o.setup };
    if (!(await mayConnect(ctx))) {
      return undefined;
    }
    const connected = await this.steps.run(o.t('Starting {0}…', this.agentName), () => connectAgent(ctx));
    if ('error' in connected) {
      await this.startFailed(connected.error);
      return undefined;
    }
    this.mcpViewValue = connected.value.mcpView;
    return connected.value.client;
  }

  /** A start failed: the sign-in card when the agent asks to sign in (`retry` repeats the call), else the start-error notice. */
  private async startFailed(error: unknown, retry?: () => Promise<boolean>): Promise<boolean> {
    const handled = retry !== undefined ? await this.signIn.handle(error, retry) : undefined;
    if (handled === undefined) {
      this.showStartError(error);
    }
    return handled ?? false;
  }

  /** `session/load` (or `session/resume`) into this chat; history already shown is not repeated. */
  private async restore(client: HostConnection, sessionId: string): Promise<boolean> {
    const context = { controller: this.controller, agentName: this.agentName, t: this.options.t, signIn: this.signIn };
    const restored = await restoreSession({ ...context, setStatus: (status) => this.showStatus(status), retry: () => this.openNow(sessionId) }, client, sessionId);
    if (restored.readOnly !== undefined && restored.readOnly !== this.readOnlyValue) {
      this.readOnlyValue = restored.readOnly;
      this.onDidChangeEmitter.fire();
    }
    return restored.ok;
  }

  private showStartError(e: unknown): void {
    if (ModelMismatchError.is(e)) {
      return; // the controller's notice already offers the suggestions
    }
    const n = describeStartError(e, this.hostValue.definition, this.options.settingsScope?.(), this.options.t, this.hostValue.stderrTail());
    this.controller.addNotice('error', n.title, n.detail, n.actions, undefined, n.log);
  }
}
