import * as vscode from 'vscode';
import { notificationLabel } from '../../util/displayText';
import type { Configuration } from '../configuration';

/**
 * Says which `hermes.permissions.*` entries cannot be used (an unknown kind, a `..` glob, a
 * compound command pattern, an invalid regular expression…): such a rule is left out rather than
 * guessed at, and the user must know. Checked once at start and on every change of the settings.
 */
export function watchPermissionSettings(config: Configuration): vscode.Disposable {
  let shown = '';
  const check = (): void => {
    const problems = [
      ...config.permissionRules().problems.map((p) => `hermes.permissions.rules: ${p}`),
      ...config.sensitivePaths().problems.map((p) => `hermes.permissions.sensitivePaths: ${p}`),
    ];
    const text = problems.join('; ');
    if (text !== '' && text !== shown) {
      void vscode.window.showWarningMessage(vscode.l10n.t('Some permission settings are ignored: {0}', notificationLabel(text, 800)));
    }
    shown = text;
  };
  check();
  return vscode.workspace.onDidChangeConfiguration((e) => {
    if (e.affectsConfiguration('hermes.permissions')) {
      check();
    }
  });
}
