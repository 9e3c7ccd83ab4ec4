import { WorktreeSessions } from './chat/worktreeSessions';
import { attachToSession } from './chat/attachSession';
import { continueWithAnotherAgent } from './chat/handoffCommand';
import * as vscode from 'vscode';
import { toMarkdown } from '../session/transcript';
import { ChatPanel } from './chat/chatPanel';
import type { ChatManager } from './chat/chatManager';
import { ChatSession } from '../app/chatSession';
import type { ChatViewProvider } from './chat/chatViewProvider';
import { CommandId, type CommandIdValue } from './commandIds';
import type { Configuration } from './configuration';
import { agentSettingsScope, setUpAgent } from './setup/agentSetup';
import { checkInstallation, runTerminalSetup } from './setup/installation';
import type { TrafficChannel } from './trafficChannel';
import type { RegisterCommand } from './commandRegistry';

export interface CommandDeps {
  readonly extensionUri: vscode.Uri;
  readonly manager: ChatManager;
  readonly chatView: ChatViewProvider;
  readonly config: Configuration;
  readonly traffic: TrafficChannel;
  readonly register: RegisterCommand;
}

/** The chat a command applies to: the focused editor-tab chat, else the sidebar chat. */
export function activeChat(manager: ChatManager): ChatSession {
  return ChatPanel.all.find((p) => p.panel.active)?.chat ?? manager.sidebar;
}

export function registerCommands(deps: CommandDeps): vscode.Disposable[] {
  const { manager, config, traffic } = deps;
  const log = (m: string): void => traffic.channel.info(m);
  const openPanel = (chat: ChatSession): void => void ChatPanel.create(deps.extensionUri, manager, log, chat);
  const worktrees = new WorktreeSessions(manager, openPanel, (id) => config.agents().agents.find((a) => a.id === id));
  const handlers: Record<CommandIdValue, (...args: unknown[]) => unknown> = {
    [CommandId.openChat]: () => deps.chatView.reveal(),
    [CommandId.newSession]: async () => {
      await manager.newSidebarSession();
      await deps.chatView.reveal();
    },
    [CommandId.openChatInEditor]: () => ChatPanel.create(deps.extensionUri, manager, log),
    [CommandId.newSessionInWorktree]: () => worktrees.newSession(),
    [CommandId.worktreeSessions]: () => worktrees.manage(),
    [CommandId.cancelTurn]: () => activeChat(manager).cancel(),
    [CommandId.showTraffic]: () => traffic.show(manager.allHosts.map((h) => ({ name: h.definition.name, log: h.log }))),
    [CommandId.checkInstallation]: async () => {
      const def = activeChat(manager).host.definition;
      // `--check` / `--version` run the agent's command: in an untrusted workspace only with consent.
      return (await manager.allowAgent(def)) ? checkInstallation(def, manager.workspaceRoot, traffic.channel) : [];
    },
    [CommandId.setupProvider]: () => setupProvider(manager),
    [CommandId.setupAgent]: async (agentId) => {
      const current = activeChat(manager).host.definition;
      const def = (typeof agentId === 'string' ? config.agents().agents.find((a) => a.id === agentId) : undefined) ?? current;
      const saved = await setUpAgent(config, def);
      if (saved !== undefined) {
        await manager.newSidebarSession(saved);
        await deps.chatView.reveal();
      }
    },
    [CommandId.restartAgent]: () => manager.restartAgent(activeChat(manager).host),
    [CommandId.selectAgent]: () => selectAgent(manager, config, deps.chatView),
    [CommandId.forkSession]: () => manager.forkAndOpen(activeChat(manager)),
    [CommandId.continueWithAgent]: () => continueWithAnotherAgent(manager, config, activeChat(manager), openPanel),
    [CommandId.revealChat]: (chat) => revealChat(manager, deps.chatView, chat instanceof ChatSession ? chat : undefined),
    [CommandId.showHistory]: () => showHistory(manager, deps.chatView),
    [CommandId.attachSession]: () => attachToSession(manager, config, deps.chatView),
    [CommandId.sendSelection]: () => sendSelection(manager, deps.chatView),
    [CommandId.allowProposal]: (uri) => manager.reviewer.answer(uri instanceof vscode.Uri ? uri : undefined, true),
    [CommandId.rejectProposal]: (uri) => manager.reviewer.answer(uri instanceof vscode.Uri ? uri : undefined, false),
    [CommandId.copyTranscript]: async () => {
      await vscode.env.clipboard.writeText(toMarkdown(activeChat(manager).controller.state, { timings: true }));
      void vscode.window.showInformationMessage(vscode.l10n.t('Transcript copied.'));
    },
  };
  return [...Object.entries(handlers).map(([id, fn]) => deps.register(id, fn)), worktrees];
}

/**
 * Runs the agent's `terminal` auth method (Hermes: `hermes acp --setup`) in a terminal, then
 * reconnects: the agent restarts and chats that could not start try again.
 */
async function setupProvider(manager: ChatManager): Promise<void> {
  const chat = activeChat(manager);
  const host = chat.host;
  // Starts the agent and runs its setup command: in an untrusted workspace only with consent.
  if (host.state.kind !== 'ready' && !(await manager.allowAgent(host.definition))) {
    return;
  }
  let info = host.state.kind === 'ready' ? host.state.info : undefined;
  if (info === undefined) {
    try {
      info = (await host.start()).agent;
    } catch {
      // Not startable (e.g. missing binary): fall back to the preset's known setup arguments.
    }
  }
  const method = info?.authMethods?.find((m) => 'type' in m && m.type === 'terminal');
  const def = host.definition;
  let args: readonly string[] | undefined;
  let env: Record<string, string> = {};
  if (method !== undefined && 'type' in method && method.type === 'terminal') {
    args = method.args ?? [];
    env = method.env ?? {};
  } else if (def.id === 'hermes' || def.command === 'hermes') {
    args = ['--setup'];
  }
  if (args === undefined) {
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} offers no terminal setup. See its documentation for how to configure a provider.', def.name));
    return;
  }
  const code = await runTerminalSetup(def, args, env, manager.workspaceRoot);
  if (code === 0) {
    await manager.restartAgent(host);
  } else if (code !== undefined) {
    void vscode.window.showWarningMessage(vscode.l10n.t('{0} setup exited with code {1}.', def.name, code));
  }
}

async function selectAgent(manager: ChatManager, config: Configuration, view: ChatViewProvider): Promise<void> {
  const { agents, problems } = config.agents();
  for (const p of problems) {
    void vscode.window.showWarningMessage(p);
  }
  const pick = await vscode.window.showQuickPick(
    agents.map((a) => ({
      label: a.name,
      description: [a.command, ...a.args].join(' '),
      ...(a.demo === true ? { detail: vscode.l10n.t('Built-in scripted demo agent') } : {}),
      agent: a,
    })),
    {
      title: vscode.l10n.t('Chat with which agent?'),
      placeHolder:
        agentSettingsScope().kind === 'remote'
          ? vscode.l10n.t('Agents come from "hermes.agents" in the Remote settings of this machine')
          : vscode.l10n.t('Agents come from the "hermes.agents" user setting'),
    },
  );
  if (pick !== undefined) {
    await manager.newSidebarSession(pick.agent);
    await view.reveal();
  }
}

/** The sessions list: the agent's `session/list` merged with this workspace's; opens with load/resume. */
async function showHistory(manager: ChatManager, view: ChatViewProvider): Promise<void> {
  const def = activeChat(manager).host.definition;
  const pick = vscode.window.createQuickPick<vscode.QuickPickItem & { sessionId: string }>();
  pick.title = vscode.l10n.t('{0} sessions', def.name);
  pick.placeholder = vscode.l10n.t('Open a session (replayed from the agent)');
  pick.busy = true;
  pick.show();
  const { sessions, listed } = await manager.listSessions(def);
  pick.busy = false;
  pick.items = sessions.map((s) => ({
    label: s.title,
    description: s.updatedAt !== '' ? new Date(s.updatedAt).toLocaleString() : undefined,
    detail: s.sessionId,
    sessionId: s.sessionId,
  })).map(({ description, ...rest }) => (description !== undefined ? { ...rest, description } : rest));
  if (!listed) {
    pick.placeholder = vscode.l10n.t('{0} does not list sessions; showing the ones this workspace opened', def.name);
  }
  const chosen = await new Promise<{ sessionId: string; label: string } | undefined>((resolve) => {
    pick.onDidAccept(() => resolve(pick.selectedItems[0]));
    pick.onDidHide(() => resolve(undefined));
  });
  pick.dispose();
  if (chosen !== undefined) {
    await view.reveal();
    await manager.openSession(chosen.sessionId, def, chosen.label);
  }
}

/** "Send Selection to Hermes": the file and line range become a context chip in the chat's composer. */
async function sendSelection(manager: ChatManager, view: ChatViewProvider): Promise<void> {
  const editor = vscode.window.activeTextEditor;
  if (editor?.document.uri.scheme !== 'file') {
    return;
  }
  const sel = editor.selection;
  const startLine = sel.start.line + 1;
  const endLine = sel.end.character === 0 && sel.end.line > sel.start.line ? sel.end.line : sel.end.line + 1;
  const rel = vscode.workspace.asRelativePath(editor.document.uri, false);
  await view.reveal();
  view.webviewChannel?.post({
    type: 'composer/attach',
    attachment: {
      path: editor.document.uri.fsPath,
      label: sel.isEmpty ? rel : `${rel}:${startLine}-${endLine}`,
      ...(sel.isEmpty ? {} : { startLine, endLine }),
    },
  });
  void manager;
}

/**
 * Shows a chat (a handed-off chat's "Open the original chat"): its editor tab, or the side bar; a
 * chat already closed reopens from the agent's history when it had a session.
 */
async function revealChat(manager: ChatManager, view: ChatViewProvider, origin: ChatSession | undefined): Promise<void> {
  const panel = ChatPanel.all.find((p) => p.chat === origin);
  if (panel !== undefined) {
    panel.panel.reveal();
  } else if (origin !== undefined && origin === manager.sidebarIfAny && manager.allChats.includes(origin)) {
    await view.reveal();
  } else if (origin?.sessionId !== undefined) {
    await view.reveal();
    await manager.openSession(origin.sessionId, origin.host.definition, origin.controller.state.title);
  } else {
    void vscode.window.showInformationMessage(vscode.l10n.t('The original chat was closed before it had a session.'));
  }
}
