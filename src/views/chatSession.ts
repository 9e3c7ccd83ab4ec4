import type * as acp from '@agentclientprotocol/sdk';
import type { AgentHost } from '../acp/agentHost';
import type { AcpClient } from '../acp/acpConnection';
import { describeError } from '../acp/errors';
import { quirksFor } from '../session/agentQuirks';
import { detectProviderFailureText } from '../session/providerErrors';
import { SessionController, type TurnResult } from '../session/sessionController';
import { defaultQuirks } from '../session/sessionState';
import { DisposableStore, type Disposable } from '../util/disposable';
import { Emitter } from '../util/emitter';
import type { AgentToStart } from '../permissions/consentKey';
import { ChatPermissions, type ChatPermissionOptions } from './chatPermissions';
import { describeStartError } from './startErrors';

/** Asks before an agent process is started (untrusted workspaces); keyed by what would run, not its name. */
export interface SpawnConsent {
  allow(agent: AgentToStart): Promise<boolean>;
}

export interface ChatSessionOptions extends ChatPermissionOptions {
  readonly host: AgentHost;
  readonly cwd: string;
  readonly consent: SpawnConsent;
  readonly now?: () => number;
  /** Ends this session's writes waiting for review, as rejected (cancel, exit, close). */
  readonly endReviews?: (sessionId: string, reason: string) => void;
}

let chatCounter = 0;

/**
 * One conversation in the UI: a {@link SessionController} bound to an agent host, plus what the
 * surface needs around it (start-up, errors as notices, permission deadlines, restore after a
 * restart). VS Code-free apart from what it is given.
 */
export class ChatSession implements Disposable {
  readonly id = `chat-${++chatCounter}`;
  readonly controller: SessionController;
  private statusValue: string | undefined;
  private readOnlyValue = false;
  private starting: Promise<boolean> | undefined;
  /** Context for the next prompt, by key, in the order set; sent once. */
  private readonly notes = new Map<string, { label: string; blocks: acp.ContentBlock[]; onRemove?: () => void }>();
  private usedValue = false;
  private startAttempted = false;
  private entryCounter = 0;
  private readonly timers = new Map<string, NodeJS.Timeout>();
  private readonly disposables = new DisposableStore();
  private readonly onDidChangeEmitter = new Emitter<void>();
  /** The session state or the chat's own status changed. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly now: () => number;
  private readonly permissions: ChatPermissions;

  constructor(private readonly options: ChatSessionOptions) {
    this.now = options.now ?? Date.now;
    this.permissions = new ChatPermissions(options, options.host.log);
    this.controller = new SessionController({
      cwd: options.cwd,
      quirks: defaultQuirks,
      now: this.now,
      newId: () => `${this.id}-e${++this.entryCounter}`,
      permissions: this.permissions,
    });
    this.disposables.add(this.controller.onDidChange(() => this.onDidChangeEmitter.fire()));
    this.disposables.add(this.controller.onPermissionRequested((p) => this.armPermissionDeadline(p.requestId)));
    this.disposables.add(this.controller.onPermissionSettled((id) => this.clearDeadline(id)));
    this.disposables.add(
      options.host.onDidExit((exit) => {
        this.endReviews(exit.expected ? 'the agent was stopped' : 'the agent exited');
        if (!exit.expected || this.controller.state.phase === 'running' || this.controller.state.phase === 'cancelling') {
          this.controller.agentExited(exit.message, exit.stderrTail);
        } else {
          this.controller.agentExited('The agent was stopped.', '');
        }
      }),
    );
  }

  get host(): AgentHost {
    return this.options.host;
  }

  get agentName(): string {
    return this.options.host.definition.name;
  }

  get isDemo(): boolean {
    return this.options.host.definition.demo === true;
  }

  get status(): string | undefined {
    return this.statusValue;
  }

  get readOnly(): boolean {
    return this.readOnlyValue;
  }

  get sessionId(): string | undefined {
    return this.controller.sessionId;
  }

  /** A prompt was sent in this chat, or it opened an existing session: worth listing in history. */
  get used(): boolean {
    return this.usedValue;
  }

  /**
   * Starts the session when a chat is first shown; after a failure it waits for the user (a
   * prompt or an action) instead of retrying — and repeating the same notice — on every reveal.
   */
  autoStart(): void {
    if (!this.startAttempted) {
      void this.ensureStarted();
    }
  }

  /** Starts the agent and the ACP session if needed. False (with a notice shown) when it could not. */
  ensureStarted(): Promise<boolean> {
    const phase = this.controller.state.phase;
    if ((phase === 'idle' || phase === 'running' || phase === 'cancelling') && this.controller.hasConnection) {
      return Promise.resolve(true);
    }
    this.starting ??= this.start().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Sends a prompt (starting the session first if needed). */
  async submit(blocks: readonly acp.ContentBlock[]): Promise<TurnResult | undefined> {
    if (!(await this.ensureStarted())) {
      return undefined;
    }
    if (this.controller.state.phase !== 'idle') {
      return undefined;
    }
    const context = [...this.notes.values()].flatMap((n) => n.blocks);
    this.notes.clear();
    this.usedValue = true;
    const before = this.controller.state.entries.length;
    const result = await this.controller.prompt(blocks, context);
    this.endReviews('the turn ended');
    this.explainTurn(result, before);
    return result;
  }

  /**
   * Context sent (once) ahead of the next prompt — a fork's transcript, the Changes view's "the user
   * reverted these hunks" — shown above the composer, where the user can remove it before sending.
   */
  setContextNote(key: string, label: string, blocks: readonly acp.ContentBlock[] | undefined, onRemove?: () => void): void {
    if (blocks === undefined || blocks.length === 0) {
      this.notes.delete(key);
    } else {
      this.notes.set(key, { label, blocks: [...blocks], ...(onRemove !== undefined ? { onRemove } : {}) });
    }
    this.onDidChangeEmitter.fire();
  }

  /** The user removed a note in the composer. */
  removeContextNote(key: string): void {
    const note = this.notes.get(key);
    if (note !== undefined) {
      this.notes.delete(key);
      note.onRemove?.();
      this.onDidChangeEmitter.fire();
    }
  }

  get contextNotes(): readonly { readonly key: string; readonly label: string; readonly text: string }[] {
    return [...this.notes].map(([key, n]) => ({ key, label: n.label, text: n.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('\n') }));
  }

  /** A status line under the composer (restarts, restores); undefined clears it. */
  showStatus(status: string | undefined): void {
    this.setStatus(status);
  }

  /**
   * Hermes answers a prompt to a session it lost (e.g. after its state was cleared) with a bare
   * `refusal`: say so, and offer a new session, instead of leaving a silent "Refused".
   */
  private explainTurn(result: TurnResult, entriesBefore: number): void {
    if (result.kind !== 'ended') {
      return;
    }
    if (result.stopReason === 'end_turn') {
      // Hermes reports provider failures as the reply text with `end_turn`: say it was an error.
      const last = this.controller.state.entries.slice(entriesBefore).filter((e) => e.kind === 'assistant').at(-1);
      const text = last?.kind === 'assistant' ? last.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('') : '';
      const failure = detectProviderFailureText(text);
      if (failure !== undefined) {
        this.controller.addNotice(
          'warning',
          `The model provider failed${failure.httpStatus !== undefined ? ` (HTTP ${failure.httpStatus})` : ''}: that reply is an error report, not an answer.`,
          failure.transient ? 'It is usually temporary (rate limit, overload, server error); try again in a moment.' : 'Check the provider configuration (Set Up Provider).',
          failure.transient ? ['showTraffic'] : ['setupProvider', 'showTraffic'],
        );
      }
      return;
    }
    if (result.stopReason !== 'refusal') {
      return;
    }
    const turnEntries = this.controller.state.entries.slice(entriesBefore);
    if (!turnEntries.some((e) => e.kind === 'assistant' || e.kind === 'tool')) {
      this.controller.addNotice(
        'warning',
        `${this.agentName} refused the prompt without a reply: the session was probably not found on the agent.`,
        'Start a new session to continue; this transcript stays here.',
        ['newSession'],
      );
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

  /**
   * The user answered a permission request; an "always" answer is remembered as client rules
   * ({@link ChatPermissions.choose}).
   */
  choosePermission(requestId: string, optionId: string, answeredBy = 'user', rememberPrefix?: number): boolean {
    return this.permissions.choose(this.controller, requestId, optionId, answeredBy, rememberPrefix);
  }

  /** Opens an existing agent session in this chat (history list, restore after a crash). */
  async open(sessionId: string): Promise<boolean> {
    this.usedValue = true;
    const client = await this.connect();
    if (client === undefined) {
      return false;
    }
    return this.restore(client, sessionId);
  }

  dispose(): void {
    for (const t of this.timers.values()) {
      clearTimeout(t);
    }
    this.timers.clear();
    this.endReviews('the session was closed');
    this.controller.dispose();
    this.disposables.dispose();
    this.onDidChangeEmitter.dispose();
  }

  private async start(): Promise<boolean> {
    this.startAttempted = true;
    const client = await this.connect();
    if (client === undefined) {
      return false;
    }
    const previous = this.controller.state.sessionId;
    if (previous !== undefined) {
      return this.restore(client, previous);
    }
    this.setStatus(`Starting a session with ${this.agentName}…`);
    try {
      await this.controller.start();
      return true;
    } catch (e) {
      this.showStartError(e);
      return false;
    } finally {
      this.setStatus(undefined);
    }
  }

  private async connect(): Promise<AcpClient | undefined> {
    const host = this.options.host;
    if (host.state.kind !== 'ready' && !(await this.options.consent.allow(host.definition))) {
      this.controller.addNotice(
        'warning',
        `${this.agentName} was not started: this workspace is not trusted.`,
        'Agents can read and change files and run commands. Trust the workspace, or allow this agent when asked.',
      );
      return undefined;
    }
    this.setStatus(`Starting ${this.agentName}…`);
    try {
      const client = await host.start();
      this.controller.useConnection(client, quirksFor(client.agent?.agentInfo));
      return client;
    } catch (e) {
      this.showStartError(e);
      return undefined;
    } finally {
      this.setStatus(undefined);
    }
  }

  /** `session/load` (or `session/resume`) into this chat; history already shown is not repeated. */
  private async restore(client: AcpClient, sessionId: string): Promise<boolean> {
    const caps = client.agent?.agentCapabilities;
    const how = caps?.loadSession === true ? 'load' : caps?.sessionCapabilities?.resume !== undefined && caps.sessionCapabilities.resume !== null ? 'resume' : undefined;
    if (how === undefined) {
      this.readOnlyValue = true;
      this.controller.addNotice('warning', `${this.agentName} cannot reopen sessions; this conversation is read-only.`, undefined, ['newSession']);
      this.onDidChangeEmitter.fire();
      return false;
    }
    this.setStatus(`Restoring the conversation from ${this.agentName}…`);
    try {
      await this.controller.load(sessionId, how);
      this.readOnlyValue = false;
      if (!this.controller.state.entries.some((e) => e.kind === 'user' || e.kind === 'assistant')) {
        // Hermes answers a load of an unknown id with success and no history.
        this.controller.addNotice('warning', `${this.agentName} returned no history for this session; it may not exist on this agent.`, undefined, ['newSession']);
      }
      return true;
    } catch (e) {
      this.readOnlyValue = true;
      this.controller.addNotice(
        'error',
        `${this.agentName} could not restore this session; the transcript is kept read-only.`,
        describeError(e),
        ['newSession', 'showTraffic'],
      );
      return false;
    } finally {
      this.setStatus(undefined);
    }
  }

  private showStartError(e: unknown): void {
    const n = describeStartError(e, this.options.host.definition);
    this.controller.addNotice('error', n.title, n.detail, n.actions);
  }

  private setStatus(status: string | undefined): void {
    if (this.statusValue !== status) {
      this.statusValue = status;
      this.onDidChangeEmitter.fire();
    }
  }

  /** Hermes denies a permission after 60 s: show the request expired instead of leaving it clickable. */
  private armPermissionDeadline(requestId: string): void {
    const ms = this.controller.state.quirks.permissionTimeoutMs;
    if (ms === undefined) {
      return;
    }
    const timer = setTimeout(() => {
      this.timers.delete(requestId);
      this.controller.expirePermission(requestId);
    }, ms);
    this.timers.set(requestId, timer);
  }

  private clearDeadline(requestId: string): void {
    const t = this.timers.get(requestId);
    if (t !== undefined) {
      clearTimeout(t);
      this.timers.delete(requestId);
    }
  }
}
