import * as vscode from 'vscode';
import type { AgentDefinition } from '../../host/agentHost';
import { transportSecretKey } from '../../host/transportSettings';

/**
 * The gateway token or API key of a non-ACP agent, kept in SecretStorage (never in settings, never
 * logged) and asked for, masked, when missing. Cancelling the prompt connects without one (a local
 * API Server without `API_SERVER_KEY` needs none); the server then says what it refused.
 */
export function transportSecrets(secrets: vscode.SecretStorage): (def: AgentDefinition) => Promise<string | undefined> {
  return async (def) => {
    const need = def.transport !== undefined ? transportSecretKey(def.id, def.transport) : undefined;
    if (need === undefined) {
      return undefined;
    }
    const stored = await secrets.get(need.key);
    if (stored !== undefined && stored !== '') {
      return stored;
    }
    const entered = await vscode.window.showInputBox({
      title: vscode.l10n.t('{0}: {1}', def.name, need.label),
      prompt: vscode.l10n.t('Kept in VS Code’s secret storage. Leave empty if the server needs none.'),
      password: true,
      ignoreFocusOut: true,
    });
    if (entered !== undefined && entered !== '') {
      await secrets.store(need.key, entered);
    }
    return entered;
  };
}
