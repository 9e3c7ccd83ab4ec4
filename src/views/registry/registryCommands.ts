import * as vscode from 'vscode';
import { loadChunk } from '../../util/lazyChunk';
import { RegistryCommandIds } from '../commandIds';
import type * as RegistryBrowse from './registryBrowse';
import type { RegistryCommandDeps } from './registryBrowse';

/**
 * Registers **Hermes: Add Agent from ACP Registry…**. The registry's reader, catalog and installer
 * (with zod) load from `dist/registryBrowse.js` the first time the command runs, not at activation (P4).
 */
export function registerRegistryCommands(deps: RegistryCommandDeps): vscode.Disposable[] {
  let browse: (() => Promise<void>) | undefined;
  return [
    vscode.commands.registerCommand(RegistryCommandIds.addAgentFromRegistry, () => {
      browse ??= loadChunk<typeof RegistryBrowse>(__dirname, 'registryBrowse').registryBrowser(deps);
      return browse();
    }),
  ];
}
