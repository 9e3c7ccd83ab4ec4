import * as vscode from 'vscode';
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

  /** The summarized state (also a context key, and read by tests). */
  get state(): 'notStarted' | 'starting' | 'ready' | 'busy' | 'waitingForPermission' | 'error' {
    const chats = this.manager.allChats;
    if (chats.some((c) => c.controller.pendingPermissions.length > 0)) {
      return 'waitingForPermission';
    }
    if (chats.some((c) => c.controller.state.phase === 'running' || c.controller.state.phase === 'cancelling')) {
      return 'busy';
    }
    const hosts = this.manager.allHosts;
    if (hosts.some((h) => h.state.kind === 'starting')) {
      return 'starting';
    }
    if (hosts.some((h) => h.state.kind === 'failed' || (h.state.kind === 'exited' && !h.state.error.expected))) {
      return 'error';
    }
    if (hosts.some((h) => h.state.kind === 'ready')) {
      return 'ready';
    }
    return 'notStarted';
  }

  dispose(): void {
    this.sub.dispose();
    this.item.dispose();
  }

  private update(): void {
    const state = this.state;
    // Name the agent the state is about (the one asking, or working), not whichever host started first.
    const chats = this.manager.allChats;
    const about =
      state === 'waitingForPermission'
        ? chats.find((c) => c.controller.pendingPermissions.length > 0)
        : state === 'busy'
          ? chats.find((c) => c.controller.state.phase === 'running' || c.controller.state.phase === 'cancelling')
          : undefined;
    const agent = about?.host.definition ?? this.manager.allHosts[0]?.definition;
    const name = agent?.name ?? 'Hermes';
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
