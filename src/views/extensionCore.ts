import type * as vscode from 'vscode';
import type { RegisterCommand } from './commandRegistry';
import { transportSecrets } from './setup/transportSecrets';
import { ChangesFeature } from './changes/changesView';
import type { Entry } from '../session/sessionState';
import { ChatManager } from './chat/chatManager';
import { ChatPanel } from './chat/chatPanel';
import { ChatViewProvider } from './chat/chatViewProvider';
import { registerCommands } from './commands';
import { registerRegistryCommands } from './registry/registryCommands';
import { Configuration } from './configuration';
import { StatusBar } from './statusBar';
import { TrafficChannel } from './trafficChannel';
import { WorkspaceTrustConsent } from './setup/workspaceTrust';

/**
 * The chat core: everything but the activation shell (src/extension.ts), which loads this chunk
 * (`dist/extensionCore.js`, through lazyCore.ts) on the first command, view or API call (P4, issue 43).
 */
export interface HermesCore extends vscode.Disposable {
  readonly manager: ChatManager;
  readonly chatView: ChatViewProvider;
  readonly statusBar: StatusBar;
  /** "Hermes Traffic": the agents' traffic at the `hermes.trace` level. */
  readonly traffic: TrafficChannel;
  /** The Changes view: agent changes per chat and turn, keep/revert, restore to before a turn. */
  readonly changes: ChangesFeature;
  /** Ends every agent process (and what they started). */
  shutdown(): Promise<void>;
}

/**
 * Builds the chat core for this window. Commands are registered through `register` (the shell's
 * registry: the contributed ones answer through the trampolines the shell registered at activation).
 */
export function loadCore(context: vscode.ExtensionContext, register: RegisterCommand): HermesCore {
  const config = new Configuration(context.extensionPath);
  const traffic = new TrafficChannel(() => config.trace());
  const version = (context.extension.packageJSON as { version?: unknown }).version;
  const manager = new ChatManager({
    extensionUri: context.extensionUri,
    workspaceState: context.workspaceState,
    extensionVersion: typeof version === 'string' ? version : '0.0.0',
    config,
    traffic,
    consent: new WorkspaceTrustConsent(),
    secrets: {
      get: async (key) => context.secrets.get(key),
      store: async (key, value) => context.secrets.store(key, value),
      delete: async (key) => context.secrets.delete(key),
    },
    transportSecret: transportSecrets(context.secrets),
  });
  const chatView = new ChatViewProvider(context.extensionUri, manager, (m) => traffic.channel.warn(m));
  manager.setPanelOpener((chat, draft) => {
    const panel = ChatPanel.create(context.extensionUri, manager, (msg) => traffic.channel.warn(msg), chat);
    if (draft !== undefined) {
      panel.insertIntoComposer(draft);
    }
  });
  manager.setVisibilityProbe((chat) => (chat === manager.sidebarIfAny && chatView.isVisible) || ChatPanel.all.some((p) => p.chat === chat && p.panel.visible));
  const statusBar = new StatusBar(manager);
  const changes = new ChangesFeature({
    manager,
    onDidWrite: manager.onDidWrite,
    // Snapshots spill here past 64 MB of memory (per-process folder, removed on dispose).
    storageDir: (context.storageUri ?? context.globalStorageUri).fsPath,
  }, register);
  // Turn footers offer "Restore files to before this turn" when the turn changed files.
  manager.setTurnChangesProbe((chat, turnId) => {
    const turn = changes.service.trackerFor(chat)?.turns().find((t) => t.turnId === turnId);
    const files = turn?.files.filter((f) => f.pending > 0) ?? [];
    return files.length > 0 ? { files: files.length, added: files.reduce((n, f) => n + f.added, 0), removed: files.reduce((n, f) => n + f.removed, 0) } : undefined;
  });
  const isFooter = (e: Entry): boolean => e.kind === 'turnEnd';
  const footers = changes.service.onDidChange(() => {
    chatView.webviewChannel?.refreshEntries(isFooter);
    for (const p of ChatPanel.all) {
      p.refreshEntries(isFooter);
    }
  });
  const disposables: vscode.Disposable[] = [
    footers,
    traffic,
    chatView,
    statusBar,
    changes,
    ...registerCommands({ extensionUri: context.extensionUri, manager, chatView, config, traffic, register }),
    ...registerRegistryCommands({ context, manager, chatView, config, log: traffic.channel, extensionVersion: typeof version === 'string' ? version : '0.0.0', register }),
  ];
  let shutDown: Promise<void> | undefined;
  return {
    manager,
    chatView,
    statusBar,
    traffic,
    changes,
    shutdown: () => (shutDown ??= manager.dispose()),
    dispose: () => {
      for (const d of disposables.reverse()) {
        d.dispose();
      }
    },
  };
}
