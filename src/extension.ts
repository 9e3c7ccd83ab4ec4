import * as vscode from 'vscode';
import { ChatManager } from './views/chatManager';
import { ChatPanel } from './views/chatPanel';
import { ChatViewProvider } from './views/chatViewProvider';
import { registerCommands } from './views/commands';
import { ViewId } from './views/commandIds';
import { Configuration } from './views/configuration';
import { StatusBar } from './views/statusBar';
import { TrafficChannel } from './views/trafficChannel';
import { WorkspaceTrustConsent } from './views/workspaceTrust';

/** What `activate` returns: used by the extension-host tests (no behaviour of its own). */
export interface HermesApi {
  readonly manager: ChatManager;
  readonly chatView: ChatViewProvider;
  readonly statusBar: StatusBar;
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
  context.subscriptions.push(
    traffic,
    chatView,
    statusBar,
    vscode.window.registerWebviewViewProvider(ViewId.chat, chatView),
    ...registerCommands({ extensionUri: context.extensionUri, manager, chatView, config, traffic }),
  );
  return { manager, chatView, statusBar, activationMs: performance.now() - started };
}

/** Ends every agent process (and what they started) before the extension host goes away. */
export async function deactivate(): Promise<void> {
  const m = manager;
  manager = undefined;
  await m?.dispose();
}
