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
    demo: chat.host.definition.demo === true,
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
