import * as vscode from 'vscode';
import type * as acp from '@agentclientprotocol/sdk';
import type { AgentDefinition, AgentHost } from '../../host/agentHost';
import { AgentHosts } from '../../app/agentHosts';
import { ChatRegistry } from '../../app/chatRegistry';
import { forkChat } from '../../app/forkChat';
import { readTextIfAny } from '../../changes/diskText';
import { SessionHistory, type KnownSession } from '../../app/sessionHistory';
import { describeError } from '../../agentPort/agentErrors';
import { notificationLabel } from '../../util/displayText';
import type { ViewContext } from '../../session/viewProjection';
import { chatViewContext } from './chatViewContext';
import type { HostMessage, WebviewMessage } from '../../protocol/webviewProtocol';
import type { WorktreeLabel } from '../../app/chatSessionOptions';
import { Emitter } from '../../util/emitter';
import { TerminalManager } from '../../acp/terminals';
import { WorkspaceBoundary } from '../../acp/workspaceBoundary';
import type { PendingPermission } from '../../session/sessionController';
import { hostPolicyContext } from '../../permissions/nodeFs';
import { parseRules } from '../../permissions/rules';
import type { PermissionRule } from '../../permissions/types';
import { PermissionNotifications } from '../permissions/permissionNotifications';
import { watchPermissionSettings } from '../permissions/permissionSettings';
import { ChatSession, type SpawnConsent } from '../../app/chatSession';
import { ChatMessages } from './chatMessages';
import { openRequestedDiff, openToolDiff } from './toolDiffs';
import { DiffReviewer } from '../permissions/diffReview';
import { WorkspaceFileSystem, type WriteRecord } from '../workspaceFileSystem';
import { demoAgentQuirks, type Configuration } from '../configuration';
import { agentSettingsScope } from '../setup/agentSetup';
import type { TrafficChannel } from '../trafficChannel';
import { memorySecrets, type SecretStore, type SignInPorts } from '../../app/signIn';
import { vscodeSignInPorts } from '../setup/signInPorts';
import { inputBoxPrompt } from '../setup/mcpSetup';
import { WorkspaceSessionSetup } from '../../app/workspaceSetup';
import { sessionRoots, workspaceFolders, workspaceRoot } from './sessionFolders';

export interface ChatManagerOptions {
  readonly extensionUri: vscode.Uri;
  /** Stores client permission rules remembered for this workspace. */
  readonly workspaceState: vscode.Memento;
  readonly extensionVersion: string;
  readonly config: Configuration;
  readonly traffic: TrafficChannel;
  readonly consent: SpawnConsent;
  /** Sign-in values (env-var auth) and MCP `${input:…}` answers (`context.secrets`; kept in memory without it). */
  readonly secrets?: SecretStore;
  /** The token or key of a non-ACP agent (SecretStorage, prompted when missing). */
  readonly transportSecret?: (def: AgentDefinition) => Promise<string | undefined>;
}

/**
 * The chats of the VS Code window, wired to VS Code: builds the application layer's pieces
 * ({@link AgentHosts}, {@link ChatRegistry}, {@link SessionHistory}) with the workspace, settings and
 * trust; serves the agents' file system and terminals; keeps the sidebar's chat; raises permission
 * requests nobody sees as notifications; answers the webviews ({@link ChatMessages}).
 */
export class ChatManager implements vscode.Disposable {
  private readonly hosts: AgentHosts;
  private readonly chats = new ChatRegistry();
  private readonly onDidChangeEmitter = new Emitter<void>();
  /** Any chat or agent state changed (status bar, context keys). */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private sidebarChat: ChatSession | undefined;
  private activeChatValue: ChatSession | undefined;
  readonly reviewer = new DiffReviewer();
  private readonly messages: ChatMessages;
  private readonly history: SessionHistory;
  /** `fs/*` and terminals are bounded per session: the workspace folders, a worktree session's worktree alone. */
  private readonly boundary = new WorkspaceBoundary((sessionId) => this.rootsFor(sessionId));
  private readonly fileSystem: WorkspaceFileSystem;
  /** Terminals agents create through the client (`terminal/*`), shown live in tool cards. */
  readonly terminals = new TerminalManager({ roots: (sessionId) => this.rootsFor(sessionId) });
  private openPanel: (chat: ChatSession, draft?: string) => void = () => undefined;
  private turnChanges: (chat: ChatSession, turnId: number) => { files: number; added: number; removed: number } | undefined = () => undefined;
  private readonly workspaceRulesKey = 'hermes.permissions.workspaceRules';
  private readonly notifications = new PermissionNotifications(() => this.chats);
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly onDidChangeSidebarChatEmitter = new Emitter<ChatSession>();
  readonly onDidChangeSidebarChat = this.onDidChangeSidebarChatEmitter.event;
  private readonly signInPorts: SignInPorts;
  private readonly sessionSetup: WorkspaceSessionSetup;
  private readonly onDidWriteEmitter = new Emitter<WriteRecord>();
  /** Every write through `fs/write_text_file`, with the text before and after (the Changes view tracks them). */
  readonly onDidWrite = this.onDidWriteEmitter.event;

  constructor(private readonly options: ChatManagerOptions) {
    this.messages = new ChatMessages(this, options.config, async (p) => (await this.boundary.resolve(p, 'read')).realPath);
    this.history = new SessionHistory(options.workspaceState);
    const secrets = options.secrets ?? memorySecrets();
    this.signInPorts = vscodeSignInPorts(secrets, () => this.workspaceRoot);
    this.sessionSetup = new WorkspaceSessionSetup(inputBoxPrompt, secrets, () => vscode.workspace.getConfiguration('hermes').get<unknown>('mcpServers'), () => workspaceFolders());
    this.fileSystem = new WorkspaceFileSystem({
      boundary: this.boundary,
      maxReadBytes: 50 * 1024 * 1024,
      writeMode: () => options.config.writesMode(),
      review: (params, before) => this.reviewer.reviewWrite(params, before, this.chatForSession(params.sessionId)?.agentName ?? 'the agent'),
      onDidWrite: (record) => this.onDidWriteEmitter.fire(record),
    });
    this.hosts = new AgentHosts({
      cwd: () => this.workspaceRoot,
      clientInfo: { name: 'hermes-acp', title: 'Hermes ACP for VS Code', version: options.extensionVersion },
      ports: {
        permission: { requestPermission: (params, signal) => this.chats.routePermission(params, signal) },
        fs: this.fileSystem,
        terminal: this.terminals,
      },
      capabilities: {
        // Boolean config options render as checkboxes; terminal-auth methods run in a VS Code terminal
        // (Set Up Provider); `_meta.terminal_output`: Claude-style agents stream their terminals (Zed's convention).
        session: { configOptions: { boolean: {} } },
        auth: { terminal: true },
        _meta: { terminal_output: true },
      },
      t: vscode.l10n.t,
      chatsOn: (host) => this.chats.on(host),
      allow: (def) => this.allowAgent(def),
      report: (message) => void vscode.window.showErrorMessage(message),
      questions: this.chats.questions,
      ...(options.transportSecret !== undefined ? { transportSecret: options.transportSecret } : {}),
    });
    this.hosts.onDidCreate((host) => {
      this.options.traffic.attach(host.definition.name, host.log);
      host.onDidChangeState(() => this.onDidChangeEmitter.fire());
      host.onDidExit(() => {
        // The agent is gone: its terminals go too (their output stays visible in the cards).
        for (const c of this.chats) {
          if (c.host === host && c.sessionId !== undefined) {
            void this.terminals.releaseSession(c.sessionId);
          }
        }
      });
    });
    this.subscriptions.push(
      vscode.workspace.onDidChangeWorkspaceFolders(() => this.boundary.reset()),
      watchPermissionSettings(options.config),
      vscode.window.onDidChangeWindowState((state) => {
        if (!state.focused) {
          this.surfaceHidden();
        }
      }),
    );
  }

  /** A chat went off screen, or the window lost focus: waiting permission requests become notifications. */
  surfaceHidden(): void {
    this.notifications.surfaceHidden();
  }

  /** Where the footers' "files changed" summaries come from (the Changes view). */
  setTurnChangesProbe(probe: (chat: ChatSession, turnId: number) => { files: number; added: number; removed: number } | undefined): void {
    this.turnChanges = probe;
  }

  /** How the surface opens a chat in an editor tab (forks, history). */
  setPanelOpener(opener: (chat: ChatSession, draft?: string) => void): void {
    this.openPanel = opener;
  }

  /** Forks a chat (whole, or from a message) into a tab beside it; `send` goes as the fork's first prompt (Retry of a prompt the agent holds). */
  async forkAndOpen(source: ChatSession, fromEntryId?: string, send?: readonly acp.ContentBlock[]): Promise<ChatSession | undefined> {
    try {
      const { chat, draft } = await this.forkChat(source, fromEntryId);
      this.openPanel(chat, send === undefined ? draft : undefined);
      if (send !== undefined) {
        void chat.submit(send);
      }
      return chat;
    } catch (e) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Could not fork the session: {0}', notificationLabel(describeError(e), 500)));
      return undefined;
    }
  }

  /** How the surface tells whether a chat is on screen (permission notifications when it is not). */
  setVisibilityProbe(probe: (chat: ChatSession) => boolean): void {
    this.notifications.setVisibilityProbe(probe);
  }

  get fs(): WorkspaceFileSystem {
    return this.fileSystem;
  }

  get allChats(): readonly ChatSession[] {
    return this.chats.all;
  }

  get allHosts(): readonly AgentHost[] {
    return this.hosts.all;
  }

  /** The chat shown in the sidebar view (created on first use). */
  get sidebar(): ChatSession {
    this.sidebarChat ??= this.createChat();
    return this.sidebarChat;
  }

  /** The sidebar's chat if one exists (does not create it). */
  get sidebarIfAny(): ChatSession | undefined {
    return this.sidebarChat;
  }

  /** The chat the user looked at last (an editor tab that became active, the side bar shown, a new side bar chat). */
  get activeChat(): ChatSession | undefined {
    const chat = this.activeChatValue;
    return chat !== undefined && this.chats.all.includes(chat) ? chat : this.sidebarChat;
  }

  setActiveChat(chat: ChatSession): void {
    if (this.activeChatValue !== chat) {
      this.activeChatValue = chat;
      this.onDidChangeEmitter.fire();
    }
  }

  /** The folders a session's requests may touch: its own (a worktree), else the workspace folders. */
  rootsFor(sessionId: string | undefined): readonly string[] {
    return sessionRoots(sessionId !== undefined ? this.chatForSession(sessionId) : undefined);
  }

  get workspaceRoot(): string {
    return workspaceRoot();
  }

  /** The agent host for a definition, created on first use. */
  hostFor(def: AgentDefinition): AgentHost {
    return this.hosts.hostFor(def);
  }

  /** A new chat; `cwd`: a worktree session's folder (issue 40), then its cwd, `fs/*`, terminals and permission workspace. */
  createChat(def: AgentDefinition = this.options.config.defaultAgent(), cwd?: string, worktree?: WorktreeLabel): ChatSession {
    const folders = (): string[] => (cwd !== undefined ? [cwd] : workspaceFolders());
    const chat = new ChatSession({
      host: this.hostFor(def),
      cwd: cwd ?? this.workspaceRoot,
      ...(cwd !== undefined ? { roots: [cwd] } : {}),
      ...(worktree !== undefined ? { worktree } : {}),
      consent: this.options.consent,
      t: vscode.l10n.t,
      rules: () => [...this.workspaceRules(), ...this.options.config.permissionRules().rules],
      permissionContext: () => hostPolicyContext(cwd ?? this.workspaceRoot, folders(), this.options.config.sensitivePaths().patterns),
      endReviews: (sessionId, reason) => this.reviewer.endWrites(sessionId, reason),
      rememberAlways: () => this.options.config.rememberAlways(),
      rememberForWorkspace: (rule) => void this.options.workspaceState.update(this.workspaceRulesKey, [...this.workspaceRules(), rule]),
      settingsScope: agentSettingsScope,
      signIn: this.signInPorts,
      setup: this.sessionSetup,
      // Edits the agent leaves open (Hermes' patch/write_file) end completed when the file shows them applied.
      fileText: (p) => readTextIfAny(p),
      ...(def.demo === true ? { quirks: demoAgentQuirks } : {}),
    });
    this.chats.add(chat);
    chat.onDidChange(() => {
      this.history.remember(chat);
      this.onDidChangeEmitter.fire();
    });
    chat.controller.onPermissionRequested((p) => void this.onPermissionRequested(chat, p));
    chat.controller.onPermissionSettled(() => this.reviewer.updateContext());
    this.onDidChangeEmitter.fire();
    return chat;
  }

  /** Replaces the sidebar's chat with a new session (the old one is closed; its session stays on the agent). */
  async newSidebarSession(def?: AgentDefinition): Promise<ChatSession> {
    const chat = await this.replaceSidebarChat(def);
    chat.autoStart();
    return chat;
  }

  /** A new chat takes the side bar; the one it replaces is closed (its session stays on the agent). */
  private async replaceSidebarChat(def: AgentDefinition | undefined, begin?: (chat: ChatSession) => void): Promise<ChatSession> {
    const old = this.sidebarChat;
    const chat = this.createChat(def);
    this.sidebarChat = chat;
    this.activeChatValue = chat; // New Session, Select Agent, a registry install: now in view
    // Before anyone shows the chat: a reveal auto-starts a chat nothing has started yet.
    begin?.(chat);
    this.onDidChangeSidebarChatEmitter.fire(chat);
    if (old !== undefined) {
      await this.closeChat(old);
    }
    return chat;
  }

  async closeChat(chat: ChatSession): Promise<void> {
    await this.chats.close(chat, (sessionId) => this.terminals.releaseSession(sessionId));
    await this.hosts.release(chat.host);
    this.onDidChangeEmitter.fire();
  }

  chatForSession(sessionId: string): ChatSession | undefined {
    return this.chats.forSession(sessionId);
  }

  /** Workspace trust: may `def`'s process (the agent, or a `--check`/`--setup` run) start? Asked once per agent per window. */
  async allowAgent(def: AgentDefinition): Promise<boolean> {
    if (await this.options.consent.allow(def)) {
      return true;
    }
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} was not started: this workspace is not trusted.', def.name));
    return false;
  }

  /** Restarts a chat's agent; every chat on it restores its session. */
  restartAgent(host: AgentHost): Promise<void> {
    return this.hosts.restart(host);
  }

  /** Moves a chat to its agent's new definition, its session restored there. */
  async reconnectAgent(chat: ChatSession): Promise<void> {
    await this.hosts.reconnect(chat);
    this.onDidChangeEmitter.fire();
  }

  /** The view context the projection needs for one chat. */
  viewContext(chat: ChatSession): ViewContext {
    return chatViewContext(chat, this.terminals, (turnId) => this.turnChanges(chat, turnId));
  }

  /** What a chat webview asked for. */
  handleWebviewMessage(
    message: Exclude<WebviewMessage, { type: 'webview/ready' | 'session/resync' }>,
    chat: ChatSession,
    reply: (message: HostMessage) => void = () => undefined,
  ): void {
    this.messages.handle(message, chat, reply);
  }

  /** A notice's button (Restart Agent, Show Traffic, …). */
  runNoticeAction(action: string, chat: ChatSession): Promise<void> {
    return this.messages.runNoticeAction(action, chat);
  }

  async dispose(): Promise<void> {
    for (const sub of this.subscriptions.splice(0)) {
      sub.dispose();
    }
    this.reviewer.dispose();
    await this.terminals.dispose();
    this.chats.disposeAll();
    await this.hosts.dispose();
    this.onDidChangeEmitter.dispose();
    this.onDidChangeSidebarChatEmitter.dispose();
    this.onDidWriteEmitter.dispose();
  }

  /** Forks a chat (whole, or from an earlier message) into a new chat; see {@link forkChat}. */
  forkChat(source: ChatSession, fromEntryId?: string): Promise<{ chat: ChatSession; draft?: string }> {
    // A fork of a worktree session works in the same worktree.
    const worktree = source.roots !== undefined ? source.cwd : undefined;
    return forkChat(source, fromEntryId, (def) => this.createChat(def, worktree, source.worktree), worktree ?? this.workspaceRoot, vscode.l10n.t);
  }

  /** Every session the history list can offer: the agent's `session/list` (all pages) merged with this workspace's. */
  async listSessions(def: AgentDefinition = this.options.config.defaultAgent()): Promise<{ sessions: KnownSession[]; listed: boolean }> {
    // Listing starts the agent: in an untrusted workspace only with consent (else the workspace's own list).
    const { sessions, listed, error } = await this.history.list(def, this.hostFor(def), this.workspaceRoot, () => this.options.consent.allow(def));
    if (error !== undefined) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Could not list sessions of {0}: {1}', def.name, notificationLabel(describeError(error), 500)));
    }
    return { sessions, listed };
  }

  /** Opens a session from the history in the sidebar (load, or resume where only that exists). */
  async openSession(sessionId: string, def: AgentDefinition = this.options.config.defaultAgent(), title?: string): Promise<ChatSession> {
    const existing = this.chatForSession(sessionId);
    if (existing !== undefined) {
      return existing;
    }
    let opened = Promise.resolve(false);
    const chat = await this.replaceSidebarChat(def, (c) => {
      opened = c.open(sessionId);
    });
    await opened;
    // A load replays messages, not the title: take it from the list (or what this workspace saw).
    const knownTitle = title ?? this.history.titleOf(sessionId);
    if (knownTitle !== undefined && knownTitle !== sessionId) {
      chat.showTitle(knownTitle);
    }
    return chat;
  }

  /** Opens the diff of a tool card's `diff` content; Allow/Reject in its title answer the card's pending permission. */
  openDiff(chat: ChatSession, entryId: string, contentIndex: number, preserveFocus: boolean): Promise<void> {
    return openToolDiff(this.reviewer, chat, entryId, contentIndex, preserveFocus);
  }

  /** Answers remembered for this workspace; parsed like settings (workspace state is data, not code). */
  private workspaceRules(): PermissionRule[] {
    return parseRules(this.options.workspaceState.get<unknown>(this.workspaceRulesKey) ?? []).rules;
  }

  /** A permission is waiting: open its diff (per hermes.review.openDiffs) and make sure it is seen. */
  private async onPermissionRequested(chat: ChatSession, p: PendingPermission): Promise<void> {
    await openRequestedDiff(this.reviewer, chat, p, this.options.config.openDiffs());
    await this.notifications.notify(chat, p);
  }
}
