import * as vscode from 'vscode';
import type { ChatManager } from './chatManager';
import type { Entry } from '../../session/sessionState';
import type { ChatSession } from '../../app/chatSession';
import { chatWebviewHtml, chatWebviewOptions, webviewLike } from './chatWebview';
import { showsTerminal, WebviewChannel } from './webviewChannel';
import { displayLabel } from '../../util/displayText';

export const chatPanelViewType = 'hermes.chatPanel';

/** A chat in an editor tab, for a second session side by side with the sidebar one. */
export class ChatPanel implements vscode.Disposable {
  private static readonly open = new Set<ChatPanel>();
  private readonly channel: WebviewChannel;

  private constructor(
    readonly panel: vscode.WebviewPanel,
    readonly chat: ChatSession,
    manager: ChatManager,
    log: (message: string) => void,
    extensionUri: vscode.Uri,
  ) {
    ChatPanel.open.add(this);
    this.channel = new WebviewChannel(webviewLike(panel.webview), {
      context: (c) => manager.viewContext(c),
      onMessage: (message, c, reply) => manager.handleWebviewMessage(message, c, reply),
      log,
    });
    this.channel.bind(chat);
    const terminalSub = manager.terminals.onDidChange((id) => this.channel.refreshEntries(showsTerminal(id)));
    // The tab says at a glance whether this chat is busy, waiting for an answer, or idle.
    const icons = {
      idle: vscode.Uri.joinPath(extensionUri, 'media', 'hermes.svg'),
      busy: vscode.Uri.joinPath(extensionUri, 'media', 'state-busy.svg'),
      waiting: vscode.Uri.joinPath(extensionUri, 'media', 'state-waiting.svg'),
    };
    const update = (): void => {
      const state = chat.controller.state;
      const waiting = chat.controller.pendingPermissions.length > 0;
      const busy = state.phase === 'running' || state.phase === 'cancelling' || state.phase === 'starting';
      const agent = chat.host.definition.demo === true ? `${chat.agentName} (demo)` : chat.agentName;
      // Two worktree sessions side by side are told apart by their branch.
      const name = chat.worktree !== undefined ? `${agent} · ${chat.worktree.branch}` : agent;
      // The session title is the agent's: on one line, invisible characters visible.
      const title = state.title !== undefined ? `${name}: ${displayLabel(state.title, 120)}` : name;
      panel.title = waiting ? `${title} — ${vscode.l10n.t('needs permission')}` : busy ? `${title} — ${vscode.l10n.t('working')}` : title;
      panel.iconPath = waiting ? icons.waiting : busy ? icons.busy : icons.idle;
    };
    update();
    const titleSub = chat.onDidChange(update);
    this.channel.setActive(panel.active);
    manager.setActiveChat(chat);
    let shown = panel.visible;
    panel.onDidChangeViewState(() => {
      // The tab the user looks at goes first; chats beside it wait a little longer for their text.
      this.channel.setActive(panel.active);
      if (panel.active) {
        manager.setActiveChat(chat);
      }
      // Only a chat shown again may have missed messages. Clicking between chats side by side
      // changes which is active, not what they were sent: a snapshot of both there re-rendered two
      // transcripts per click (in P9, two 80 KB replies mid-stream while the user typed).
      if (panel.visible) {
        if (shown) {
          this.channel.resumeIfStalled();
        } else {
          this.channel.resync();
        }
      } else {
        manager.surfaceHidden();
      }
      shown = panel.visible;
    });
    panel.onDidDispose(() => {
      titleSub.dispose();
      terminalSub.dispose();
      this.channel.dispose();
      ChatPanel.open.delete(this);
      void manager.closeChat(chat);
    });
  }

  /** A new editor-tab chat: a new session, or an existing chat (a fork, a session from history). */
  static create(extensionUri: vscode.Uri, manager: ChatManager, log: (message: string) => void, existing?: ChatSession): ChatPanel {
    const panel = vscode.window.createWebviewPanel(chatPanelViewType, 'Hermes', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
      ...chatWebviewOptions(extensionUri),
      retainContextWhenHidden: false,
    });
    panel.webview.html = chatWebviewHtml(panel.webview, extensionUri);
    const chat = existing ?? manager.createChat();
    const created = new ChatPanel(panel, chat, manager, log, extensionUri);
    chat.autoStart();
    return created;
  }

  /** Re-sends entries whose view depends on something outside the session state. */
  refreshEntries(predicate: (entry: Entry) => boolean): void {
    this.channel.refreshEntries(predicate);
  }

  /** Inserts text into this chat's composer (fork from here puts the message back for editing). */
  insertIntoComposer(text: string): void {
    this.channel.post({ type: 'composer/insert', text });
  }

  static get all(): readonly ChatPanel[] {
    return [...ChatPanel.open];
  }

  dispose(): void {
    this.panel.dispose();
  }
}
