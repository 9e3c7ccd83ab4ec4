import * as vscode from 'vscode';
import type { HermesCore } from './views/extensionCore';
import { loadExtensionCore } from './views/lazyCore';
import { ViewId } from './views/commandIds';
import type { CommandHandler } from './views/commandRegistry';

/**
 * The activation shell (issue 43, P4). Activating registers what package.json contributes — a
 * trampoline per command and the chat view's provider — and nothing else: the chat core
 * (src/views/extensionCore.ts, shipped as `dist/extensionCore.js`) loads the first time a command runs,
 * the chat view is shown or the API is read. Then the trampolines call the core's handlers.
 */

/** What `activate` returns: used by the extension-host tests and the bench (no behaviour of its own). Reading a core field loads the core. */
export interface HermesApi extends Pick<HermesCore, 'manager' | 'chatView' | 'statusBar' | 'traffic' | 'changes'> {
  /** Milliseconds `activate()` took (the core not loaded). */
  readonly activationMs: number;
  /** Whether the core is loaded (a command ran, the chat view showed, or a core field was read). */
  readonly coreLoaded: boolean;
}

let core: HermesCore | undefined;

export function activate(context: vscode.ExtensionContext): HermesApi {
  const started = performance.now();
  const contributed = new Set(contributedCommands(context.extension.packageJSON));
  const handlers = new Map<string, CommandHandler>();
  const load = (): HermesCore => {
    if (core !== undefined) {
      return core;
    }
    core = loadExtensionCore(context, (id, handler) => {
      if (!contributed.has(id)) {
        return vscode.commands.registerCommand(id, handler);
      }
      handlers.set(id, handler);
      return new vscode.Disposable(() => handlers.delete(id));
    });
    return core;
  };
  context.subscriptions.push(
    ...[...contributed].map((id) =>
      vscode.commands.registerCommand(id, (...args: unknown[]) => {
        load();
        const handler = handlers.get(id);
        if (handler === undefined) {
          throw new Error(`Hermes has no handler for the command ${id}`);
        }
        return handler(...args);
      }),
    ),
    vscode.window.registerWebviewViewProvider(ViewId.chat, { resolveWebviewView: (view) => load().chatView.resolveWebviewView(view) }),
    new vscode.Disposable(() => {
      core?.dispose();
    }),
  );
  // `npm start` opens its chat by itself (package.json activates on the Demo workspace's marker file;
  // only the environment `npm start` sets makes it reveal the view).
  if (process.env.HERMES_ACP_OPEN_CHAT === '1') {
    void load().chatView.reveal();
  }
  const activationMs = performance.now() - started;
  return {
    get manager() {
      return load().manager;
    },
    get chatView() {
      return load().chatView;
    },
    get statusBar() {
      return load().statusBar;
    },
    get traffic() {
      return load().traffic;
    },
    get changes() {
      return load().changes;
    },
    get coreLoaded() {
      return core !== undefined;
    },
    activationMs,
  };
}

/** Ends every agent process (and what they started) before the extension host goes away. */
export async function deactivate(): Promise<void> {
  await core?.shutdown();
}

/** The command ids package.json contributes. */
function contributedCommands(packageJson: unknown): string[] {
  const commands = (packageJson as { contributes?: { commands?: unknown } } | undefined)?.contributes?.commands;
  return Array.isArray(commands) ? commands.map((c: unknown) => (c as { command?: unknown }).command).filter((id): id is string => typeof id === 'string') : [];
}
