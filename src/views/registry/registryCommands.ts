import type * as vscode from 'vscode';
import type { RegisterCommand } from '../commandRegistry';
import { loadChunk } from '../../util/lazyChunk';
import { RegistryCommandIds } from '../commandIds';
import type * as RegistryBrowse from './registryBrowse';
import type { RegistryCommandDeps } from './registryBrowse';

/**
 * Registers **Hermes: Add Agent from ACP Registry…**. The registry's reader, catalog and installer
 * (with zod) load from `dist/registryBrowse.js` the first time the command runs, not at activation (P4).
 */
export function registerRegistryCommands(deps: RegistryCommandDeps & { readonly register: RegisterCommand }): vscode.Disposable[] {
  let browse: (() => Promise<void>) | undefined;
  return [
    deps.register(RegistryCommandIds.addAgentFromRegistry, () => {
      browse ??= loadChunk<typeof RegistryBrowse>(__dirname, 'registryBrowse').registryBrowser(deps);
      return browse();
    }),
  ];
}
