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

  /**
   * What the item and the context keys were last given: VS Code posts every setter call and every
   * `setContext` to the workbench, and a streaming chat changes many times a second (each change was
   * four messages the window's thread handled, for every chat streaming). Only a change is posted.
   */
  private shown = '';
  private readonly contexts = new Map<string, string | boolean>();
  private postCount = 0;

  /** How many times the item or a context key was given a new value (tests: not once per chunk). */
  get posts(): number {
    return this.postCount;
  }

  private update(): void {
    const { state, chat } = this.summary();
    const name = chat?.agentName ?? 'Hermes';
    const v = itemView(state, name, () => this.manager.allChats.filter((c) => c.controller.state.phase === 'running').length);
    const key = JSON.stringify(v);
    if (key !== this.shown) {
      this.shown = key;
      this.postCount++;
      this.item.text = `$(${v.icon}) ${v.text}`;
      this.item.tooltip = v.tip;
      this.item.accessibilityInformation = { label: v.tip };
      this.item.backgroundColor = v.bg !== undefined ? new vscode.ThemeColor(v.bg) : undefined;
    }
    const chats = this.manager.allChats;
    this.setContext(ContextKey.agentState, state);
    this.setContext(ContextKey.turnRunning, chats.some((c) => c.controller.state.phase === 'running'));
    this.setContext(ContextKey.hasSession, chats.some((c) => c.sessionId !== undefined));
  }

  private setContext(key: string, value: string | boolean): void {
    if (this.contexts.get(key) !== value) {
      this.contexts.set(key, value);
      this.postCount++;
      void vscode.commands.executeCommand('setContext', key, value);
    }
  }
}

/** What the item shows in `state` (`running`: turns running in all chats, for the busy item's text and tooltip). */
function itemView(state: StatusBar['state'], name: string, running: () => number): { icon: string; text: string; tip: string; bg?: string } {
  switch (state) {
    case 'notStarted':
      return { icon: 'comment-discussion', text: name, tip: vscode.l10n.t('{0}: not started', name) };
    case 'starting':
      return { icon: 'sync~spin', text: name, tip: vscode.l10n.t('{0}: starting', name) };
    case 'ready':
      return { icon: 'comment-discussion', text: name, tip: vscode.l10n.t('{0}: ready', name) };
    case 'busy': {
      // Still, not `loading~spin`: the item shows for the whole of every turn, and its spin alone
      // cost software-composited VS Code (code-server, a VM without a GPU) a fifth of a core, as
      // much as eight chats streaming cost the compositor besides (bench/README, "A spinner in the
      // status bar"). The chat itself shows the turn's clock and its own spinner.
      const n = running();
      return { icon: 'pulse', text: n > 1 ? `${name} (${n})` : name, tip: vscode.l10n.t('{0}: working on {1} turn(s)', name, n) };
    }
    case 'waitingForPermission':
      return { icon: 'bell-dot', text: vscode.l10n.t('{0}: permission needed', name), tip: vscode.l10n.t('{0} is waiting for your answer', name), bg: 'statusBarItem.warningBackground' };
    case 'error':
      return { icon: 'error', text: name, tip: vscode.l10n.t('{0} exited with an error — open the chat for details', name), bg: 'statusBarItem.errorBackground' };
  }
}
