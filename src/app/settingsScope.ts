import { formatMessage, type Localize } from '../util/l10n';

/**
 * Where this window reads the agent commands (`hermes.agents`, `hermes.defaultAgent`) from.
 *
 * Both are `machine`-scoped, so a workspace can never choose what is spawned. In a remote window
 * (SSH, WSL, containers, Codespaces, tunnels — and code-server, whose workbench is a remote of its
 * server) VS Code reads them only from the **Remote** settings of the machine the extension runs on:
 * values in the local User settings are dropped there (VS Code `LOCAL_MACHINE_SCOPES` has no
 * `machine` nor `machine-overridable`). `ConfigurationTarget.Global` writes a `machine` setting to
 * the Remote settings in such a window, so writing with it lands where the value is read.
 */
export type AgentSettingsScope =
  | { readonly kind: 'user' }
  | {
      readonly kind: 'remote';
      /** `vscode.env.remoteName` (`ssh-remote`, `wsl`, `dev-container`, or code-server's `host:port`). */
      readonly remoteName: string;
      /** How the user knows it: "SSH", "WSL", "Dev Container", … */
      readonly label: string;
    };

const remoteLabels: Readonly<Record<string, string>> = {
  'ssh-remote': 'SSH',
  wsl: 'WSL',
  'dev-container': 'Dev Container',
  'attached-container': 'Container',
  codespaces: 'Codespaces',
  tunnel: 'Tunnel',
  'k8s-container': 'Kubernetes',
};

/** The scope for a window whose `vscode.env.remoteName` is `remoteName` (pure; tested with every kind). */
export function scopeFor(remoteName: string | undefined): AgentSettingsScope {
  if (remoteName === undefined || remoteName === '') {
    return { kind: 'user' };
  }
  return { kind: 'remote', remoteName, label: remoteLabels[remoteName] ?? remoteName };
}

/** "the Remote settings (SSH)" / "your User settings", for messages. */
export function scopeName(scope: AgentSettingsScope, t: Localize = formatMessage): string {
  return scope.kind === 'remote' ? t('the Remote settings ({0})', scope.label) : t('your User settings');
}
