import * as vscode from 'vscode';
import type { SpawnConsent } from '../app/chatSession';

/**
 * Workspace trust: in an untrusted workspace no agent process starts without the user's explicit
 * consent (asked once per agent per window). Agent commands themselves come only from
 * machine-scoped settings, so a repository cannot choose what runs.
 */
export class WorkspaceTrustConsent implements SpawnConsent {
  private readonly allowed = new Set<string>();

  async allow(agentName: string): Promise<boolean> {
    if (vscode.workspace.isTrusted || this.allowed.has(agentName)) {
      return true;
    }
    const start = vscode.l10n.t('Start {0}', agentName);
    const manage = vscode.l10n.t('Manage Workspace Trust');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('This workspace is not trusted. Start {0} anyway?', agentName),
      {
        modal: true,
        detail: vscode.l10n.t('{0} will be able to read and change files in this workspace and run commands.', agentName),
      },
      start,
      manage,
    );
    if (choice === manage) {
      await vscode.commands.executeCommand('workbench.trust.manage');
      return vscode.workspace.isTrusted;
    }
    if (choice === start) {
      this.allowed.add(agentName);
      return true;
    }
    return false;
  }
}
