import { transportSecrets } from './views/setup/transportSecrets';
import * as vscode from 'vscode';
import { ChangesFeature } from './views/changes/changesView';
import type { Entry } from './session/sessionState';
import { ChatManager } from './views/chat/chatManager';
import { ChatPanel } from './views/chat/chatPanel';
import { ChatViewProvider } from './views/chat/chatViewProvider';
import { registerCommands } from './views/commands';
import { registerRegistryCommands } from './views/registry/registryCommands';
import { ViewId } from './views/commandIds';
import { Configuration } from './views/configuration';
import { StatusBar } from './views/statusBar';
import { TrafficChannel } from './views/trafficChannel';
import { WorkspaceTrustConsent } from './views/setup/workspaceTrust';

/** What `activate` returns: used by the extension-host tests (no behaviour of its own). */
export interface HermesApi {
  readonly manager: ChatManager;
  readonly chatView: ChatViewProvider;
  readonly statusBar: StatusBar;
  /** The Changes view: agent changes per chat and turn, keep/revert, restore to before a turn. */
  readonly changes: ChangesFeature;
  /** Milliseconds `activate()` took. */
  readonly activationMs: number;
}

let manager: ChatManager | undefined;

export function activate(context: vscode.ExtensionContext): HermesApi {
  const started = performance.now();
  const config = new Configuration(context.extensionPath);
  const traffic = new TrafficChannel(() => config.trace());
  const version = (context.extension.packageJSON as { version?: unknown }).version;
  manager = new ChatManager({
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
  const m = manager;
  m.setPanelOpener((chat, draft) => {
    const panel = ChatPanel.create(context.extensionUri, m, (msg) => traffic.channel.warn(msg), chat);
    if (draft !== undefined) {
      panel.insertIntoComposer(draft);
    }
  });
  m.setVisibilityProbe((chat) => (chat === m.sidebarIfAny && chatView.isVisible) || ChatPanel.all.some((p) => p.chat === chat && p.panel.visible));
  const statusBar = new StatusBar(manager);
  const changes = new ChangesFeature({
    manager,
    onDidWrite: manager.onDidWrite,
    // Snapshots spill here past 64 MB of memory (per-process folder, removed on dispose).
    storageDir: (context.storageUri ?? context.globalStorageUri).fsPath,
  });
  // Turn footers offer "Restore files to before this turn" when the turn changed files.
  m.setTurnChangesProbe((chat, turnId) => {
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
  context.subscriptions.push(footers);
  context.subscriptions.push(
    traffic,
    chatView,
    statusBar,
    changes,
    vscode.window.registerWebviewViewProvider(ViewId.chat, chatView),
    ...registerCommands({ extensionUri: context.extensionUri, manager, chatView, config, traffic }),
    ...registerRegistryCommands({ context, manager, chatView, config, log: traffic.channel, extensionVersion: typeof version === 'string' ? version : '0.0.0' }),
  );
  // `npm start` opens its chat by itself (package.json activates on the Demo workspace's marker file;
  // only the environment `npm start` sets makes it reveal the view).
  if (process.env.HERMES_ACP_OPEN_CHAT === '1') {
    void chatView.reveal();
  }
  return { manager, chatView, statusBar, changes, activationMs: performance.now() - started };
}

/** Ends every agent process (and what they started) before the extension host goes away. */
export async function deactivate(): Promise<void> {
  const m = manager;
  manager = undefined;
  await m?.dispose();
}
