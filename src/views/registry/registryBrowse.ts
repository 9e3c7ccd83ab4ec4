import * as vscode from 'vscode';
import type { AgentDefinition } from '../../host/agentHost';
import { buildCatalog } from '../../registry/catalog';
import { registryLayout } from '../../registry/installPaths';
import { platformKey } from '../../registry/launch';
import { defaultRegistryUrl, loadRegistry, type RegistrySnapshot } from '../../registry/registrySource';
import { displayLabel, notificationLabel } from '../../util/displayText';
import type { ChatManager } from '../chat/chatManager';
import type { ChatViewProvider } from '../chat/chatViewProvider';
import type { Configuration } from '../configuration';
import { pickAction, pickRegistryAgent, type RegistryListing } from './registryPicker';
import { RegistryInstaller, availableTools } from './registryInstall';

export interface RegistryCommandDeps {
  readonly context: Pick<vscode.ExtensionContext, 'globalStorageUri' | 'globalState' | 'extensionUri'>;
  readonly manager: ChatManager;
  readonly chatView: ChatViewProvider;
  readonly config: Configuration;
  readonly log: vscode.LogOutputChannel;
  readonly extensionVersion: string;
}

/** `hermes.registry.url` (machine-scoped), else the public registry. */
function registryUrl(): string {
  const v = vscode.workspace.getConfiguration('hermes').get<unknown>('registry.url');
  return typeof v === 'string' && v.trim() !== '' ? v.trim() : defaultRegistryUrl;
}

/** Entries the registry lists that this extension skipped: one notice, the details in the log. */
function reportSkipped(snapshot: RegistrySnapshot, log: vscode.LogOutputChannel): void {
  if (snapshot.skipped.length === 0) {
    return;
  }
  for (const s of snapshot.skipped) {
    log.warn(`registry ${snapshot.url}: entry #${s.index}${s.id !== undefined ? ` (${displayLabel(s.id, 64)})` : ''} skipped: ${displayLabel(s.reason, 500)}`);
  }
  const show = vscode.l10n.t('Show Details');
  void vscode.window
    .showWarningMessage(vscode.l10n.t('{0} registry entries are not listed because they are invalid. Details are in "Hermes Traffic".', snapshot.skipped.length), show)
    .then((c) => (c === show ? log.show(true) : undefined));
}

/**
 * **Hermes: Add Agent from ACP Registry…** — lists the registry (fresh, or the cached copy with its
 * age when offline), and installs, updates, starts or removes the chosen agent. Loaded from a chunk of
 * its own (`dist/registryBrowse.js`) the first time the command runs (see registryCommands.ts).
 */
export function registryBrowser(deps: RegistryCommandDeps): () => Promise<void> {
  const layout = registryLayout(deps.context.globalStorageUri.fsPath);
  const startChat = async (def: AgentDefinition): Promise<void> => {
    await deps.manager.newSidebarSession(def);
    await deps.chatView.reveal();
  };
  const installer = new RegistryInstaller({
    layout,
    state: deps.context.globalState,
    extensionVersion: deps.extensionVersion,
    cwd: () => deps.manager.workspaceRoot,
    log: (m) => deps.log.info(m),
    startChat,
  });

  const load = async (): Promise<RegistryListing> => {
    const snapshot = await loadRegistry(registryUrl(), { cacheFile: layout.cacheFile });
    if (snapshot.fromCache) {
      deps.log.warn(`registry ${snapshot.url}: using the copy saved ${new Date(snapshot.fetchedAt).toISOString()}: ${snapshot.fetchError ?? ''}`);
      const why = notificationLabel(snapshot.fetchError ?? '', 300);
      const saved = new Date(snapshot.fetchedAt).toLocaleString();
      void vscode.window.showWarningMessage(
        snapshot.fetchFailure === 'unreachable'
          ? vscode.l10n.t('The agent registry could not be reached ({0}); showing the copy saved on {1}. Check the network.', why, saved)
          : vscode.l10n.t('The agent registry answered with something unusable ({0}); showing the copy saved on {1}. Check the "hermes.registry.url" setting.', why, saved),
      );
    }
    reportSkipped(snapshot, deps.log);
    const platform = platformKey();
    const catalog = buildCatalog(snapshot.registry, { platform, tools: availableTools(), agents: deps.config.agents().agents }, snapshot.skipped);
    return { snapshot, catalog, platform };
  };

  const browse = async (): Promise<void> => {
    let pick;
    try {
      pick = await pickRegistryAgent({ load, iconsDir: layout.iconsDir, hermesIcon: vscode.Uri.joinPath(deps.context.extensionUri, 'media', 'hermes.svg') });
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      deps.log.error(`registry: ${message}`);
      void vscode.window.showErrorMessage(notificationLabel(message, 1000));
      return;
    }
    if (pick === undefined) {
      return;
    }
    if (pick.kind === 'hermes') {
      // Hermes stays the built-in agent with its own installer: the registry entry is information only.
      const hermes = deps.config.agents().agents.find((a) => a.id === 'hermes');
      if (hermes !== undefined) {
        await startChat(hermes);
      }
      return;
    }
    if (pick.kind === 'installedOnly') {
      // Its entry went bad or away: it still runs as installed, and stays removable.
      const action = await pickAction(undefined, pick.definition);
      if (action === 'chat') {
        await startChat(pick.definition);
      } else if (action === 'remove') {
        await installer.remove(pick.definition);
      }
      return;
    }
    const item = pick.item;
    if (item.installed === undefined) {
      await installer.install(item, 'install');
      return;
    }
    const action = await pickAction(item, item.installed);
    if (action === 'chat') {
      await startChat(item.installed);
    } else if (action === 'remove') {
      await installer.remove(item.installed);
    } else if (action !== undefined) {
      await installer.install(item, action);
    }
  };

  return browse;
}
