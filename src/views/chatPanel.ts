import * as vscode from 'vscode';
import type { ChatManager } from './chatManager';
import type { ChatSession } from './chatSession';
import { chatWebviewHtml, chatWebviewOptions, webviewLike } from './chatWebview';
import { WebviewChannel } from './webviewChannel';

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
  ) {
    ChatPanel.open.add(this);
    this.channel = new WebviewChannel(webviewLike(panel.webview), {
      context: (c) => manager.viewContext(c),
      onMessage: (message, c) => manager.handleWebviewMessage(message, c),
      log,
    });
    this.channel.bind(chat);
    const titleSub = chat.onDidChange(() => {
      const title = chat.controller.state.title;
      panel.title = title !== undefined ? `${chat.agentName}: ${title}` : chat.agentName;
    });
    panel.onDidChangeViewState(() => {
      if (panel.visible) {
        this.channel.resync();
      }
    });
    panel.onDidDispose(() => {
      titleSub.dispose();
      this.channel.dispose();
      ChatPanel.open.delete(this);
      void manager.closeChat(chat);
    });
  }

  static create(extensionUri: vscode.Uri, manager: ChatManager, log: (message: string) => void): ChatPanel {
    const panel = vscode.window.createWebviewPanel(chatPanelViewType, 'Hermes', { viewColumn: vscode.ViewColumn.Beside, preserveFocus: false }, {
      ...chatWebviewOptions(extensionUri),
      retainContextWhenHidden: false,
    });
    panel.webview.html = chatWebviewHtml(panel.webview, extensionUri);
    const chat = manager.createChat();
    const created = new ChatPanel(panel, chat, manager, log);
    chat.autoStart();
    return created;
  }

  static get all(): readonly ChatPanel[] {
    return [...ChatPanel.open];
  }

  dispose(): void {
    this.panel.dispose();
  }
}
