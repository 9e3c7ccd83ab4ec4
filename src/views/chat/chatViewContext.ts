import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChatSession } from '../../app/chatSession';
import { transportOffers } from '../../app/transportOffers';
import type { TerminalManager } from '../../acp/terminals';
import type { ViewContext } from '../../session/viewProjection';

/** What the view projection needs for one chat besides its session state. */
export function chatViewContext(chat: ChatSession, terminals: TerminalManager, turnChanges: NonNullable<ViewContext['turnChanges']>): ViewContext {
  const info = chat.host.state.kind === 'ready' ? chat.host.state.info : undefined;
  return {
    agentName: chat.agentName,
    ...badgeAndHint(chat),
    readOnly: chat.readOnly,
    acceptsImages: info?.agentCapabilities?.promptCapabilities?.image === true,
    pendingPermissions: chat.controller.pendingPermissions.length,
    now: Date.now(),
    relativePath: (p) => (path.isAbsolute(p) ? vscode.workspace.asRelativePath(p, false) : p),
    terminal: (id) => {
      const t = terminals.snapshot(id);
      return t === undefined ? undefined : { output: t.output, running: t.running, ...(t.exitCode !== undefined ? { exitCode: t.exitCode } : {}), ...(t.signal !== undefined ? { signal: t.signal } : {}) };
    },
    ...(chat.status !== undefined ? { status: chat.status } : {}),
    ...(chat.restarting ? { restarting: true } : {}),
    contextNotes: chat.contextNotes,
    ...(chat.signIn.card !== undefined ? { signIn: chat.signIn.card } : {}),
    ...(chat.mcpServers !== undefined ? { mcp: chat.mcpServers } : {}),
    turnChanges,
    ...transportOffers(chat.host.client),
  };
}

/** The header's badge (and the empty transcript's hint): a worktree session's branch, or the Demo agent. */
function badgeAndHint(chat: ChatSession): Pick<ViewContext, 'badge' | 'emptyHint'> {
  if (chat.worktree !== undefined) {
    const folder = vscode.workspace.asRelativePath(chat.worktree.path, false);
    return { badge: { kind: 'worktree', label: chat.worktree.branch, title: vscode.l10n.t('Works in the worktree {0}', folder) } };
  }
  if (chat.host.definition.demo !== true) {
    return {};
  }
  return {
    badge: { kind: 'demo', label: vscode.l10n.t('Demo'), title: vscode.l10n.t('This chat runs the built-in demo agent, not your configured agent.') },
    emptyHint: vscode.l10n.t('This is the built-in Demo agent: its replies are scripted. To chat with Hermes, install Hermes Agent, then run “Hermes: Select Agent” (or “Hermes: Set Up Agent…” when it is not on PATH).'),
  };
}
