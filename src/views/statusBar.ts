import * as vscode from 'vscode';
import type { ChatSession } from '../app/chatSession';
import type { ChatManager } from './chat/chatManager';
import { CommandId, ContextKey } from './commandIds';

/** One status item summarizing every agent and chat; clicking it opens the chat. */
export class StatusBar implements vscode.Disposable {
  private readonly item: vscode.StatusBarItem;
  private readonly sub: { dispose(): void };

  constructor(private readonly manager: ChatManager) {
    this.item = vscode.window.createStatusBarItem('hermes.status', vscode.StatusBarAlignment.Left, 100);
    this.item.name = 'Hermes';
    this.item.command = CommandId.openChat;
    this.sub = manager.onDidChange(() => this.update());
    this.update();
    this.item.show();
  }

  /**
   * The state of the active chat's agent (the chat in the focused editor tab, else the side bar's):
   * what the item names and shows. A permission request in any chat overrides it, naming the agent
   * that asks. Also a context key, and read by tests.
   */
  get state(): 'notStarted' | 'starting' | 'ready' | 'busy' | 'waitingForPermission' | 'error' {
    return this.summary().state;
  }

  private summary(): { state: StatusBar['state']; chat: ChatSession | undefined } {
    const asking = this.manager.allChats.find((c) => c.controller.pendingPermissions.length > 0);
    if (asking !== undefined) {
      return { state: 'waitingForPermission', chat: asking };
    }
    const chat = this.manager.activeChat;
    if (chat === undefined) {
      return { state: 'notStarted', chat };
    }
    const phase = chat.controller.state.phase;
    if (phase === 'running' || phase === 'cancelling') {
      return { state: 'busy', chat };
    }
    const host = chat.host.state;
    switch (host.kind) {
      case 'starting':
        return { state: 'starting', chat };
      case 'failed':
        return { state: 'error', chat };
      case 'exited':
        return { state: host.error.expected ? 'notStarted' : 'error', chat };
      case 'ready':
        return { state: 'ready', chat };
      case 'notStarted':
        return { state: 'notStarted', chat };
    }
  }

  /** What the item says (tests). */
  get text(): string {
    return this.item.text;
  }

  dispose(): void {
    this.sub.dispose();
    this.item.dispose();
  }

  private update(): void {
    const { state, chat } = this.summary();
    const name = chat?.agentName ?? 'Hermes';
    // Turns running in other chats, for the tooltip (the item follows the active chat).
    const running = this.manager.allChats.filter((c) => c.controller.state.phase === 'running').length;
    const views: Record<typeof state, { icon: string; text: string; tip: string; bg?: string }> = {
      notStarted: { icon: 'comment-discussion', text: name, tip: vscode.l10n.t('{0}: not started', name) },
      starting: { icon: 'sync~spin', text: name, tip: vscode.l10n.t('{0}: starting', name) },
      ready: { icon: 'comment-discussion', text: name, tip: vscode.l10n.t('{0}: ready', name) },
      busy: { icon: 'loading~spin', text: running > 1 ? `${name} (${running})` : name, tip: vscode.l10n.t('{0}: working on {1} turn(s)', name, running) },
      waitingForPermission: {
        icon: 'bell-dot',
        text: vscode.l10n.t('{0}: permission needed', name),
        tip: vscode.l10n.t('{0} is waiting for your answer', name),
        bg: 'statusBarItem.warningBackground',
      },
      error: { icon: 'error', text: name, tip: vscode.l10n.t('{0} exited with an error — open the chat for details', name), bg: 'statusBarItem.errorBackground' },
    };
    const v = views[state];
    this.item.text = `$(${v.icon}) ${v.text}`;
    this.item.tooltip = v.tip;
    this.item.accessibilityInformation = { label: v.tip };
    this.item.backgroundColor = v.bg !== undefined ? new vscode.ThemeColor(v.bg) : undefined;
    void vscode.commands.executeCommand('setContext', ContextKey.agentState, state);
    const sidebar = this.manager.allChats;
    void vscode.commands.executeCommand(
      'setContext',
      ContextKey.turnRunning,
      sidebar.some((c) => c.controller.state.phase === 'running'),
    );
    void vscode.commands.executeCommand('setContext', ContextKey.hasSession, sidebar.some((c) => c.sessionId !== undefined));
  }
}
