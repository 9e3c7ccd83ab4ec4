import * as vscode from 'vscode';
import type { AgentDefinition } from '../../host/agentHost';
import { defaultLauncher } from '../../process/launcher';

export interface CheckResult {
  readonly command: string;
  readonly ok: boolean;
  readonly notFound: boolean;
  readonly output: string;
}

async function run(def: AgentDefinition, args: readonly string[], cwd: string): Promise<CheckResult> {
  const command = [def.command, ...args].join(' ');
  const r = await defaultLauncher().run({ command: def.command, args, cwd, env: def.env }, { timeoutMs: 60_000, maxOutputBytes: 1024 * 1024 });
  const why = r.timedOut ? 'timed out after 60 s' : r.exitCode !== null ? `exit code ${r.exitCode}` : `killed by ${r.signal ?? 'a signal'}`;
  return { command, ok: r.ok, notFound: r.notFound, output: r.output !== '' ? r.output : r.ok ? '' : why };
}

/**
 * "Check Installation": runs the agent's `--check` (Hermes: `hermes acp --check`) and `--version`
 * with the configured command and reports plainly what worked.
 */
export async function checkInstallation(def: AgentDefinition, cwd: string, out: vscode.LogOutputChannel): Promise<CheckResult[]> {
  const results = await Promise.all([run(def, [...def.args, '--check'], cwd), run(def, [...def.args, '--version'], cwd)]);
  for (const r of results) {
    out.info(`[check] ${r.command}: ${r.ok ? 'ok' : 'failed'}${r.output !== '' ? `\n${r.output}` : ''}`);
  }
  const [check, version] = results;
  if (check?.notFound === true) {
    const open = vscode.l10n.t('Open Settings');
    const choice = await vscode.window.showErrorMessage(
      vscode.l10n.t('`{0}` was not found on PATH. Install {1}, or set its full path in the "hermes.agents" setting.', def.command, def.name),
      open,
    );
    if (choice === open) {
      await vscode.commands.executeCommand('workbench.action.openSettings', 'hermes.agents');
    }
  } else if (check?.ok === true) {
    const v = version?.ok === true ? version.output.split('\n')[0] : undefined;
    void vscode.window.showInformationMessage(
      v !== undefined ? vscode.l10n.t('{0} is installed ({1}): {2}', def.name, v, check.output.split('\n')[0] ?? '') : vscode.l10n.t('{0} is installed: {1}', def.name, check.output),
    );
  } else {
    const show = vscode.l10n.t('Show Output');
    const choice = await vscode.window.showWarningMessage(
      vscode.l10n.t('`{0}` failed: {1}', check?.command ?? def.command, (check?.output ?? '').split('\n').slice(-1)[0] ?? ''),
      show,
    );
    if (choice === show) {
      out.show(true);
    }
  }
  return results;
}

/**
 * Runs an agent's `terminal`-type auth method (Hermes: `hermes acp --setup`) in a VS Code terminal
 * and resolves with its exit code when the terminal closes (undefined if the user closed it).
 */
export function runTerminalSetup(def: AgentDefinition, methodArgs: readonly string[], methodEnv: Readonly<Record<string, string>>, cwd: string): Promise<number | undefined> {
  const terminal = vscode.window.createTerminal({
    name: vscode.l10n.t('{0} setup', def.name),
    shellPath: def.command,
    shellArgs: [...def.args, ...methodArgs],
    cwd,
    env: { ...def.env, ...methodEnv },
  });
  terminal.show();
  return new Promise((resolve) => {
    const sub = vscode.window.onDidCloseTerminal((t) => {
      if (t === terminal) {
        sub.dispose();
        resolve(t.exitStatus?.code);
      }
    });
  });
}
