import * as vscode from 'vscode';
import type { SecretStore, SignInPorts } from '../../app/signIn';
import { runTerminalSetup } from './installation';

/**
 * The sign-in card's VS Code side: env-var values in `SecretStorage` (keyed by agent and method),
 * asked for in a masked input box; terminal methods in a VS Code terminal (as "Set Up Provider").
 */
export function vscodeSignInPorts(secrets: SecretStore, cwd: () => string): SignInPorts {
  return {
    secrets,
    prompts: {
      askSecret: async ({ agentName, method, varName }) =>
        vscode.window.showInputBox({
          title: vscode.l10n.t('Sign in to {0}: {1}', agentName, method.name),
          prompt: vscode.l10n.t('The value of {0}. Kept in VS Code’s secret storage and given to {1} as that environment variable.', varName, agentName),
          placeHolder: varName,
          password: true,
          ignoreFocusOut: true,
        }),
      runTerminal: async (def, method) => (await runTerminalSetup(def, method.args ?? [], {}, cwd())) === 0,
    },
  };
}
