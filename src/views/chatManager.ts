import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import { AgentHost, type AgentDefinition } from '../acp/agentHost';
import type { ClientPorts } from '../acp/clientPorts';
import { describeError } from '../acp/errors';
import { notificationLabel } from '../util/displayText';
import { toMarkdown } from '../session/transcript';
import type { ViewContext } from '../session/viewProjection';
import type { HostMessage, MentionView, WebviewMessage } from '../protocol/webviewProtocol';
import { Emitter } from '../util/emitter';
import { TerminalManager } from '../acp/terminals';
import { WorkspaceBoundary } from '../acp/workspaceBoundary';
import type { PendingPermission } from '../session/sessionController';
import { hostPolicyContext } from '../permissions/nodeFs';
import { parseRules } from '../permissions/rules';
import type { PermissionRule } from '../permissions/types';
import { watchPermissionSettings } from './permissionSettings';
import { promptBlocks } from './promptAttachments';
import { ChatSession, type SpawnConsent } from './chatSession';
import { DiffReviewer } from './diffReview';
import { WorkspaceFileSystem, type WriteRecord } from './workspaceFileSystem';
import { CommandId } from './commandIds';
import type { Configuration } from './configuration';
import { agentSettingsScope, openAgentSettings } from './agentSetup';
import type { TrafficChannel } from './trafficChannel';

/** A session this workspace knows of (history). */
export interface KnownSession {
  readonly sessionId: string;
  readonly agentId: string;
  readonly title: string;
  /** ISO 8601. */
  readonly updatedAt: string;
}

const knownSessionsKey = 'hermes.knownSessions';
const respawnDelaysMs = [1000, 4000, 15_000];

function firstUserText(chat: ChatSession): string | undefined {
  const user = chat.controller.state.entries.find((e) => e.kind === 'user');
  const text = user?.kind === 'user' ? user.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('').trim() : '';
  return text !== '' ? text.slice(0, 80) : undefined;
}

export interface ChatManagerOptions {
  readonly extensionUri: vscode.Uri;
  /** Stores client permission rules remembered for this workspace. */
  readonly workspaceState: vscode.Memento;
  readonly extensionVersion: string;
  readonly config: Configuration;
  readonly traffic: TrafficChannel;
  readonly consent: SpawnConsent;
}

/**
 * Owns the agent hosts (one process per configured agent, shared by all its sessions — ACP
 * multiplexes sessions) and the chats. Routes agent requests to the chat whose session they
 * name, and webview requests to the right chat.
 */
export class ChatManager implements vscode.Disposable {
  private readonly hosts = new Map<string, AgentHost>();
  private readonly chats = new Set<ChatSession>();
  private readonly onDidChangeEmitter = new Emitter<void>();
  /** Any chat or agent state changed (status bar, context keys). */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private sidebarChat: ChatSession | undefined;
  private readonly respawns = new Map<AgentHost, number[]>();
  private readonly respawnTimers = new Set<NodeJS.Timeout>();
  private disposed = false;
  readonly reviewer = new DiffReviewer();
  private readonly boundary = new WorkspaceBoundary(() => this.workspaceFolders());
  private readonly fileSystem: WorkspaceFileSystem;
  /** Terminals agents create through the client (`terminal/*`), shown live in tool cards. */
  readonly terminals = new TerminalManager({ roots: () => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath) });
  private isVisible: (chat: ChatSession) => boolean = () => false;
  private openPanel: (chat: ChatSession, draft?: string) => void = () => undefined;
  private turnChanges: (chat: ChatSession, turnId: number) => { files: number; added: number; removed: number } | undefined = () => undefined;
  private readonly workspaceRulesKey = 'hermes.permissions.workspaceRules';
  /** Permission requests raised as a notification: chat id + NUL + request id. */
  private readonly notified = new Set<string>();
  private readonly subscriptions: vscode.Disposable[] = [];
  private readonly onDidChangeSidebarChatEmitter = new Emitter<ChatSession>();
  readonly onDidChangeSidebarChat = this.onDidChangeSidebarChatEmitter.event;
  private readonly onDidWriteEmitter = new Emitter<WriteRecord>();
  /** Every write through `fs/write_text_file`, with the text before and after (the Changes view tracks them). */
  readonly onDidWrite = this.onDidWriteEmitter.event;

  constructor(private readonly options: ChatManagerOptions) {
    this.fileSystem = new WorkspaceFileSystem({
      boundary: this.boundary,
      maxReadBytes: 50 * 1024 * 1024,
      writeMode: () => options.config.writesMode(),
      review: (params, before) => this.reviewer.reviewWrite(params, before, this.chatForSession(params.sessionId)?.agentName ?? 'the agent'),
      onDidWrite: (record) => this.onDidWriteEmitter.fire(record),
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

  /**
   * A chat went off screen, or the window lost focus: every permission request still waiting in
   * a chat nobody sees is raised as a notification (once per request). A request that arrived
   * while its chat was on screen would otherwise be missed once the user looked elsewhere.
   */
  surfaceHidden(): void {
    for (const chat of this.chats) {
      for (const p of chat.controller.pendingPermissions) {
        void this.notifyPermission(chat, p);
      }
    }
  }

  /** Where the footers' "files changed" summaries come from (the Changes view). */
  setTurnChangesProbe(probe: (chat: ChatSession, turnId: number) => { files: number; added: number; removed: number } | undefined): void {
    this.turnChanges = probe;
  }

  /** How the surface opens a chat in an editor tab (forks, history). */
  setPanelOpener(opener: (chat: ChatSession, draft?: string) => void): void {
    this.openPanel = opener;
  }

  /** Forks a chat (whole, or from an earlier message) into an editor tab beside it. */
  async forkAndOpen(source: ChatSession, fromEntryId?: string): Promise<ChatSession | undefined> {
    try {
      const { chat, draft } = await this.forkChat(source, fromEntryId);
      this.openPanel(chat, draft);
      return chat;
    } catch (e) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Could not fork the session: {0}', notificationLabel(describeError(e), 500)));
      return undefined;
    }
  }

  /** How the surface tells whether a chat is on screen (permission notifications when it is not). */
  setVisibilityProbe(probe: (chat: ChatSession) => boolean): void {
    this.isVisible = probe;
  }

  get fs(): WorkspaceFileSystem {
    return this.fileSystem;
  }

  get allChats(): readonly ChatSession[] {
    return [...this.chats];
  }

  get allHosts(): readonly AgentHost[] {
    return [...this.hosts.values()];
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

  private workspaceFolders(): string[] {
    return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
  }

  get workspaceRoot(): string {
    return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
  }

  /** The agent host for a definition, created on first use. */
  hostFor(def: AgentDefinition): AgentHost {
    let host = this.hosts.get(def.id);
    if (host !== undefined && sameDefinition(host.definition, def)) {
      return host;
    }
    if (host !== undefined) {
      // The definition changed in the settings: the next start uses the new one.
      void host.dispose();
    }
    const ports: ClientPorts = {
      permission: { requestPermission: (params, signal) => this.routePermission(params, signal) },
      fs: this.fileSystem,
      terminal: this.terminals,
    };
    host = new AgentHost(def, {
      cwd: this.workspaceRoot,
      clientInfo: { name: 'hermes-acp', title: 'Hermes ACP for VS Code', version: this.options.extensionVersion },
      ports,
      capabilities: {
        // Boolean config options render as checkboxes; terminal-auth methods run in a VS Code
        // terminal (Set Up Provider); `_meta.terminal_output` asks Claude-style agents to stream
        // their own terminals (Zed's convention, rendered in tool cards).
        session: { configOptions: { boolean: {} } },
        auth: { terminal: true },
        _meta: { terminal_output: true },
      },
    });
    this.options.traffic.attach(def.name, host.log);
    host.onDidChangeState(() => this.onDidChangeEmitter.fire());
    const h = host;
    host.onDidExit((exit) => {
      // The agent is gone: its terminals go too (their output stays visible in the cards).
      for (const c of this.chats) {
        if (c.host === h && c.sessionId !== undefined) {
          void this.terminals.releaseSession(c.sessionId);
        }
      }
      if (!exit.expected) {
        this.scheduleRespawn(h);
      }
    });
    this.hosts.set(def.id, host);
    return host;
  }

  createChat(def: AgentDefinition = this.options.config.defaultAgent()): ChatSession {
    const chat = new ChatSession({
      host: this.hostFor(def),
      cwd: this.workspaceRoot,
      consent: this.options.consent,
      rules: () => [...this.workspaceRules(), ...this.options.config.permissionRules().rules],
      permissionContext: () => hostPolicyContext(this.workspaceRoot, this.workspaceFolders(), this.options.config.sensitivePaths().patterns),
      endReviews: (sessionId, reason) => this.reviewer.endWrites(sessionId, reason),
      rememberAlways: () => this.options.config.rememberAlways(),
      rememberForWorkspace: (rule) => void this.options.workspaceState.update(this.workspaceRulesKey, [...this.workspaceRules(), rule]),
      settingsScope: agentSettingsScope,
    });
    this.chats.add(chat);
    chat.onDidChange(() => {
      this.rememberSession(chat);
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
    // Before anyone shows the chat: a reveal auto-starts a chat nothing has started yet.
    begin?.(chat);
    this.onDidChangeSidebarChatEmitter.fire(chat);
    if (old !== undefined) {
      await this.closeChat(old);
    }
    return chat;
  }

  async closeChat(chat: ChatSession): Promise<void> {
    if (chat.controller.state.phase === 'running') {
      await chat.cancel();
    }
    if (chat.sessionId !== undefined) {
      await this.terminals.releaseSession(chat.sessionId);
    }
    chat.dispose();
    this.chats.delete(chat);
    this.onDidChangeEmitter.fire();
  }

  chatForSession(sessionId: string): ChatSession | undefined {
    for (const chat of this.chats) {
      if (chat.sessionId === sessionId) {
        return chat;
      }
    }
    return undefined;
  }

  /**
   * Workspace trust: whether `def`'s process (the agent, or a helper run of its command such as
   * `--check` or `--setup`) may start. In an untrusted workspace the user is asked (once per agent
   * per window); declining tells them why nothing happened.
   */
  async allowAgent(def: AgentDefinition): Promise<boolean> {
    if (await this.options.consent.allow(def)) {
      return true;
    }
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} was not started: this workspace is not trusted.', def.name));
    return false;
  }

  /** Restarts a chat's agent; every chat on it restores its session. */
  async restartAgent(host: AgentHost): Promise<void> {
    if (host.state.kind !== 'ready' && !(await this.allowAgent(host.definition))) {
      return;
    }
    // Nobody can answer these any more: tell the agent before it goes (stop waits for the writes).
    for (const c of this.chats) {
      if (c.host === host) {
        c.controller.cancelPendingPermissions('agent restarted');
        c.noteRestart();
        if (c.sessionId !== undefined) {
          this.reviewer.endWrites(c.sessionId, 'the agent was restarted');
        }
      }
    }
    try {
      await host.restart();
    } catch (e) {
      void vscode.window.showErrorMessage(vscode.l10n.t('{0} could not restart: {1}', host.definition.name, notificationLabel(describeError(e), 500)));
    }
    await Promise.all([...this.chats].filter((c) => c.host === host).map((c) => c.ensureStarted()));
  }

  /** The view context the projection needs for one chat. */
  viewContext(chat: ChatSession): ViewContext {
    const info = chat.host.state.kind === 'ready' ? chat.host.state.info : undefined;
    return {
      agentName: chat.agentName,
      demo: chat.isDemo,
      readOnly: chat.readOnly,
      acceptsImages: info?.agentCapabilities?.promptCapabilities?.image === true,
      pendingPermissions: chat.controller.pendingPermissions.length,
      now: Date.now(),
      relativePath: (p) => (path.isAbsolute(p) ? vscode.workspace.asRelativePath(p, false) : p),
      terminal: (id) => {
        const t = this.terminals.snapshot(id);
        return t === undefined ? undefined : { output: t.output, running: t.running, ...(t.exitCode !== undefined ? { exitCode: t.exitCode } : {}), ...(t.signal !== undefined ? { signal: t.signal } : {}) };
      },
      ...(chat.status !== undefined ? { status: chat.status } : {}),
      contextNotes: chat.contextNotes,
      turnChanges: (turnId) => this.turnChanges(chat, turnId),
    };
  }

  /** What a chat webview asked for. */
  handleWebviewMessage(
    message: Exclude<WebviewMessage, { type: 'webview/ready' | 'session/resync' }>,
    chat: ChatSession,
    reply: (message: HostMessage) => void = () => undefined,
  ): void {
    switch (message.type) {
      case 'prompt/submit': {
        const caps = chat.host.client?.agent?.agentCapabilities?.promptCapabilities;
        const check = async (p: string): Promise<string> => (await this.boundary.resolve(p, 'read')).realPath;
        void promptBlocks(message.text, message.attachments, { embedded: caps?.embeddedContext === true, images: caps?.image === true, check }).then(({ blocks, refused }) => {
          for (const r of refused) {
            chat.controller.addNotice('warning', vscode.l10n.t('{0} was not attached: {1}', r.label, r.reason));
          }
          return chat.submit(blocks);
        });
        return;
      }
      case 'turn/cancel':
        void chat.cancel();
        return;
      case 'permission/choose':
        chat.choosePermission(message.requestId, message.optionId, 'user', message.rememberPrefix);
        return;
      case 'location/open':
        void openLocation(message.path, message.line);
        return;
      case 'output/open':
        void this.openOutput(chat, message.entryId, message.contentIndex);
        return;
      case 'diff/open':
        void this.openDiff(chat, message.entryId, message.contentIndex, false);
        return;
      case 'notice/action':
        void this.runNoticeAction(message.action, chat);
        return;
      case 'mode/set':
        void this.guard(chat, () => chat.controller.setMode(message.modeId));
        return;
      case 'model/set':
        void this.guard(chat, () => chat.controller.setModel(message.modelId));
        return;
      case 'config/set':
        void this.guard(chat, () => chat.controller.setConfigOption(message.configId, message.value));
        return;
      case 'transcript/copy':
        void vscode.env.clipboard.writeText(toMarkdown(chat.controller.state, { timings: true }));
        return;
      case 'fork/fromHere':
        void this.forkAndOpen(chat, message.entryId);
        return;
      case 'composer/removeNote':
        chat.removeContextNote(message.key);
        return;
      case 'turn/restore':
        void vscode.commands.executeCommand('hermes.restoreTurn', chat.id, message.turnId);
        return;
      case 'turn/rewind':
        void vscode.commands.executeCommand('hermes.rewindTurn', chat.id, message.turnId);
        return;
      case 'request/call':
        void searchWorkspaceFiles(message.call.params.query).then(
          (value) => reply({ type: 'request/result', id: message.id, ok: true, value }),
          (e: unknown) => reply({ type: 'request/result', id: message.id, ok: false, error: describeError(e) }),
        );
        return;
    }
  }

  async runNoticeAction(action: string, chat: ChatSession): Promise<void> {
    switch (action) {
      case 'showTraffic':
        await vscode.commands.executeCommand(CommandId.showTraffic);
        return;
      case 'restartAgent':
        await this.restartAgent(chat.host);
        return;
      case 'setupProvider':
        await vscode.commands.executeCommand(CommandId.setupProvider);
        return;
      case 'newSession':
        await vscode.commands.executeCommand(CommandId.newSession);
        return;
      case 'checkInstallation':
        await vscode.commands.executeCommand(CommandId.checkInstallation);
        return;
      case 'openSettings':
      case 'openRemoteSettings':
        await openAgentSettings(action === 'openRemoteSettings' ? 'remote' : 'user');
        return;
      case 'setupAgent':
        await vscode.commands.executeCommand(CommandId.setupAgent, chat.host.definition.id);
        return;
      case 'useDemoAgent': {
        const demo = this.options.config.agents().agents.find((a) => a.demo === true);
        if (demo !== undefined) {
          await this.newSidebarSession(demo);
        }
        return;
      }
    }
  }

  async dispose(): Promise<void> {
    this.disposed = true;
    for (const sub of this.subscriptions.splice(0)) {
      sub.dispose();
    }
    for (const t of this.respawnTimers) {
      clearTimeout(t);
    }
    this.reviewer.dispose();
    await this.terminals.dispose();
    for (const chat of this.chats) {
      chat.dispose();
    }
    this.chats.clear();
    await Promise.all([...this.hosts.values()].map((h) => h.dispose()));
    this.hosts.clear();
    this.onDidChangeEmitter.dispose();
    this.onDidChangeSidebarChatEmitter.dispose();
    this.onDidWriteEmitter.dispose();
  }

  /**
   * Crash recovery: when an agent exits unexpectedly while chats use it, restart it with backoff
   * (1 s, 4 s, 15 s; at most 3 times in 5 minutes) and restore each chat's session with
   * `session/load` into the same chat. Past that, the notices' "Restart Agent" action remains.
   */
  private scheduleRespawn(host: AgentHost): void {
    const chats = [...this.chats].filter((c) => c.host === host && c.sessionId !== undefined);
    if (chats.length === 0 || this.disposed) {
      return;
    }
    const now = Date.now();
    const recent = (this.respawns.get(host) ?? []).filter((t) => now - t < 5 * 60_000);
    if (recent.length >= respawnDelaysMs.length) {
      for (const c of chats) {
        c.showStatus(vscode.l10n.t('{0} keeps exiting; use Restart Agent when it is fixed.', host.definition.name));
      }
      return;
    }
    const delay = respawnDelaysMs[recent.length] ?? 15_000;
    this.respawns.set(host, [...recent, now]);
    for (const c of chats) {
      c.showStatus(vscode.l10n.t('{0} exited; restarting in {1} s…', host.definition.name, Math.round(delay / 1000)));
    }
    const timer = setTimeout(() => {
      this.respawnTimers.delete(timer);
      if (!this.disposed && host.state.kind !== 'ready' && host.state.kind !== 'starting') {
        void this.restartAgent(host);
      }
    }, delay);
    this.respawnTimers.add(timer);
  }

  /** Sessions this workspace opened (merged into the history list). */
  private rememberSession(chat: ChatSession): void {
    const sessionId = chat.sessionId;
    if (sessionId === undefined || chat.isDemo || !chat.used) {
      return;
    }
    const state = chat.controller.state;
    const list = this.options.workspaceState.get<KnownSession[]>(knownSessionsKey) ?? [];
    const existing = list.find((k) => k.sessionId === sessionId);
    const record: KnownSession = {
      sessionId,
      agentId: chat.host.definition.id,
      title: state.title ?? existing?.title ?? firstUserText(chat) ?? sessionId,
      updatedAt: new Date().toISOString(),
    };
    if (existing?.title === record.title) {
      return;
    }
    void this.options.workspaceState.update(knownSessionsKey, [record, ...list.filter((k) => k.sessionId !== sessionId)].slice(0, 200));
  }

  /**
   * Forks a chat into a new one beside it. The whole session: the agent's own `session/fork` when
   * advertised. From an earlier user message (or without native fork): a new session that shows
   * the transcript up to that message and sends it as context with the first prompt — labelled
   * "forked with transcript", since the agent has not seen it otherwise. The original is untouched.
   */
  async forkChat(source: ChatSession, fromEntryId?: string): Promise<{ chat: ChatSession; draft?: string }> {
    const entries = source.controller.state.entries;
    const index = fromEntryId !== undefined ? entries.findIndex((e) => e.id === fromEntryId) : -1;
    const fromMessage = index >= 0 ? entries[index] : undefined;
    const client = source.host.client;
    // `fork` is unstable in ACP v1, so the stable types do not know it (Hermes, Claude, opencode advertise it).
    const caps = client?.agent?.agentCapabilities?.sessionCapabilities as { fork?: unknown } | null | undefined;
    const sessionId = source.sessionId;
    const chat = this.createChat(source.host.definition);
    // Until the agent names the fork (session_info_update), it is named after its source.
    chat.showTitle(vscode.l10n.t('Fork of {0}', source.controller.state.title ?? firstUserText(source) ?? source.agentName));
    if (fromMessage === undefined && client !== undefined && sessionId !== undefined && caps?.fork !== undefined && caps.fork !== null) {
      const res = await client.forkSession({ sessionId, cwd: this.workspaceRoot, mcpServers: [] });
      chat.controller.useConnection(client, source.controller.state.quirks);
      chat.controller.dispatch({ type: 'transcriptCopied', entries });
      chat.controller.attach(res.sessionId, res);
      chat.controller.addNotice('info', vscode.l10n.t('Forked from “{0}” — both sessions continue independently.', source.controller.state.title ?? source.agentName));
      return { chat };
    }
    const prior = index >= 0 ? entries.slice(0, index) : entries;
    chat.controller.dispatch({ type: 'transcriptCopied', entries: prior });
    const transcript = toMarkdown({ ...source.controller.state, entries: prior, plan: [], commands: [] });
    chat.setContextNote('fork', vscode.l10n.t('The conversation this fork starts from'), [
      {
        type: 'text',
        text: `This session was forked from an earlier conversation. Here is that conversation up to the fork point, for context:

${transcript}
---

The new message follows.

`,
      },
    ]);
    chat.controller.addNotice(
      'info',
      vscode.l10n.t('Forked with transcript: {0} starts a new session; your next message carries the conversation above as text.', chat.agentName),
    );
    const draft = fromMessage?.kind === 'user' ? fromMessage.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('') : undefined;
    return draft !== undefined ? { chat, draft } : { chat };
  }

  /** Every session the history list can offer: the agent's `session/list` (all pages) merged with this workspace's. */
  async listSessions(def: AgentDefinition = this.options.config.defaultAgent()): Promise<{ sessions: KnownSession[]; listed: boolean }> {
    const known = (this.options.workspaceState.get<KnownSession[]>(knownSessionsKey) ?? []).filter((k) => k.agentId === def.id);
    const host = this.hostFor(def);
    let listed = false;
    const fromAgent: KnownSession[] = [];
    // Listing starts the agent: in an untrusted workspace only with consent (else the workspace's own list).
    if (host.state.kind !== 'ready' && !(await this.options.consent.allow(def))) {
      return { sessions: [...known].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1)), listed };
    }
    try {
      const client = await host.start();
      if (client.agent?.agentCapabilities?.sessionCapabilities?.list !== undefined && client.agent.agentCapabilities.sessionCapabilities.list !== null) {
        listed = true;
        let cursor: string | undefined;
        for (let page = 0; page < 20; page++) {
          const res = await client.listSessions({ cwd: this.workspaceRoot, ...(cursor !== undefined ? { cursor } : {}) });
          for (const info of res.sessions) {
            fromAgent.push({
              sessionId: info.sessionId,
              agentId: def.id,
              title: typeof info.title === 'string' && info.title !== '' ? info.title : info.sessionId,
              updatedAt: typeof info.updatedAt === 'string' ? info.updatedAt : '',
            });
          }
          cursor = typeof res.nextCursor === 'string' && res.nextCursor !== '' ? res.nextCursor : undefined;
          if (cursor === undefined) {
            break;
          }
        }
      }
    } catch (e) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Could not list sessions of {0}: {1}', def.name, notificationLabel(describeError(e), 500)));
    }
    const merged = new Map<string, KnownSession>();
    for (const k of [...known, ...fromAgent]) {
      const prev = merged.get(k.sessionId);
      merged.set(k.sessionId, prev === undefined || k.updatedAt > prev.updatedAt ? { ...prev, ...k } : prev);
    }
    const sessions = [...merged.values()].sort((a, b) => (a.updatedAt < b.updatedAt ? 1 : -1));
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
    const knownTitle = title ?? (this.options.workspaceState.get<KnownSession[]>(knownSessionsKey) ?? []).find((k) => k.sessionId === sessionId)?.title;
    if (knownTitle !== undefined && knownTitle !== sessionId) {
      chat.showTitle(knownTitle);
    }
    return chat;
  }

  /** Opens the diff of a tool card's `diff` content; Allow/Reject in its title answer the card's pending permission. */
  async openDiff(chat: ChatSession, entryId: string, contentIndex: number, preserveFocus: boolean): Promise<void> {
    const entry = chat.controller.state.entries.find((e) => e.id === entryId);
    const c = entry?.kind === 'tool' ? entry.content[contentIndex] : undefined;
    if (entry?.kind !== 'tool' || c?.type !== 'diff') {
      return;
    }
    const requestId = entry.permission?.status === 'pending' ? entry.permission.requestId : undefined;
    await this.reviewer.show(c, {
      agentName: chat.agentName,
      preserveFocus,
      ...(requestId !== undefined ? { target: { kind: 'permission' as const, chat, requestId } } : {}),
    });
  }

  /** Answers remembered for this workspace; parsed like settings (workspace state is data, not code). */
  private workspaceRules(): PermissionRule[] {
    return parseRules(this.options.workspaceState.get<unknown>(this.workspaceRulesKey) ?? []).rules;
  }

  /** A permission is waiting: open its diff (per hermes.review.openDiffs) and make sure it is seen. */
  private async onPermissionRequested(chat: ChatSession, p: PendingPermission): Promise<void> {
    const mode = this.options.config.openDiffs();
    const entry = chat.controller.state.entries.find((e) => e.kind === 'tool' && e.permission?.requestId === p.requestId);
    const diffIndex = entry?.kind === 'tool' ? entry.content.findIndex((c) => c.type === 'diff') : -1;
    if (entry !== undefined && diffIndex >= 0 && mode !== 'onClick') {
      await this.openDiff(chat, entry.id, diffIndex, mode === 'background');
    }
    await this.notifyPermission(chat, p);
  }

  private async notifyPermission(chat: ChatSession, p: PendingPermission): Promise<void> {
    const key = `${chat.id}\u0000${p.requestId}`;
    if ((this.isVisible(chat) && vscode.window.state.focused) || this.notified.has(key)) {
      return;
    }
    // Forget requests that were answered since (the set stays as small as what waits).
    for (const k of this.notified) {
      const [chatId, requestId] = k.split('\u0000');
      const owner = [...this.chats].find((c) => c.id === chatId);
      if (owner?.controller.pendingPermissions.some((q) => q.requestId === requestId) !== true) {
        this.notified.delete(k);
      }
    }
    this.notified.add(key);
    // Hidden chat or another window has focus: a notification with the same options, so the
    // request cannot be missed (Hermes denies after 60 s). Dismissing it answers nothing.
    const items = p.request.options.map((o) => ({ title: o.name, optionId: o.optionId }));
    // The title is the agent's: no link syntax (a notification would make `[x](command:…)` a
    // one-click command) and no invisible characters.
    const agentTitle = p.request.toolCall.title;
    const title = typeof agentTitle === 'string' ? notificationLabel(agentTitle) : vscode.l10n.t('a tool call');
    const choice = await vscode.window.showWarningMessage(vscode.l10n.t('{0} asks for permission: {1}', chat.agentName, title), ...items);
    if (choice !== undefined && !chat.choosePermission(p.requestId, choice.optionId, 'user (notification)')) {
      void vscode.window.showInformationMessage(vscode.l10n.t('That request was already answered or has expired.'));
    }
  }

  private routePermission(params: acp.RequestPermissionRequest, signal: AbortSignal): Promise<acp.RequestPermissionResponse> {
    const chat = this.chatForSession(params.sessionId);
    if (chat === undefined) {
      // No chat shows this session: nobody can answer, so say so rather than let the agent wait.
      return Promise.resolve({ outcome: { outcome: 'cancelled' } });
    }
    return chat.controller.requestPermission(params, signal);
  }

  private async guard(chat: ChatSession, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      chat.controller.addNotice('warning', vscode.l10n.t('{0} refused the change.', chat.agentName), describeError(e));
    }
  }

  private async openOutput(chat: ChatSession, entryId: string, contentIndex: number): Promise<void> {
    const entry = chat.controller.state.entries.find((e) => e.id === entryId);
    if (entry?.kind !== 'tool') {
      return;
    }
    const c = entry.content[contentIndex];
    let text: string | undefined;
    let language = 'markdown';
    if (c?.type === 'content' && c.content.type === 'text') {
      text = c.content.text;
    } else if (c?.type === 'diff') {
      text = c.newText;
      language = 'plaintext';
    } else {
      const term = entry.metaTerminals?.[0];
      text = term?.output;
      language = 'plaintext';
    }
    if (text === undefined) {
      return;
    }
    const doc = await vscode.workspace.openTextDocument({ content: text, language });
    await vscode.window.showTextDocument(doc, { preview: true, viewColumn: vscode.ViewColumn.Beside });
  }
}

function sameDefinition(a: AgentDefinition, b: AgentDefinition): boolean {
  return a.command === b.command && a.name === b.name && a.args.join('\0') === b.args.join('\0') && JSON.stringify(a.env) === JSON.stringify(b.env);
}

let fileIndex: { at: number; files: Promise<vscode.Uri[]> } | undefined;

/** `@` mentions: workspace files matching the query as a fuzzy subsequence, best first. */
export async function searchWorkspaceFiles(query: string): Promise<MentionView[]> {
  if (fileIndex === undefined || Date.now() - fileIndex.at > 10_000) {
    fileIndex = { at: Date.now(), files: Promise.resolve(vscode.workspace.findFiles('**/*', '{**/node_modules/**,**/.git/**}', 20_000)) };
  }
  const files = await fileIndex.files;
  const q = query.toLowerCase();
  const scored: { score: number; uri: vscode.Uri; rel: string }[] = [];
  for (const uri of files) {
    const rel = vscode.workspace.asRelativePath(uri, false);
    const score = fuzzyScore(q, rel.toLowerCase());
    if (score > 0) {
      scored.push({ score, uri, rel });
    }
  }
  scored.sort((a, b) => b.score - a.score || a.rel.length - b.rel.length);
  return scored.slice(0, 30).map(({ uri, rel }) => ({ path: uri.fsPath, label: path.basename(rel), detail: path.dirname(rel) === '.' ? '' : path.dirname(rel) }));
}

/** Subsequence match; consecutive and file-name matches score higher. 0 = no match. */
export function fuzzyScore(query: string, target: string): number {
  if (query === '') {
    return 1;
  }
  let score = 0;
  let ti = 0;
  let run = 0;
  const nameStart = target.lastIndexOf('/') + 1;
  for (const ch of query) {
    const found = target.indexOf(ch, ti);
    if (found < 0) {
      return 0;
    }
    run = found === ti ? run + 1 : 1;
    score += run * 2 + (found >= nameStart ? 3 : 0);
    ti = found + 1;
  }
  return score;
}

export async function openLocation(filePath: string, line?: number): Promise<void> {
  if (!path.isAbsolute(filePath)) {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (root === undefined) {
      return;
    }
    filePath = path.join(root, filePath);
  }
  const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
  try {
    await vscode.window.showTextDocument(vscode.Uri.file(filePath), { selection: new vscode.Range(position, position), preview: true });
  } catch (e) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Cannot open {0}: {1}', notificationLabel(filePath), notificationLabel(describeError(e), 500)));
  }
}
