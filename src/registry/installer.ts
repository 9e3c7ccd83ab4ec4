import { randomBytes } from 'node:crypto';
import { mkdir, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { archiveKind, checkLinks, prepareCmd, unpack } from './archive';
import { downloadToFile } from './download';
import { defaultExtractLimits } from './extractLimits';
import { foldsCase, versionDir, type RegistryLayout } from './installPaths';
import { binaryLaunch, npmSpec, npxLaunch, uvxLaunch, type DistributionChoice, type LaunchCommand } from './launch';
import { archiveUrl } from './installPlan';
import { checkNpmPackage, type CommandRunner } from './packageCheck';
import type { RegistryAgent } from './registryFormat';
import { throwIfAborted } from './registryErrors';

/** An agent ready to be written into `hermes.agents`. */
export interface InstalledAgent extends LaunchCommand {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly kind: DistributionChoice['kind'];
  /** The version folder of a binary install. */
  readonly installDir?: string;
}

export type InstallStep =
  | { readonly step: 'download'; readonly received: number; readonly total: number | undefined }
  | { readonly step: 'verify' }
  | { readonly step: 'extract' }
  | { readonly step: 'finish' }
  | { readonly step: 'checkPackage'; readonly spec: string };

export interface InstallOptions {
  readonly layout: RegistryLayout;
  readonly signal?: AbortSignal;
  readonly onProgress?: (step: InstallStep) => void;
  readonly platform?: NodeJS.Platform;
  /** Largest archive accepted (default 1 GiB). */
  readonly maxDownloadBytes?: number;
  readonly idleTimeoutMs?: number;
  /** Where the agent will run (npm reads the project's `.npmrc` there when checking an npx package). */
  readonly cwd?: string;
  /** Added to npm's environment when checking an npx package (tests: a loopback registry). */
  readonly env?: Readonly<Record<string, string>>;
  /** Runs `npm view` (the process launcher by default). */
  readonly runner?: CommandRunner;
}

/** Written into every version folder: where it came from, for the user and for support. */
export const manifestName = '.hermes-registry.json';

/** Staging folders older than this are leftovers of a crashed window, removed on the next install. */
const staleMs = 60 * 60 * 1000;

async function removeStale(tmpDir: string): Promise<void> {
  const now = Date.now();
  for (const name of await readdir(tmpDir).catch(() => [])) {
    const p = path.join(tmpDir, name);
    const info = await stat(p).catch(() => undefined);
    if (info !== undefined && now - info.mtimeMs > staleMs) {
      await rm(p, { recursive: true, force: true });
    }
  }
}

/**
 * Downloads, verifies and unpacks a binary target into `agents/<id>/<version>/`. Everything happens
 * in a staging folder first; only a complete, checked install is renamed into place (a reinstall of
 * the same version swaps folders, so a failure leaves the previous copy as it was).
 */
export async function installBinary(agent: RegistryAgent, choice: Extract<DistributionChoice, { kind: 'binary' }>, o: InstallOptions): Promise<InstalledAgent> {
  const { layout } = o;
  const target = choice.target;
  const caseInsensitive = foldsCase(o.platform ?? process.platform);
  // The URL as fetched; one whose path says one place and fetches another is refused (installPlan.ts).
  const url = archiveUrl(target.archive);
  const kind = archiveKind(url);
  const finalDir = versionDir(layout, agent.id, agent.version);
  await mkdir(layout.tmpDir, { recursive: true });
  await removeStale(layout.tmpDir);
  const tag = `${agent.id}-${agent.version}-${randomBytes(4).toString('hex')}`;
  const staging = path.join(layout.tmpDir, tag);
  const archiveFile = path.join(layout.tmpDir, `${tag}.download`);
  await mkdir(staging);
  try {
    const downloaded = await downloadToFile(url, archiveFile, {
      maxBytes: o.maxDownloadBytes ?? 1024 * 1024 * 1024,
      ...(target.sha256 !== undefined ? { sha256: target.sha256 } : {}),
      ...(o.signal !== undefined ? { signal: o.signal } : {}),
      ...(o.idleTimeoutMs !== undefined ? { idleTimeoutMs: o.idleTimeoutMs } : {}),
      onProgress: (received, total) => o.onProgress?.({ step: 'download', received, total }),
    });
    o.onProgress?.({ step: 'verify' });
    throwIfAborted(o.signal);
    o.onProgress?.({ step: 'extract' });
    await unpack(archiveFile, staging, { kind, cmd: target.cmd, limits: defaultExtractLimits(caseInsensitive), ...(o.signal !== undefined ? { signal: o.signal } : {}) });
    await checkLinks(staging, caseInsensitive);
    const named = await prepareCmd(staging, target.cmd, caseInsensitive);
    const manifest = { id: agent.id, version: agent.version, platform: choice.platform, archive: url, sha256: downloaded.sha256, checksumFromRegistry: target.sha256 !== undefined, bytes: downloaded.bytes, cmd: target.cmd, installedAt: new Date().toISOString() };
    await writeFile(path.join(staging, manifestName), `${JSON.stringify(manifest, null, 2)}\n`);
    throwIfAborted(o.signal);
    o.onProgress?.({ step: 'finish' });
    await moveIntoPlace(staging, finalDir, layout.tmpDir);
    const launch = binaryLaunch(path.join(finalDir, path.relative(staging, named)), target);
    return { id: agent.id, name: agent.name, version: agent.version, kind: 'binary', installDir: finalDir, ...launch };
  } finally {
    await rm(archiveFile, { force: true });
    await rm(staging, { recursive: true, force: true });
  }
}

async function moveIntoPlace(staging: string, finalDir: string, tmpDir: string): Promise<void> {
  await mkdir(path.dirname(finalDir), { recursive: true });
  const previous = path.join(tmpDir, `replaced-${randomBytes(4).toString('hex')}`);
  let hadPrevious = false;
  try {
    await rename(finalDir, previous);
    hadPrevious = true;
  } catch {
    // nothing installed at this version yet
  }
  try {
    await rename(staging, finalDir);
  } catch (e) {
    if (hadPrevious) {
      await rename(previous, finalDir);
    }
    throw e;
  }
  if (hadPrevious) {
    await rm(previous, { recursive: true, force: true });
  }
}

/**
 * `npx`/`uvx` agents are fetched by their runner on first start: installing records the command.
 * An npx package is checked first: its exact spec must resolve on the registry the user's npm uses
 * (packageCheck.ts). uv has no such query; the caller starts a fresh uvx agent once instead
 * (uvx resolves and fetches the package, and the agent must answer `initialize`).
 */
export async function packageAgent(agent: RegistryAgent, choice: Exclude<DistributionChoice, { kind: 'binary' }>, o: Pick<InstallOptions, 'cwd' | 'env' | 'runner' | 'signal' | 'onProgress'> = {}): Promise<InstalledAgent> {
  const launch = choice.kind === 'npx' ? npxLaunch(choice.dist) : uvxLaunch(choice.dist);
  if (choice.kind === 'npx') {
    const spec = npmSpec(choice.dist.package);
    o.onProgress?.({ step: 'checkPackage', spec });
    await checkNpmPackage(spec, { cwd: o.cwd ?? process.cwd(), ...(o.env !== undefined ? { env: o.env } : {}), ...(o.runner !== undefined ? { runner: o.runner } : {}), ...(o.signal !== undefined ? { signal: o.signal } : {}) });
  }
  return { id: agent.id, name: agent.name, version: agent.version, kind: choice.kind, ...launch };
}

/** Installs `agent` the way `choice` says. */
export function install(agent: RegistryAgent, choice: DistributionChoice, o: InstallOptions): Promise<InstalledAgent> {
  return choice.kind === 'binary' ? installBinary(agent, choice, o) : packageAgent(agent, choice, o);
}

/** Removes installed versions of `id` except `keep` (best effort: a running agent may hold files on Windows). */
export async function pruneVersions(layout: RegistryLayout, id: string, keep: readonly string[]): Promise<void> {
  const dir = path.dirname(versionDir(layout, id, '0.0.0'));
  for (const version of await readdir(dir).catch(() => [])) {
    if (!keep.includes(version)) {
      await rm(path.join(dir, version), { recursive: true, force: true }).catch(() => undefined);
    }
  }
  if ((await readdir(dir).catch(() => [])).length === 0) {
    await rm(dir, { recursive: true, force: true }).catch(() => undefined);
  }
}
