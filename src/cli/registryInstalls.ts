import { existsSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { findOnPath, type PackageTool } from '../registry/launch';
import type { RegistryLayout } from '../registry/installPaths';
import { isObject } from '../util/json';

/**
 * Where the runner keeps what it installs from the ACP Registry: `HERMES_ACP_RUN_DATA_DIR`, else
 * `$XDG_DATA_HOME/hermes-acp-run` (default `~/.local/share/hermes-acp-run`). The extension installs
 * into VS Code's global storage, which is not known outside VS Code; the layout below it is the same
 * (`registry/agents/<id>/<version>/`, `registry/registry-cache.json`, `registry/tmp/`).
 */
export function dataDirectory(env: NodeJS.ProcessEnv = process.env): string {
  const own = env.HERMES_ACP_RUN_DATA_DIR;
  if (own !== undefined && path.isAbsolute(own)) {
    return own;
  }
  const xdg = env.XDG_DATA_HOME;
  return path.join(xdg !== undefined && path.isAbsolute(xdg) ? xdg : path.join(os.homedir(), '.local', 'share'), 'hermes-acp-run');
}

/**
 * The runner's record of one installed registry agent (what the extension keeps in `hermes.agents`
 * and its consents): the command it runs as, and the install plan's key (InstallPlan.consentKey:
 * id, version, archive URL and SHA-256 or package spec, command, environment). A registry listing
 * another plan is another install, and needs `--yes` again.
 */
export interface InstallRecord {
  readonly id: string;
  readonly name: string;
  readonly version: string;
  readonly kind: 'binary' | PackageTool;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  readonly consentKey: string;
  readonly installedAt: string;
}

function recordFile(layout: RegistryLayout, id: string): string {
  return path.join(layout.root, 'installed', `${id}.json`);
}

/** The record of `id`, if there is a usable one. */
export function readInstallRecord(layout: RegistryLayout, id: string): InstallRecord | undefined {
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(recordFile(layout, id), 'utf8'));
  } catch {
    return undefined;
  }
  if (!isObject(raw) || raw.id !== id || typeof raw.version !== 'string' || typeof raw.command !== 'string' || typeof raw.consentKey !== 'string' || !Array.isArray(raw.args) || !raw.args.every((a) => typeof a === 'string')) {
    return undefined;
  }
  const env = isObject(raw.env) ? Object.fromEntries(Object.entries(raw.env).filter((e): e is [string, string] => typeof e[1] === 'string')) : {};
  const kind = raw.kind === 'npx' || raw.kind === 'uvx' ? raw.kind : 'binary';
  return { id, name: typeof raw.name === 'string' ? raw.name : id, version: raw.version, kind, command: raw.command, args: raw.args, env, consentKey: raw.consentKey, installedAt: typeof raw.installedAt === 'string' ? raw.installedAt : '' };
}

/** Written to a temporary file and renamed: a run that stops half-way leaves the old record or none. */
export function writeInstallRecord(layout: RegistryLayout, record: InstallRecord): void {
  const file = recordFile(layout, record.id);
  mkdirSync(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(record, null, 2)}\n`);
  renameSync(tmp, file);
}

/** Whether what a record runs is still there: a binary's file (npx/uvx fetch their package themselves). */
export function recordUsable(record: InstallRecord): boolean {
  if (record.kind !== 'binary') {
    return true;
  }
  try {
    return statSync(record.command).isFile();
  } catch {
    return false;
  }
}

/** Which package runners are on PATH (the registry's choice of distribution depends on it). */
export function toolsOnPath(env: NodeJS.ProcessEnv = process.env): Record<PackageTool, boolean> {
  const lookup = (name: string): boolean =>
    findOnPath(name, { platform: process.platform, PATH: env.PATH, PATHEXT: env.PATHEXT, isFile: (p) => existsSync(p) && statSync(p).isFile(), join: (...parts) => path.join(...parts) }) !== undefined;
  return { npx: lookup('npx'), uvx: lookup('uvx') };
}
