/** What a PATH lookup needs to know about the machine (all injectable, so tests can be Windows). */
export interface PathLookup {
  readonly platform: NodeJS.Platform;
  readonly PATH: string | undefined;
  readonly PATHEXT?: string | undefined;
  readonly isFile: (p: string) => boolean;
  /** Path join for the platform (`path.win32.join` to simulate Windows). */
  readonly join: (...parts: string[]) => string;
}

/**
 * Where `name` resolves on PATH, or undefined. On Windows a name without an extension is tried
 * with each PATHEXT extension only: npm puts an extensionless `sh` script next to every `.cmd`
 * shim, and `CreateProcess` cannot run it.
 */
export function findOnPath(name: string, o: PathLookup): string | undefined {
  const windows = o.platform === 'win32';
  const dirs = (o.PATH ?? '').split(windows ? ';' : ':').filter((d) => d !== '');
  const exts = !windows ? [''] : hasExtension(name) ? ['', ...pathExtensions(o.PATHEXT)] : pathExtensions(o.PATHEXT);
  for (const dir of dirs) {
    for (const ext of exts) {
      const candidate = o.join(dir.replace(/^"(.*)"$/, '$1'), name + ext);
      if (o.isFile(candidate)) {
        return candidate;
      }
    }
  }
  return undefined;
}

/** PATHEXT's extensions, lower-cased (Windows compares them case-insensitively). */
export function pathExtensions(PATHEXT: string | undefined): string[] {
  return (PATHEXT ?? '.COM;.EXE;.BAT;.CMD')
    .split(';')
    .filter((e) => e !== '')
    .map((e) => e.toLowerCase());
}

/**
 * The file Windows would run for `command`: a bare name is looked up on PATH with PATHEXT (npm
 * installs agents as `claude-agent-acp.cmd`, which `CreateProcess` never finds by its bare name); a
 * path without an extension gets the first PATHEXT extension that exists. Elsewhere, and when
 * nothing matches, the command is returned as given (the spawn then reports ENOENT as usual).
 */
export function resolveWindowsCommand(command: string, o: PathLookup): string {
  if (!/[\\/]/.test(command)) {
    return findOnPath(command, o) ?? command;
  }
  if (hasExtension(command) && o.isFile(command)) {
    return command;
  }
  for (const ext of pathExtensions(o.PATHEXT)) {
    if (o.isFile(command + ext)) {
      return command + ext;
    }
  }
  return command;
}

function hasExtension(name: string): boolean {
  return /\.[^\\/.]+$/.test(name);
}
