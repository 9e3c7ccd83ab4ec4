import * as vscode from 'vscode';
import type { SpawnConsent } from '../../app/chatSession';
import { consentKey, type AgentToStart } from '../../permissions/consentKey';

/**
 * Workspace trust: in an untrusted workspace no agent process starts without the user's explicit
 * consent (asked once per exact command per window). Agent commands themselves come only from
 * machine-scoped settings, so a repository cannot choose what runs.
 */
export class WorkspaceTrustConsent implements SpawnConsent {
  private readonly allowed = new Set<string>();

  async allow(agent: AgentToStart): Promise<boolean> {
    const key = consentKey(agent);
    if (vscode.workspace.isTrusted || this.allowed.has(key)) {
      return true;
    }
    const start = vscode.l10n.t('Start {0}', agent.name);
    const manage = vscode.l10n.t('Manage Workspace Trust');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('This workspace is not trusted. Start {0} anyway?', agent.name),
      {
        modal: true,
        detail: vscode.l10n.t('{0} ({1}) will be able to read and change files in this workspace and run commands.', agent.name, [agent.command, ...agent.args].join(' ')),
      },
      start,
      manage,
    );
    if (choice === manage) {
      await vscode.commands.executeCommand('workbench.trust.manage');
      return vscode.workspace.isTrusted;
    }
    if (choice === start) {
      this.allowed.add(key);
      return true;
    }
    return false;
  }
}
