import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentDefinition } from '../../host/agentHost';
import type { CatalogItem } from '../../registry/catalog';
import { pruneVersions, type InstallStep, type InstalledAgent } from '../../registry/installer';
import { versionDir, type RegistryLayout } from '../../registry/installPaths';
import { describeCommand, filterEnv, findOnPath, missingToolMessage, npxLaunch, uvxLaunch, type DistributionChoice, type PackageTool } from '../../registry/launch';
import { probeInitialize } from '../../registry/probe';
import { RegistryError } from '../../registry/registryErrors';
import { findEntry, removeEntry, settingsEntry, upsertEntry } from '../../registry/settingsEntry';
import { installChecked, type CheckedInstall } from '../../registry/updater';
import { notificationLabel } from '../../util/displayText';

/** What the install flow needs from the extension. */
export interface RegistryInstallDeps {
  readonly layout: RegistryLayout;
  /** Global state: the agent@version pairs the user agreed to install. */
  readonly state: vscode.Memento;
  readonly extensionVersion: string;
  readonly cwd: () => string;
  readonly log: (message: string) => void;
  /** Opens a new chat with the (installed) agent. */
  readonly startChat: (def: AgentDefinition) => Promise<void>;
}

const consentKey = 'hermes.registry.consents';

/** Which package runners are on PATH (a missing one is named, with how to get it). */
export function availableTools(): Record<PackageTool, boolean> {
  const lookup = (name: string): boolean =>
    findOnPath(name, {
      platform: process.platform,
      PATH: process.env.PATH,
      PATHEXT: process.env.PATHEXT,
      isFile: (p) => existsSync(p) && statSync(p).isFile(),
      join: (...parts) => path.join(...parts),
    }) !== undefined;
  return { npx: lookup('npx'), uvx: lookup('uvx') };
}

/** The consent dialog's detail: exactly what will be downloaded and run. */
function consentDetail(item: CatalogItem, choice: DistributionChoice, dir: string, replaces: boolean): string {
  const lines = [vscode.l10n.t('Installing runs code from the network on this machine, with your permissions.')];
  if (replaces) {
    lines.push(vscode.l10n.t('Your own "hermes.agents" entry with the id "{0}" is replaced.', item.agent.id));
  }
  if (choice.kind === 'binary') {
    const t = choice.target;
    lines.push(
      vscode.l10n.t('Archive: {0}', t.archive),
      t.sha256 !== undefined ? vscode.l10n.t('SHA-256 (from the registry, verified): {0}', t.sha256) : vscode.l10n.t('SHA-256: none given by the registry — only the download size is checked.'),
      vscode.l10n.t('Installed in: {0}', dir),
      vscode.l10n.t('Command: {0}', describeCommand({ command: path.join(dir, t.cmd), args: t.args })),
    );
    const { env, dropped } = filterEnv(t.env);
    pushEnv(lines, env, dropped);
  } else {
    const launch = choice.kind === 'npx' ? npxLaunch(choice.dist) : uvxLaunch(choice.dist);
    lines.push(vscode.l10n.t('Command: {0}', describeCommand(launch)), vscode.l10n.t('{0} downloads the package when the agent first starts.', choice.kind));
    pushEnv(lines, launch.env, launch.droppedEnv);
  }
  if (item.agent.repository !== undefined) {
    lines.push(vscode.l10n.t('Source: {0}', item.agent.repository));
  }
  return lines.map((l) => notificationLabel(l, 600)).join('\n');
}

function pushEnv(lines: string[], env: Readonly<Record<string, string>>, dropped: readonly string[]): void {
  if (Object.keys(env).length > 0) {
    lines.push(vscode.l10n.t('Environment: {0}', Object.entries(env).map(([k, v]) => `${k}=${v}`).join(' ')));
  }
  if (dropped.length > 0) {
    lines.push(vscode.l10n.t('Not applied (may not be set by a registry): {0}', dropped.join(', ')));
  }
}

function progressMessage(step: InstallStep): string {
  switch (step.step) {
    case 'download':
      return step.total !== undefined
        ? vscode.l10n.t('Downloading… {0} of {1} MB', (step.received / 1e6).toFixed(1), (step.total / 1e6).toFixed(1))
        : vscode.l10n.t('Downloading… {0} MB', (step.received / 1e6).toFixed(1));
    case 'verify':
      return vscode.l10n.t('Verifying the download…');
    case 'extract':
      return vscode.l10n.t('Unpacking…');
    case 'finish':
      return vscode.l10n.t('Finishing…');
  }
}

/**
 * Install, update, reinstall and remove for registry agents: workspace trust, one consent per
 * agent and version, progress with cancel, the `hermes.agents` entry, and a chat to start with.
 */
export class RegistryInstaller {
  constructor(private readonly deps: RegistryInstallDeps) {}

  /** Installs `item` (fresh, update or reinstall) and opens a chat with it on a fresh install. */
  async install(item: CatalogItem, mode: 'install' | 'update' | 'reinstall'): Promise<void> {
    const name = notificationLabel(item.agent.name, 100);
    if (!vscode.workspace.isTrusted) {
      const manage = vscode.l10n.t('Manage Workspace Trust');
      const choice = await vscode.window.showWarningMessage(vscode.l10n.t('{0} was not installed: agents are not installed or started from the registry in an untrusted workspace.', name), manage);
      if (choice === manage) {
        await vscode.commands.executeCommand('workbench.trust.manage');
      }
      return;
    }
    const choice = item.choice;
    if (choice === undefined) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} has no build for this platform ({1}) in the registry.', name, `${process.platform}-${process.arch}`));
      return;
    }
    if (choice.kind !== 'binary' && choice.toolMissing) {
      void vscode.window.showErrorMessage(vscode.l10n.t('{0} cannot be installed: {1}', name, missingToolMessage(choice.kind)));
      return;
    }
    const dir = versionDir(this.deps.layout, item.agent.id, item.agent.version);
    if (!(await this.consent(item, choice, dir))) {
      return;
    }
    const result = await this.run(item, choice, mode);
    if (result === undefined) {
      return;
    }
    if (!result.ok) {
      this.deps.log(`registry: ${result.reason}`);
      void vscode.window.showErrorMessage(notificationLabel(result.reason, 1000));
      return;
    }
    const def = await this.writeSetting(result.installed);
    await pruneVersions(this.deps.layout, item.agent.id, [item.agent.version]);
    this.deps.log(`registry: ${item.agent.id} ${item.agent.version} installed: ${describeCommand(result.installed)}`);
    if (mode === 'install') {
      await this.deps.startChat(def);
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} {1} is installed and added to "hermes.agents".', name, item.agent.version));
      return;
    }
    const chat = vscode.l10n.t('Start a Chat');
    if ((await vscode.window.showInformationMessage(vscode.l10n.t('{0} is now at {1}.', name, item.agent.version), chat)) === chat) {
      await this.deps.startChat(def);
    }
  }

  /** Removes the `hermes.agents` entry and the installed files, after confirmation. */
  async remove(item: CatalogItem): Promise<void> {
    const name = notificationLabel(item.agent.name, 100);
    const remove = vscode.l10n.t('Remove');
    if ((await vscode.window.showWarningMessage(vscode.l10n.t('Remove {0}?', name), { modal: true, detail: vscode.l10n.t('Its "hermes.agents" entry and its installed files are removed.') }, remove)) !== remove) {
      return;
    }
    const config = vscode.workspace.getConfiguration('hermes');
    await config.update('agents', removeEntry(config.inspect<unknown>('agents')?.globalValue, item.agent.id), vscode.ConfigurationTarget.Global);
    await pruneVersions(this.deps.layout, item.agent.id, []);
    this.deps.log(`registry: ${item.agent.id} removed`);
  }

  private async consent(item: CatalogItem, choice: DistributionChoice, dir: string): Promise<boolean> {
    const key = `${item.agent.id}@${item.agent.version}`;
    const given = this.deps.state.get<string[]>(consentKey, []);
    const existing = findEntry(vscode.workspace.getConfiguration('hermes').inspect<unknown>('agents')?.globalValue, item.agent.id);
    // A hand-written entry with the same id is the user's: replacing it is always asked.
    const replaces = existing !== undefined && existing.source !== 'registry';
    if (given.includes(key) && !replaces) {
      return true;
    }
    const ok = vscode.l10n.t('Install and Start');
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('Install {0} {1} from the ACP Registry?', notificationLabel(item.agent.name, 100), item.agent.version),
      { modal: true, detail: consentDetail(item, choice, dir, replaces) },
      ok,
    );
    if (answer !== ok) {
      return false;
    }
    await this.deps.state.update(consentKey, [...given.filter((k) => k !== key), key]);
    return true;
  }

  /** The install itself, under a cancellable progress notification. Undefined: cancelled or failed (already said). */
  private async run(item: CatalogItem, choice: DistributionChoice, mode: 'install' | 'update' | 'reinstall'): Promise<CheckedInstall | undefined> {
    const title = vscode.l10n.t('Installing {0} {1}', notificationLabel(item.agent.name, 100), item.agent.version);
    try {
      return await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        // A fresh npx/uvx install is not started here: the first start downloads the package,
        // and the chat shows how that goes. Binaries, and every update, must answer first.
        const check = choice.kind === 'binary' || mode !== 'install';
        const current = mode === 'install' ? undefined : item.installed;
        return installChecked(
          item.agent,
          choice,
          {
            layout: this.deps.layout,
            signal: abort.signal,
            onProgress: (step) => progress.report({ message: progressMessage(step) }),
            probe: async (def) => {
              if (!check) {
                return { ok: true, agentName: def.name, agentVersion: def.version };
              }
              progress.report({ message: vscode.l10n.t('Starting it once to check that it answers…') });
              return probeInitialize(def, { cwd: this.deps.cwd(), clientVersion: this.deps.extensionVersion, timeoutMs: choice.kind === 'binary' ? 60_000 : 180_000, signal: abort.signal });
            },
          },
          current,
        );
      });
    } catch (e) {
      if (RegistryError.is(e, 'cancelled')) {
        void vscode.window.showInformationMessage(vscode.l10n.t('Installation of {0} cancelled; nothing was changed.', notificationLabel(item.agent.name, 100)));
        return undefined;
      }
      const message = e instanceof Error ? e.message : String(e);
      this.deps.log(`registry: installing ${item.agent.id} ${item.agent.version} failed: ${message}`);
      void vscode.window.showErrorMessage(notificationLabel(message, 1000));
      return undefined;
    }
  }

  /** Writes the entry into the user's `hermes.agents` (machine-scoped: on a remote, the remote's settings). */
  private async writeSetting(installed: InstalledAgent): Promise<AgentDefinition> {
    const config = vscode.workspace.getConfiguration('hermes');
    const raw = config.inspect<unknown>('agents')?.globalValue;
    const entry = settingsEntry(installed, findEntry(raw, installed.id));
    await config.update('agents', upsertEntry(raw, entry), vscode.ConfigurationTarget.Global);
    return {
      id: installed.id,
      name: typeof entry.name === 'string' ? entry.name : installed.name,
      command: installed.command,
      args: installed.args,
      env: entry.env as Record<string, string>,
      source: 'registry',
      version: installed.version,
    };
  }
}
