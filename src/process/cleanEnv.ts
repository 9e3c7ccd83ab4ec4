/**
 * The environment a child process gets: the user's environment minus what the extension host
 * added for itself, plus what the caller (the agent definition, a terminal request) adds.
 *
 * VS Code starts its extension host with variables that are handles into its own processes, not
 * settings of the user: `ELECTRON_RUN_AS_NODE` (would make any Electron app the agent starts —
 * VS Code's own `code` CLI included — run as plain Node), the `VSCODE_*` family (IPC hooks and
 * handles, `VSCODE_PID`, `VSCODE_CWD`, `VSCODE_NLS_CONFIG`, `VSCODE_HANDLES_*`, …; VS Code
 * reserves the prefix for itself) and, when a debugger auto-attaches, a `NODE_OPTIONS` that
 * `--require`s js-debug's bootloader into every Node process (then also `VSCODE_INSPECTOR_OPTIONS`).
 * A `NODE_OPTIONS` the user set themselves is kept.
 */
const hostOwned = /^(ELECTRON_RUN_AS_NODE|ELECTRON_NO_ATTACH_CONSOLE|ELECTRON_NO_ASAR|VSCODE_.*)$/i;

/** True when `NODE_OPTIONS` was put there by the host (js-debug's auto-attach bootloader). */
export function hostInjectedNodeOptions(env: NodeJS.ProcessEnv): boolean {
  const value = env.NODE_OPTIONS;
  if (value === undefined || value === '') {
    return false;
  }
  return env.VSCODE_INSPECTOR_OPTIONS !== undefined || /js-debug|bootloader\.js/i.test(value);
}

/**
 * `base` without the host's own variables, then `added` on top. On Windows names are
 * case-insensitive (`Path` is `PATH`), so an added name replaces every spelling of it instead of
 * sitting next to it (which one a child would see is then up to the C runtime).
 */
export function cleanEnvironment(base: NodeJS.ProcessEnv, added: Readonly<Record<string, string>> | undefined, platform: NodeJS.Platform): Record<string, string> {
  const dropNodeOptions = hostInjectedNodeOptions(base);
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(base)) {
    if (value === undefined || hostOwned.test(name) || (dropNodeOptions && name.toUpperCase() === 'NODE_OPTIONS')) {
      continue;
    }
    env[name] = value;
  }
  for (const [name, value] of Object.entries(added ?? {})) {
    if (platform === 'win32') {
      for (const existing of Object.keys(env)) {
        if (existing.toUpperCase() === name.toUpperCase()) {
          delete env[existing];
        }
      }
    }
    env[name] = value;
  }
  return env;
}

/** The value of `name` in `env`, case-insensitively on Windows. */
export function envValue(env: Readonly<Record<string, string | undefined>>, name: string, platform: NodeJS.Platform): string | undefined {
  if (platform !== 'win32') {
    return env[name];
  }
  const key = Object.keys(env).find((k) => k.toUpperCase() === name.toUpperCase());
  return key !== undefined ? env[key] : undefined;
}
