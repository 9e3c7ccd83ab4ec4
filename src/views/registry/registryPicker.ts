import * as vscode from 'vscode';
import type { AgentDefinition } from '../../host/agentHost';
import { archiveKind } from '../../registry/archive';
import type { Catalog, CatalogItem } from '../../registry/catalog';
import { iconFiles } from '../../registry/icons';
import { describeCommand, npxLaunch, uvxLaunch } from '../../registry/launch';
import type { RegistryAgent } from '../../registry/registryFormat';
import type { RegistrySnapshot } from '../../registry/registrySource';
import { displayLabel } from '../../util/displayText';

/** What the user picked in the registry list. */
export type RegistryPick =
  | { readonly kind: 'agent'; readonly item: CatalogItem }
  | { readonly kind: 'hermes'; readonly entry: RegistryAgent | undefined }
  /** An installed registry agent the registry no longer lists validly: it can still be started or removed. */
  | { readonly kind: 'installedOnly'; readonly definition: AgentDefinition };

interface PickItem extends vscode.QuickPickItem {
  readonly pick?: RegistryPick;
}

/** Registry text on one line, visible controls, and no `$(icon)` syntax (labels render codicons). */
function plain(text: string, max: number): string {
  return displayLabel(text, max).replace(/\$\(/g, '\\$(');
}

/** "3 minutes ago" for the list's title. */
export function ageLabel(ms: number): string {
  const minutes = Math.floor(ms / 60_000);
  if (minutes < 1) {
    return vscode.l10n.t('just now');
  }
  if (minutes < 60) {
    return minutes === 1 ? vscode.l10n.t('1 minute ago') : vscode.l10n.t('{0} minutes ago', minutes);
  }
  const hours = Math.floor(minutes / 60);
  if (hours < 48) {
    return hours === 1 ? vscode.l10n.t('1 hour ago') : vscode.l10n.t('{0} hours ago', hours);
  }
  return vscode.l10n.t('{0} days ago', Math.floor(hours / 24));
}

/** Which distribution will be used here, in a few words. */
export function howItRuns(item: CatalogItem, platform: string | undefined): string {
  const choice = item.choice;
  if (choice === undefined) {
    return vscode.l10n.t('no build for {0}', platform ?? process.platform);
  }
  if (choice.kind === 'binary') {
    let kind: string;
    try {
      kind = archiveKind(choice.target.archive);
    } catch {
      kind = 'installer';
    }
    return vscode.l10n.t('binary for {0} ({1})', choice.platform, kind === 'raw' ? vscode.l10n.t('single file') : `.${kind}`);
  }
  const line = describeCommand(choice.kind === 'npx' ? npxLaunch(choice.dist) : uvxLaunch(choice.dist));
  return choice.toolMissing ? vscode.l10n.t('{0} — {1} is not installed', line, choice.kind) : line;
}

function marks(item: CatalogItem): string {
  const installed = item.installed;
  if (installed === undefined) {
    return '';
  }
  return item.updateAvailable
    ? vscode.l10n.t('update available (installed {0})', installed.version ?? '?')
    : item.downgrade
      ? vscode.l10n.t('installed {0}, newer than the registry\'s', installed.version ?? '?')
      : vscode.l10n.t('installed');
}

async function iconFor(agent: RegistryAgent, iconsDir: string): Promise<vscode.QuickPickItem['iconPath']> {
  const files = agent.icon !== undefined ? await iconFiles(agent.icon, iconsDir).catch(() => undefined) : undefined;
  return files !== undefined ? { light: vscode.Uri.file(files.light), dark: vscode.Uri.file(files.dark) } : new vscode.ThemeIcon('hubot');
}

/** Fetches the icons (cached on disk), waiting at most `budgetMs` so the list never waits on a slow host. */
async function icons(catalog: Catalog, iconsDir: string, budgetMs: number): Promise<Map<string, vscode.QuickPickItem['iconPath']>> {
  const found = new Map<string, vscode.QuickPickItem['iconPath']>();
  const all = Promise.all(catalog.items.map(async (i) => found.set(i.agent.id, await iconFor(i.agent, iconsDir))));
  await Promise.race([all, new Promise((resolve) => setTimeout(resolve, budgetMs))]);
  return found;
}

/** The registry as read now, turned into the list for this machine. */
export interface RegistryListing {
  readonly snapshot: RegistrySnapshot;
  readonly catalog: Catalog;
  readonly platform: string | undefined;
}

export interface PickerOptions {
  readonly load: () => Promise<RegistryListing>;
  readonly iconsDir: string;
  readonly hermesIcon: vscode.Uri;
}

/**
 * The registry as a quick pick: icon, name, version and marks, the description and how it would
 * run here; VS Code filters on all of it as the user types. Resolves with the choice, or undefined.
 */
export async function pickRegistryAgent(o: PickerOptions): Promise<RegistryPick | undefined> {
  const qp = vscode.window.createQuickPick<PickItem>();
  qp.title = vscode.l10n.t('ACP Registry');
  qp.placeholder = vscode.l10n.t('Reading the agent registry…');
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.busy = true;
  const chosen = new Promise<RegistryPick | undefined>((resolve) => {
    qp.onDidAccept(() => {
      const pick = qp.selectedItems[0]?.pick;
      if (pick !== undefined) {
        resolve(pick);
        qp.hide();
      }
    });
    qp.onDidHide(() => resolve(undefined));
  });
  qp.show();
  try {
    const { snapshot, catalog, platform } = await o.load();
    const found = await icons(catalog, o.iconsDir, 1500);
    const age = ageLabel(Date.now() - snapshot.fetchedAt);
    qp.title = snapshot.fromCache
      ? snapshot.fetchFailure === 'unreachable'
        ? vscode.l10n.t('ACP Registry — offline copy from {0}', age)
        : vscode.l10n.t('ACP Registry — saved copy from {0} (the registry\'s answer was unusable)', age)
      : vscode.l10n.t('ACP Registry — {0} agents, updated {1}', catalog.items.length, age);
    qp.placeholder = vscode.l10n.t('Type to filter; Enter installs, updates or starts the agent');
    const hermes: PickItem = {
      label: 'Hermes',
      description: catalog.hermes !== undefined ? vscode.l10n.t('built-in · registry {0}', plain(catalog.hermes.version, 64)) : vscode.l10n.t('built-in'),
      detail: vscode.l10n.t('The default agent (Nous Research). Installed with its own installer: see Hermes: Check Installation.'),
      iconPath: o.hermesIcon,
      pick: { kind: 'hermes', entry: catalog.hermes },
    };
    const agents: PickItem[] = catalog.items.map((item) => ({
      label: plain(item.agent.name, 100),
      description: [`v${plain(item.agent.version, 64)}`, marks(item)].filter((s) => s !== '').join(' · '),
      detail: plain(`${item.agent.description} — ${howItRuns(item, platform)}`, 400),
      iconPath: found.get(item.agent.id) ?? new vscode.ThemeIcon('hubot'),
      pick: { kind: 'agent', item },
    }));
    const orphans: PickItem[] = catalog.installedOnly.map(({ definition, reason }) => ({
      label: plain(definition.name, 100),
      description: [definition.version !== undefined ? `v${plain(definition.version, 64)}` : '', vscode.l10n.t('installed · not in the registry')].filter((s) => s !== '').join(' · '),
      detail: plain(vscode.l10n.t('Still runs and can be removed; {0}.', reason), 400),
      iconPath: new vscode.ThemeIcon('warning'),
      pick: { kind: 'installedOnly', definition },
    }));
    qp.items = [
      hermes,
      { label: vscode.l10n.t('Registry agents'), kind: vscode.QuickPickItemKind.Separator },
      ...agents,
      ...(orphans.length > 0 ? [{ label: vscode.l10n.t('Installed, no longer in the registry'), kind: vscode.QuickPickItemKind.Separator }, ...orphans] : []),
    ];
  } catch (e) {
    qp.dispose();
    throw e;
  }
  qp.busy = false;
  try {
    return await chosen;
  } finally {
    qp.dispose();
  }
}

export type RegistryAction = 'update' | 'chat' | 'reinstall' | 'remove';

/** What to do with an agent that is already installed (`item` undefined: the registry no longer lists it). */
export async function pickAction(item: CatalogItem | undefined, installedDef: AgentDefinition): Promise<RegistryAction | undefined> {
  const installed = installedDef.version ?? '?';
  const change: (vscode.QuickPickItem & { action: RegistryAction })[] =
    item === undefined
      ? []
      : item.updateAvailable
        ? [{ label: vscode.l10n.t('$(arrow-up) Update to {0}', item.agent.version), description: vscode.l10n.t('installed: {0}', installed), action: 'update' }]
        : item.downgrade
          ? [{ label: vscode.l10n.t('$(arrow-down) Downgrade to {0}', item.agent.version), description: vscode.l10n.t('installed: {0}, the registry lists an older version', installed), action: 'update' }]
          : [{ label: vscode.l10n.t('$(sync) Reinstall {0}', item.agent.version), action: 'reinstall' }];
  const actions: (vscode.QuickPickItem & { action: RegistryAction })[] = [
    ...(item?.updateAvailable === true ? change : []),
    { label: vscode.l10n.t('$(comment-discussion) Start a chat'), action: 'chat' },
    ...(item?.updateAvailable === true ? [] : change),
    { label: vscode.l10n.t('$(trash) Remove'), description: vscode.l10n.t('removes its hermes.agents entry and installed files'), action: 'remove' },
  ];
  const pick = await vscode.window.showQuickPick(actions, { title: plain(`${installedDef.name} ${installed}`, 150) });
  return pick?.action;
}
