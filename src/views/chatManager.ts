import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import { AgentHost, type AgentDefinition } from '../acp/agentHost';
import type { ClientPorts } from '../acp/clientPorts';
import { describeError } from '../acp/errors';
import { toMarkdown } from '../session/transcript';
import type { ViewContext } from '../session/viewProjection';
import type { AttachmentView, WebviewMessage } from '../protocol/webviewProtocol';
import { Emitter } from '../util/emitter';
import { WorkspaceBoundary } from '../acp/workspaceBoundary';
import type { PendingPermission } from '../session/sessionController';
import type { PermissionRule } from '../session/permissionPolicy';
import { ChatSession, type SpawnConsent } from './chatSession';
import { DiffReviewer } from './diffReview';
import { WorkspaceFileSystem } from './workspaceFileSystem';
import { CommandId } from './commandIds';
import type { Configuration } from './configuration';
import type { TrafficChannel } from './trafficChannel';

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
  readonly reviewer = new DiffReviewer();
  private readonly boundary = new WorkspaceBoundary(() => (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath));
  private readonly fileSystem: WorkspaceFileSystem;
  private isVisible: (chat: ChatSession) => boolean = () => false;
  private readonly workspaceRulesKey = 'hermes.permissions.workspaceRules';
  private readonly onDidChangeSidebarChatEmitter = new Emitter<ChatSession>();
  readonly onDidChangeSidebarChat = this.onDidChangeSidebarChatEmitter.event;

  constructor(private readonly options: ChatManagerOptions) {
    this.fileSystem = new WorkspaceFileSystem({
      boundary: this.boundary,
      maxReadBytes: 50 * 1024 * 1024,
      writeMode: () => options.config.writesMode(),
      review: (params, before) => this.reviewWrite(params, before),
    });
    vscode.workspace.onDidChangeWorkspaceFolders(() => this.boundary.reset());
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
    };
    host = new AgentHost(def, {
      cwd: this.workspaceRoot,
      clientInfo: { name: 'hermes-acp', title: 'Hermes ACP for VS Code', version: this.options.extensionVersion },
      ports,
    });
    this.options.traffic.attach(def.name, host.log);
    host.onDidChangeState(() => this.onDidChangeEmitter.fire());
    this.hosts.set(def.id, host);
    return host;
  }

  createChat(def: AgentDefinition = this.options.config.defaultAgent()): ChatSession {
    const chat = new ChatSession({
      host: this.hostFor(def),
      cwd: this.workspaceRoot,
      consent: this.options.consent,
      rules: () => [...this.workspaceRules(), ...this.options.config.permissionRules().rules],
      rememberAlways: () => this.options.config.rememberAlways(),
      rememberForWorkspace: (rule) => void this.options.workspaceState.update(this.workspaceRulesKey, [...this.workspaceRules(), rule]),
    });
    this.chats.add(chat);
    chat.onDidChange(() => this.onDidChangeEmitter.fire());
    chat.controller.onPermissionRequested((p) => void this.onPermissionRequested(chat, p));
    chat.controller.onPermissionSettled(() => this.reviewer.updateContext());
    this.onDidChangeEmitter.fire();
    return chat;
  }

  /** Replaces the sidebar's chat with a new session (the old one is closed; its session stays on the agent). */
  async newSidebarSession(def?: AgentDefinition): Promise<ChatSession> {
    const old = this.sidebarChat;
    const chat = this.createChat(def);
    this.sidebarChat = chat;
    this.onDidChangeSidebarChatEmitter.fire(chat);
    if (old !== undefined) {
      await this.closeChat(old);
    }
    chat.autoStart();
    return chat;
  }

  async closeChat(chat: ChatSession): Promise<void> {
    if (chat.controller.state.phase === 'running') {
      await chat.cancel();
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

  /** Restarts a chat's agent; every chat on it restores its session. */
  async restartAgent(host: AgentHost): Promise<void> {
    try {
      await host.restart();
    } catch (e) {
      void vscode.window.showErrorMessage(vscode.l10n.t('{0} could not restart: {1}', host.definition.name, describeError(e)));
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
      ...(chat.status !== undefined ? { status: chat.status } : {}),
    };
  }

  /** What a chat webview asked for. */
  handleWebviewMessage(message: Exclude<WebviewMessage, { type: 'webview/ready' | 'session/resync' }>, chat: ChatSession): void {
    switch (message.type) {
      case 'prompt/submit':
        void chat.submit(promptBlocks(message.text, message.attachments));
        return;
      case 'turn/cancel':
        void chat.cancel();
        return;
      case 'permission/choose':
        chat.choosePermission(message.requestId, message.optionId);
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
      case 'request/call':
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
        await vscode.commands.executeCommand('workbench.action.openSettings', 'hermes.agents');
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
    this.reviewer.dispose();
    for (const chat of this.chats) {
      chat.dispose();
    }
    this.chats.clear();
    await Promise.all([...this.hosts.values()].map((h) => h.dispose()));
    this.hosts.clear();
    this.onDidChangeEmitter.dispose();
    this.onDidChangeSidebarChatEmitter.dispose();
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

  private workspaceRules(): PermissionRule[] {
    return this.options.workspaceState.get<PermissionRule[]>(this.workspaceRulesKey) ?? [];
  }

  /** A permission is waiting: open its diff (per hermes.review.openDiffs) and make sure it is seen. */
  private async onPermissionRequested(chat: ChatSession, p: PendingPermission): Promise<void> {
    const mode = this.options.config.openDiffs();
    const entry = chat.controller.state.entries.find((e) => e.kind === 'tool' && e.permission?.requestId === p.requestId);
    const diffIndex = entry?.kind === 'tool' ? entry.content.findIndex((c) => c.type === 'diff') : -1;
    if (entry !== undefined && diffIndex >= 0 && mode !== 'onClick') {
      await this.openDiff(chat, entry.id, diffIndex, mode === 'background');
    }
    if (this.isVisible(chat) && vscode.window.state.focused) {
      return;
    }
    // Hidden chat or another window has focus: a notification with the same options, so the
    // request cannot be missed (Hermes denies after 60 s). Dismissing it answers nothing.
    const items = p.request.options.map((o) => ({ title: o.name, optionId: o.optionId }));
    const title = p.request.toolCall.title ?? vscode.l10n.t('a tool call');
    const choice = await vscode.window.showWarningMessage(vscode.l10n.t('{0} asks for permission: {1}', chat.agentName, title), ...items);
    if (choice !== undefined && !chat.choosePermission(p.requestId, choice.optionId, 'user (notification)')) {
      void vscode.window.showInformationMessage(vscode.l10n.t('That request was already answered or has expired.'));
    }
  }

  /** `hermes.review.writes: review`: the write waits for Accept/Reject in the diff editor. */
  private reviewWrite(params: acp.WriteTextFileRequest, before: string | undefined): Promise<boolean> {
    const chat = this.chatForSession(params.sessionId);
    return new Promise<boolean>((resolve) => {
      let pending = true;
      const decide = (accepted: boolean): void => {
        if (pending) {
          pending = false;
          resolve(accepted);
        }
      };
      void this.reviewer.show(
        { path: params.path, oldText: before ?? null, newText: params.content },
        { agentName: chat?.agentName ?? 'the agent', preserveFocus: false, target: { kind: 'write', decide, isPending: () => pending } },
      );
    });
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

/** The prompt: the text, plus attachments as `resource_link`s with absolute file URIs (always accepted by agents). */
export function promptBlocks(text: string, attachments: readonly AttachmentView[]): acp.ContentBlock[] {
  const blocks: acp.ContentBlock[] = [{ type: 'text', text }];
  for (const a of attachments) {
    const uri = vscode.Uri.file(a.path).toString();
    const range = a.startLine !== undefined ? `#L${a.startLine}${a.endLine !== undefined ? `-L${a.endLine}` : ''}` : '';
    blocks.push({ type: 'resource_link', uri: `${uri}${range}`, name: a.label });
  }
  return blocks;
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
    void vscode.window.showWarningMessage(vscode.l10n.t('Cannot open {0}: {1}', filePath, describeError(e)));
  }
}
