import type * as vscode from 'vscode';
import { loadChunk } from '../util/lazyChunk';
import type { RegisterCommand } from './commandRegistry';
import type * as ExtensionCore from './extensionCore';
import type { HermesCore } from './extensionCore';

/** Loads the chat core (`dist/extensionCore.js`, src/views/extensionCore.ts) and builds it for this window. */
export function loadExtensionCore(context: vscode.ExtensionContext, register: RegisterCommand): HermesCore {
  return loadChunk<typeof ExtensionCore>(__dirname, 'extensionCore').loadCore(context, register);
}
