import * as vscode from 'vscode';
import { describeError } from '../../agentPort/agentErrors';
import type { ChatSession } from '../../app/chatSession';
import { handoffChat } from '../../app/handoffChat';
import type { AgentDefinition } from '../../host/agentHost';
import { notificationLabel } from '../../util/displayText';
import type { Configuration } from '../configuration';
import type { ChatManager } from './chatManager';

/**
 * "Continue with Another Agent…" (issue 40): the user picks an agent (any configured one, the
 * same agent included) and how the conversation travels — the newest turns that fit, or a summary
 * the current agent writes first — and a new editor-tab chat of that agent opens in the same cwd
 * (its worktree, or the workspace), seeded by {@link handoffChat}.
 */
export async function continueWithAnotherAgent(
  manager: ChatManager,
  config: Configuration,
  source: ChatSession,
  openPanel: (chat: ChatSession) => void,
): Promise<ChatSession | undefined> {
  if (!source.controller.state.entries.some((e) => e.kind === 'user')) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Nothing to hand over yet: this chat has no messages.'));
    return undefined;
  }
  const agent = await vscode.window.showQuickPick(
    config.agents().agents.map((a) => ({
      label: a.name,
      description: a.id === source.host.definition.id ? vscode.l10n.t('the agent of this chat (a fresh session)') : [a.command, ...a.args].join(' '),
      agent: a,
    })),
    { title: vscode.l10n.t('Continue with which agent?'), placeHolder: vscode.l10n.t('It works in {0}', source.cwd) },
  );
  if (agent === undefined) {
    return undefined;
  }
  const how = await vscode.window.showQuickPick(
    [
      { label: vscode.l10n.t('Hand over the conversation'), detail: vscode.l10n.t('The messages, replies, tool calls, changed files and plan; the oldest turns are left out if it is too long.'), summary: false },
      { label: vscode.l10n.t('Ask {0} for a summary first', source.agentName), detail: vscode.l10n.t('{0} writes a summary in this chat; only the summary is handed over.', source.agentName), summary: true },
    ],
    { title: vscode.l10n.t('Continue with {0}', agent.agent.name) },
  );
  if (how === undefined) {
    return undefined;
  }
  try {
    const { chat } = await handoffChat({
      source,
      target: agent.agent,
      summary: how.summary,
      // The new chat's tab opens at once: the user sees its agent start while the brief is prepared.
      newChat: (def, cwd) => {
        // A worktree session's folder bounds the new chat too; otherwise it has the workspace folders.
        const chat = source.roots !== undefined ? manager.createChat(def, cwd, source.worktree) : manager.createChat(def);
        openPanel(chat);
        return chat;
      },
      ...knownContext(manager, agent.agent),
      t: vscode.l10n.t,
    });
    return chat;
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not continue with {0}: {1}', agent.agent.name, notificationLabel(describeError(e), 500)));
    return undefined;
  }
}

/** The largest context window a chat of `def` has reported in this window. */
function knownContext(manager: ChatManager, def: AgentDefinition): { knownContextSize?: number } {
  const sizes = manager.allChats.filter((c) => c.host.definition.id === def.id).map((c) => c.controller.state.usage?.size ?? 0);
  const size = Math.max(0, ...sizes);
  return size > 0 ? { knownContextSize: size } : {};
}
