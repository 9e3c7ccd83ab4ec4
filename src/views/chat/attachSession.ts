import * as vscode from 'vscode';
import type { AgentDefinition } from '../../host/agentHost';
import { describeError } from '../../agentPort/agentErrors';
import { canAttach } from '../../agentPort/transport';
import { notificationLabel } from '../../util/displayText';
import type { ChatManager } from './chatManager';
import type { ChatViewProvider } from './chatViewProvider';
import type { Configuration } from '../configuration';

interface SessionPick extends vscode.QuickPickItem {
  readonly sessionId: string;
}

/**
 * "Attach to a Running Hermes Session…": the TUI Gateway's live sessions (`session.active_list`,
 * which a chat activates — it joins as one more subscriber, the terminal keeps its own) and its past
 * ones (`session.list`, resumed), in one quick pick. Only agents whose transport declares `attach`.
 */
export async function attachToSession(manager: ChatManager, config: Configuration, view: ChatViewProvider): Promise<void> {
  const gateways = config.agents().agents.filter((a) => a.transport?.kind === 'tui-gateway');
  if (gateways.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('No agent in hermes.agents uses the tui-gateway transport. Add one to attach to a running Hermes session.'));
    return;
  }
  const def: AgentDefinition | undefined =
    gateways.length === 1 ? gateways[0] : (await vscode.window.showQuickPick(gateways.map((a) => ({ label: a.name, agent: a })), { title: vscode.l10n.t('Attach through which gateway?') }))?.agent;
  if (def === undefined || !(await manager.allowAgent(def))) {
    return;
  }
  const failed = (e: unknown): void => {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not list the sessions of {0}: {1}', def.name, notificationLabel(describeError(e), 500)));
  };
  // Connect before the quick pick shows: connecting may ask for the gateway token (a masked input
  // box), and an input box hides a quick pick shown before it for good.
  const connection = await vscode.window
    .withProgress({ location: vscode.ProgressLocation.Window, title: vscode.l10n.t('Connecting to {0}…', def.name) }, () => manager.hostFor(def).start())
    .then(
      (c) => c,
      (e: unknown) => void failed(e),
    );
  if (connection === undefined) {
    return;
  }
  if (!canAttach(connection)) {
    void vscode.window.showWarningMessage(vscode.l10n.t('{0} cannot attach to running sessions.', def.name));
    return;
  }
  const pick = vscode.window.createQuickPick<SessionPick>();
  pick.title = vscode.l10n.t('Attach to a running {0} session', def.name);
  pick.placeholder = vscode.l10n.t('Live sessions first; past sessions are resumed');
  pick.busy = true;
  pick.show();
  try {
    const [live, past] = await Promise.all([connection.listLiveSessions(), connection.listSessions({ cwd: manager.workspaceRoot })]);
    // A live session is also a stored one: list it once, as live (runtime and stored ids differ).
    const liveIds = new Set(live.flatMap((s) => [s.sessionId, ...(s.storedSessionId !== undefined ? [s.storedSessionId] : [])]));
    pick.items = [
      { label: vscode.l10n.t('Live'), kind: vscode.QuickPickItemKind.Separator, sessionId: '' },
      ...live.map((s) => ({ label: s.title !== '' ? s.title : s.sessionId, description: `${s.status} · ${s.model}`, detail: s.preview !== '' ? s.preview : s.sessionId, sessionId: s.sessionId })),
      { label: vscode.l10n.t('Past'), kind: vscode.QuickPickItemKind.Separator, sessionId: '' },
      ...past.sessions
        .filter((s) => !liveIds.has(s.sessionId))
        .map((s) => ({ label: typeof s.title === 'string' && s.title !== '' ? s.title : s.sessionId, detail: s.sessionId, sessionId: s.sessionId })),
    ];
  } catch (e) {
    pick.dispose();
    failed(e);
    return;
  } finally {
    pick.busy = false;
  }
  const chosen = await new Promise<SessionPick | undefined>((resolve) => {
    pick.onDidAccept(() => resolve(pick.selectedItems[0]));
    pick.onDidHide(() => resolve(undefined));
  });
  pick.dispose();
  if (chosen !== undefined && chosen.sessionId !== '') {
    await view.reveal();
    await manager.openSession(chosen.sessionId, def, chosen.label);
  }
}
