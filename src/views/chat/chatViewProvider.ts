import * as vscode from 'vscode';
import type { ChatManager } from './chatManager';
import { chatWebviewHtml, chatWebviewOptions, webviewLike } from './chatWebview';
import { showsTerminal, WebviewChannel } from './webviewChannel';

/** The chat in the Hermes side bar (`hermes.chatView`). */
export class ChatViewProvider implements vscode.WebviewViewProvider, vscode.Disposable {
  private view: vscode.WebviewView | undefined;
  private channel: WebviewChannel | undefined;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(
    private readonly extensionUri: vscode.Uri,
    private readonly manager: ChatManager,
    private readonly log: (message: string) => void,
  ) {
    const sub = this.manager.onDidChangeSidebarChat((chat) => this.channel?.bind(chat));
    const badge = this.manager.onDidChange(() => this.updateBadge());
    const terminals = this.manager.terminals.onDidChange((id) => this.channel?.refreshEntries(showsTerminal(id)));
    this.disposables.push({ dispose: () => sub.dispose() }, { dispose: () => badge.dispose() }, terminals);
  }

  get isVisible(): boolean {
    return this.view?.visible === true;
  }

  /** The channel of the resolved view (tests use it to observe what the webview was sent). */
  get webviewChannel(): WebviewChannel | undefined {
    return this.channel;
  }

  resolveWebviewView(view: vscode.WebviewView): void {
    this.view = view;
    view.webview.options = chatWebviewOptions(this.extensionUri);
    view.webview.html = chatWebviewHtml(view.webview, this.extensionUri);
    this.channel?.dispose();
    const channel = new WebviewChannel(webviewLike(view.webview), {
      context: (chat) => this.manager.viewContext(chat),
      onMessage: (message, chat, reply) => this.manager.handleWebviewMessage(message, chat, reply),
      log: this.log,
    });
    this.channel = channel;
    const chat = this.manager.sidebar;
    channel.bind(chat);
    this.manager.setActiveChat(chat);
    view.onDidChangeVisibility(() => {
      if (view.visible) {
        // Hidden webviews drop messages: a snapshot brings it up to date.
        channel.resync();
        this.manager.setActiveChat(this.manager.sidebar);
      } else {
        this.manager.surfaceHidden();
      }
    });
    view.onDidDispose(() => {
      channel.dispose();
      if (this.channel === channel) {
        this.channel = undefined;
        this.view = undefined;
      }
    });
    chat.autoStart();
  }

  /** A badge with the number of permission requests waiting in the sidebar chat. */
  private updateBadge(): void {
    const view = this.view;
    if (view === undefined) {
      return;
    }
    const pending = this.manager.sidebarIfAny?.controller.pendingPermissions.length ?? 0;
    const current = view.badge?.value ?? 0;
    if (current !== pending) {
      view.badge = pending > 0 ? { value: pending, tooltip: vscode.l10n.t('{0} permission request(s) waiting', pending) } : undefined;
    }
  }

  /** Reveals the view (and focuses its composer). */
  async reveal(): Promise<void> {
    await vscode.commands.executeCommand('hermes.chatView.focus');
    this.channel?.post({ type: 'composer/focus' });
  }

  dispose(): void {
    this.channel?.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}
