import { existsSync, statSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentDefinition } from '../../host/agentHost';
import type { CatalogItem } from '../../registry/catalog';
import { pruneVersions, type InstallStep, type InstalledAgent } from '../../registry/installer';
import { planInstall, type InstallPlan } from '../../registry/installPlan';
import type { RegistryLayout } from '../../registry/installPaths';
import { describeCommand, findOnPath, missingToolMessage, type DistributionChoice, type PackageTool } from '../../registry/launch';
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

/**
 * The install plans the user agreed to (InstallPlan.consentKey: id, version, the normalized archive
 * URL and its SHA-256 or the exact package spec, the command and its environment). The first
 * version of this list held `id@version` only and is not read: those installs are asked once more.
 */
const consentKey = 'hermes.registry.consentedPlans';
/** The most recent consents kept. */
const maxConsents = 500;

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

/** The consent dialog's detail: exactly what will be downloaded and run (the plan, normalized and resolved). */
function consentDetail(item: CatalogItem, plan: InstallPlan, replaces: boolean): string {
  const lines = [vscode.l10n.t('Installing runs code from the network on this machine, with your permissions.')];
  if (replaces) {
    lines.push(vscode.l10n.t('Your own "hermes.agents" entry with the id "{0}" is replaced.', item.agent.id));
  }
  if (plan.archive !== undefined) {
    lines.push(
      vscode.l10n.t('Archive: {0}', plan.archive.url),
      plan.archive.sha256 !== undefined ? vscode.l10n.t('SHA-256 (from the registry, verified): {0}', plan.archive.sha256) : vscode.l10n.t('SHA-256: none given by the registry — only the download size is checked.'),
      vscode.l10n.t('Installed in: {0}', plan.installDir ?? ''),
      vscode.l10n.t('Command: {0}', describeCommand(plan.command)),
    );
  } else {
    lines.push(
      vscode.l10n.t('Package: {0}', plan.package ?? ''),
      vscode.l10n.t('Command: {0}', describeCommand(plan.command)),
      plan.kind === 'npx'
        ? vscode.l10n.t('npx downloads the package when the agent first starts; it is checked on the npm registry your npm uses before it is installed.')
        : vscode.l10n.t('uvx downloads the package: it is started once now to check that it resolves and answers.'),
    );
  }
  pushEnv(lines, plan.command.env, plan.command.droppedEnv);
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
    case 'checkPackage':
      return vscode.l10n.t('Checking {0} on the npm registry…', step.spec);
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
    // What would be refused during the install (an archive URL that reads one place and fetches
    // another, plain http off this machine, a command outside the install folder) is refused now.
    let plan: InstallPlan;
    try {
      plan = planInstall(item.agent, choice, this.deps.layout);
    } catch (e) {
      const message = e instanceof Error ? e.message : String(e);
      this.deps.log(`registry: ${item.agent.id} ${item.agent.version} refused: ${message}`);
      void vscode.window.showErrorMessage(vscode.l10n.t('{0} {1} was not installed: {2}', name, item.agent.version, notificationLabel(message, 800)));
      return;
    }
    if (!(await this.consent(item, plan))) {
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

  /** Removes the `hermes.agents` entry and the installed files of a registry agent, after confirmation. */
  async remove(agent: Pick<AgentDefinition, 'id' | 'name'>): Promise<void> {
    const name = notificationLabel(agent.name, 100);
    const remove = vscode.l10n.t('Remove');
    if ((await vscode.window.showWarningMessage(vscode.l10n.t('Remove {0}?', name), { modal: true, detail: vscode.l10n.t('Its "hermes.agents" entry and its installed files are removed.') }, remove)) !== remove) {
      return;
    }
    const config = vscode.workspace.getConfiguration('hermes');
    await config.update('agents', removeEntry(config.inspect<unknown>('agents')?.globalValue, agent.id), vscode.ConfigurationTarget.Global);
    await pruneVersions(this.deps.layout, agent.id, []);
    this.deps.log(`registry: ${agent.id} removed`);
  }

  /** Asks once per install plan: the same archive (URL and SHA-256) or package installs again without asking. */
  private async consent(item: CatalogItem, plan: InstallPlan): Promise<boolean> {
    const given = this.deps.state.get<string[]>(consentKey, []);
    const existing = findEntry(vscode.workspace.getConfiguration('hermes').inspect<unknown>('agents')?.globalValue, item.agent.id);
    // A hand-written entry with the same id is the user's: replacing it is always asked.
    const replaces = existing !== undefined && existing.source !== 'registry';
    if (given.includes(plan.consentKey) && !replaces) {
      this.deps.log(`registry: ${item.agent.id} ${item.agent.version}: installing what was agreed to before (${plan.archive?.url ?? plan.package ?? ''})`);
      return true;
    }
    const ok = vscode.l10n.t('Install and Start');
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('Install {0} {1} from the ACP Registry?', notificationLabel(item.agent.name, 100), item.agent.version),
      { modal: true, detail: consentDetail(item, plan, replaces) },
      ok,
    );
    if (answer !== ok) {
      return false;
    }
    await this.deps.state.update(consentKey, [...given.filter((k) => k !== plan.consentKey), plan.consentKey].slice(-maxConsents));
    return true;
  }

  /** The install itself, under a cancellable progress notification. Undefined: cancelled or failed (already said). */
  private async run(item: CatalogItem, choice: DistributionChoice, mode: 'install' | 'update' | 'reinstall'): Promise<CheckedInstall | undefined> {
    const title = vscode.l10n.t('Installing {0} {1}', notificationLabel(item.agent.name, 100), item.agent.version);
    try {
      return await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title, cancellable: true }, async (progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        // A fresh npx install is not started here (its package was checked on the npm registry; the
        // first start downloads it, and the chat shows how that goes). Binaries, uvx agents (uv has
        // no registry query: starting it once is the check) and every update must answer first.
        const check = choice.kind !== 'npx' || mode !== 'install';
        const current = mode === 'install' ? undefined : item.installed;
        return installChecked(
          item.agent,
          choice,
          {
            layout: this.deps.layout,
            signal: abort.signal,
            cwd: this.deps.cwd(),
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
