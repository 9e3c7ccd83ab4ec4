export { findOnPath, type PathLookup } from '../process/commandLookup';
import type { BinaryTarget, PackageDistribution, PlatformKey, RegistryAgent } from './registryFormat';

/** This machine as a registry platform key; undefined where the registry has none (e.g. FreeBSD). */
export function platformKey(platform: NodeJS.Platform = process.platform, arch: string = process.arch): PlatformKey | undefined {
  const os = platform === 'darwin' ? 'darwin' : platform === 'linux' ? 'linux' : platform === 'win32' ? 'windows' : undefined;
  const cpu = arch === 'arm64' ? 'aarch64' : arch === 'x64' ? 'x86_64' : undefined;
  return os !== undefined && cpu !== undefined ? `${os}-${cpu}` : undefined;
}

export type PackageTool = 'npx' | 'uvx';

/** How an agent would be run here. */
export type DistributionChoice =
  | { readonly kind: 'binary'; readonly platform: PlatformKey; readonly target: BinaryTarget }
  | { readonly kind: PackageTool; readonly dist: PackageDistribution; readonly toolMissing: boolean };

/**
 * Which distribution to use on `platform`: a binary for it (no runtime needed, a pinned archive),
 * else `npx` or `uvx` whose tool is on PATH, else the first package kind with `toolMissing` set so
 * the user hears what to install. Undefined: nothing runs here.
 */
export function chooseDistribution(agent: RegistryAgent, platform: PlatformKey | undefined, tools: Readonly<Record<PackageTool, boolean>>): DistributionChoice | undefined {
  const target = platform !== undefined ? agent.distribution.binary?.[platform] : undefined;
  if (platform !== undefined && target !== undefined) {
    return { kind: 'binary', platform, target };
  }
  const packages = (['npx', 'uvx'] as const).flatMap((kind) => {
    const dist = agent.distribution[kind];
    return dist !== undefined ? [{ kind, dist, toolMissing: !tools[kind] }] : [];
  });
  return packages.find((p) => !p.toolMissing) ?? packages[0];
}

/**
 * Environment names a registry entry may not set: they would change what npx/uvx fetch, which
 * loader runs, or where the process looks for programs — beyond what the user consented to (the
 * registry's own CI drops a similar list, `AGENT_ENV_RESERVED_*` in `registry_utils.py`).
 */
const reservedEnv = /^(PATH|PATHEXT|HOME|USERPROFILE|COMSPEC|SYSTEMROOT|NODE_OPTIONS|NODE_PATH|NODE_EXTRA_CA_CERTS|PYTHONPATH|PYTHONHOME|SSL_CERT_FILE|SSL_CERT_DIR|REQUESTS_CA_BUNDLE|LD_.*|DYLD_.*|NPM_CONFIG_.*|UV_.*|PIP_.*)$/i;

export function filterEnv(env: Readonly<Record<string, string>>): { env: Record<string, string>; dropped: string[] } {
  const kept: Record<string, string> = {};
  const dropped: string[] = [];
  for (const [k, v] of Object.entries(env)) {
    if (reservedEnv.test(k) || k === '' || k.includes('=')) {
      dropped.push(k);
    } else {
      kept[k] = v;
    }
  }
  return { env: kept, dropped };
}

/** A command line for `hermes.agents`, plus the registry environment names that were refused. */
export interface LaunchCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly droppedEnv: readonly string[];
}

/**
 * A package tarball named by absolute path (a self-hosted registry) as an npm `file:` spec:
 * `npx <path>` would run the path itself as a command instead of installing it.
 */
export function npmSpec(pkg: string): string {
  return /^(\/|[a-zA-Z]:[\\/]|\\\\)/.test(pkg) && /\.(tgz|tar\.gz|tar)$/i.test(pkg) ? `file:${pkg}` : pkg;
}

/**
 * `npx --yes <package> [args]`, or `npx --yes --package <package> <cmd> [args]` (FORMAT.md).
 * `--yes`: there is no terminal to answer npx's "Ok to proceed?" — the user consented beforehand.
 */
export function npxLaunch(dist: PackageDistribution): LaunchCommand {
  const spec = npmSpec(dist.package);
  const head = dist.cmd !== undefined ? ['--yes', '--package', spec, dist.cmd] : ['--yes', spec];
  const { env, dropped } = filterEnv(dist.env);
  return { command: 'npx', args: [...head, ...dist.args], env, droppedEnv: dropped };
}

/** `uvx <package> [args]`, or `uvx --from <package> <cmd> [args]` (FORMAT.md). */
export function uvxLaunch(dist: PackageDistribution): LaunchCommand {
  const head = dist.cmd !== undefined ? ['--from', dist.package, dist.cmd] : [dist.package];
  const { env, dropped } = filterEnv(dist.env);
  return { command: 'uvx', args: [...head, ...dist.args], env, droppedEnv: dropped };
}

/** A binary target once installed: `cmdPath` is the checked absolute path of its `cmd`. */
export function binaryLaunch(cmdPath: string, target: BinaryTarget): LaunchCommand {
  const { env, dropped } = filterEnv(target.env);
  return { command: cmdPath, args: [...target.args], env, droppedEnv: dropped };
}

/** What to tell the user when the package runner of a distribution is not installed. */
export function missingToolMessage(tool: PackageTool): string {
  return tool === 'npx'
    ? '`npx` was not found on PATH. It comes with Node.js (18 or newer): install Node.js from https://nodejs.org or your package manager, then restart VS Code so it sees the new PATH.'
    : '`uvx` was not found on PATH. It comes with uv: install uv (https://docs.astral.sh/uv/getting-started/installation/, e.g. `pipx install uv`), then restart VS Code so it sees the new PATH.';
}

/** One line for the consent dialog and logs: the exact command that will run. */
export function describeCommand(cmd: Pick<LaunchCommand, 'command' | 'args'>): string {
  return [cmd.command, ...cmd.args].map((a) => (/^[\w@%+=:,./-]+$/.test(a) ? a : `'${a.replace(/'/g, `'\\''`)}'`)).join(' ');
}
