import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { AgentDefinition } from '../../host/agentHost';
import { notificationLabel } from '../../util/displayText';
import type { Configuration } from '../configuration';
import { scopeFor, type AgentSettingsScope } from '../../app/settingsScope';

/** Where this window reads agent commands (see settingsScope.ts). */
export function agentSettingsScope(): AgentSettingsScope {
  return scopeFor(vscode.env.remoteName);
}

/**
 * Opens the settings editor on exactly the scope agent commands are read from, filtered to
 * `hermes.agents`: Remote in a remote window, User otherwise.
 */
export async function openAgentSettings(kind: AgentSettingsScope['kind'] = agentSettingsScope().kind): Promise<void> {
  const args = { query: 'hermes.agents' };
  // The workbench registers "Open Remote Settings" only in remote windows.
  if (kind === 'remote' && (await vscode.commands.getCommands(true)).includes('workbench.action.openRemoteSettings')) {
    await vscode.commands.executeCommand('workbench.action.openRemoteSettings', args);
    return;
  }
  await vscode.commands.executeCommand('workbench.action.openGlobalSettings', args);
}

/** Why `file` cannot be an agent's executable, or undefined when it can. */
export async function executableProblem(file: string, platform: NodeJS.Platform = process.platform): Promise<string | undefined> {
  const p = platform === 'win32' ? path.win32 : path.posix;
  if (!p.isAbsolute(file)) {
    return vscode.l10n.t('Give the full path of the executable.');
  }
  try {
    const stat = await fs.promises.stat(file);
    if (!stat.isFile()) {
      return vscode.l10n.t('{0} is not a file.', file);
    }
    if (platform !== 'win32') {
      await fs.promises.access(file, fs.constants.X_OK);
    }
    return undefined;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return code === 'EACCES' ? vscode.l10n.t('{0} is not executable.', file) : vscode.l10n.t('{0} does not exist on this machine.', file);
  }
}

/** Executables named like the agent's command on PATH and in ~/.local/bin, first found first. */
async function candidates(command: string): Promise<string[]> {
  const name = path.basename(command);
  const names = process.platform === 'win32' ? [name, `${name}.exe`, `${name}.cmd`] : [name];
  const dirs = [...(process.env.PATH ?? '').split(path.delimiter), path.join(os.homedir(), '.local', 'bin')].filter((d) => d !== '');
  const found: string[] = [];
  for (const dir of dirs) {
    for (const n of names) {
      const file = path.join(dir, n);
      if (!found.includes(file) && (await executableProblem(file)) === undefined) {
        found.push(file);
      }
    }
  }
  return found;
}

type Choice = vscode.QuickPickItem & { readonly file?: string; readonly how?: 'browse' | 'type' };

/** Asks for the executable: one found on this machine, a file picked in the dialog, or a typed path. */
async function pickExecutable(def: AgentDefinition, scope: AgentSettingsScope): Promise<string | undefined> {
  const machine = scope.kind === 'remote' ? vscode.l10n.t('the remote machine ({0})', scope.label) : vscode.l10n.t('this machine');
  const found = await candidates(def.command);
  const items: Choice[] = [
    ...found.map((file) => ({ label: file, description: vscode.l10n.t('found on {0}', machine), file })),
    { label: vscode.l10n.t('Browse…'), description: vscode.l10n.t('pick the file on {0}', machine), how: 'browse' as const },
    { label: vscode.l10n.t('Enter the path…'), how: 'type' as const },
  ];
  const choice = await vscode.window.showQuickPick(items, {
    title: vscode.l10n.t('Set Up {0}: which executable runs `{1}`?', def.name, [def.command, ...def.args].join(' ')),
    placeHolder: vscode.l10n.t('The agent runs on {0}; the path is saved for this machine only.', machine),
  });
  if (choice?.file !== undefined) {
    return choice.file;
  }
  if (choice?.how === 'browse') {
    const uris = await vscode.window.showOpenDialog({ canSelectFiles: true, canSelectFolders: false, canSelectMany: false, openLabel: vscode.l10n.t('Use for {0}', def.name) });
    return uris?.[0]?.fsPath;
  }
  if (choice?.how === 'type') {
    return vscode.window.showInputBox({
      title: vscode.l10n.t('Set Up {0}', def.name),
      prompt: vscode.l10n.t('Full path of the executable on {0} (started as: <path> {1})', machine, def.args.join(' ')),
      value: path.isAbsolute(def.command) ? def.command : '',
      validateInput: (value) => executableProblem(value.trim()),
    });
  }
  return undefined;
}

/**
 * "Set Up Agent…": asks where the agent's executable is and writes it to `hermes.agents` in the
 * scope this window reads (Remote settings in a remote window). The workspace cannot take part:
 * the value comes from the user, the setting stays `machine`-scoped. Returns the saved definition.
 */
export async function setUpAgent(config: Configuration, def: AgentDefinition): Promise<AgentDefinition | undefined> {
  if (def.demo === true) {
    void vscode.window.showInformationMessage(vscode.l10n.t('The demo agent is built in; it needs no setup.'));
    return undefined;
  }
  const scope = agentSettingsScope();
  const picked = (await pickExecutable(def, scope))?.trim();
  if (picked === undefined || picked === '') {
    return undefined;
  }
  const problem = await executableProblem(picked);
  if (problem !== undefined) {
    void vscode.window.showErrorMessage(notificationLabel(problem, 500));
    return undefined;
  }
  const next: AgentDefinition = { ...def, command: picked };
  try {
    await config.saveAgent(next);
  } catch (e) {
    void vscode.window.showErrorMessage(vscode.l10n.t('Could not save the setting: {0}', notificationLabel(e instanceof Error ? e.message : String(e), 500)));
    return undefined;
  }
  const where = scope.kind === 'remote' ? vscode.l10n.t('Remote settings ({0})', scope.label) : vscode.l10n.t('User settings');
  void vscode.window.showInformationMessage(vscode.l10n.t('{0} now starts {1} (saved in {2}, "hermes.agents").', def.name, notificationLabel(picked, 300), where));
  return next;
}
