import * as vscode from 'vscode';
import type { ChatSession } from '../../app/chatSession';
import type { PendingPermission } from '../../session/sessionController';
import { notificationLabel } from '../../util/displayText';

/**
 * Permission requests nobody sees become notifications (with every option), once per request:
 * the chat is hidden or the window has no focus. Hermes denies after 60 s, so a request must not
 * wait unseen. Dismissing the notification answers nothing.
 */
export class PermissionNotifications {
  /** Requests raised as a notification: chat id + NUL + request id. */
  private readonly notified = new Set<string>();
  private isVisible: (chat: ChatSession) => boolean = () => false;

  constructor(private readonly chats: () => Iterable<ChatSession>) {}

  /** How the surface tells whether a chat is on screen. */
  setVisibilityProbe(probe: (chat: ChatSession) => boolean): void {
    this.isVisible = probe;
  }

  /**
   * A chat went off screen, or the window lost focus: every permission request still waiting in
   * a chat nobody sees is raised as a notification (once per request). A request that arrived
   * while its chat was on screen would otherwise be missed once the user looked elsewhere.
   */
  surfaceHidden(): void {
    for (const chat of this.chats()) {
      for (const p of chat.controller.pendingPermissions) {
        void this.notify(chat, p);
      }
    }
  }

  async notify(chat: ChatSession, p: PendingPermission): Promise<void> {
    const key = `${chat.id}\u0000${p.requestId}`;
    if ((this.isVisible(chat) && vscode.window.state.focused) || this.notified.has(key)) {
      return;
    }
    // Forget requests that were answered since (the set stays as small as what waits).
    for (const k of this.notified) {
      const [chatId, requestId] = k.split('\u0000');
      const owner = [...this.chats()].find((c) => c.id === chatId);
      if (owner?.controller.pendingPermissions.some((q) => q.requestId === requestId) !== true) {
        this.notified.delete(k);
      }
    }
    this.notified.add(key);
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
}
