import * as path from 'node:path';
import { isInside as isInsidePath } from '../util/paths';
import { RegistryError } from './registryErrors';

/** `path.posix` or `path.win32`: the guards take one so Windows rules are tested on any machine. */
export type PathApi = typeof path.posix;

/** Windows and macOS file systems fold case by default: `C:\A` and `c:\a` are one folder. */
export function foldsCase(platform: NodeJS.Platform): boolean {
  return platform === 'win32' || platform === 'darwin';
}

/** Whether `candidate` is `root` or below it (both absolute, compared after normalizing), on the volume `p` describes. */
export function isInside(root: string, candidate: string, p: PathApi, caseInsensitive: boolean): boolean {
  return isInsidePath(root, candidate, { flavor: p.sep === '\\' ? 'win32' : 'posix', caseInsensitive });
}

const windowsReserved = /^(con|prn|aux|nul|com[0-9]|lpt[0-9])(\..*)?$/i;

/**
 * Why an archive entry name (or a `cmd`) may not be written below the install folder, or undefined
 * when it is a plain relative path. Refused: empty names, NUL, absolute paths (`/x`, `\x`, `C:x`,
 * `C:\x`, `\\server\share`), any `..` segment (with either separator, on every platform: an archive
 * made on one system is extracted on another), and on Windows `:` (alternate data streams, drive
 * letters) and reserved device names.
 */
export function unsafeEntryReason(name: string, p: PathApi): string | undefined {
  if (name === '' || name.includes('\0')) {
    return 'empty or NUL in the name';
  }
  const windows = p.sep === '\\';
  if (name.startsWith('/') || name.startsWith('\\') || /^[a-zA-Z]:/.test(name) || p.isAbsolute(name)) {
    return 'absolute path';
  }
  const segments = name.split(/[\\/]+/);
  if (segments.includes('..')) {
    return 'parent-directory segment ("..")';
  }
  if (windows && segments.some((s) => s.includes(':') || windowsReserved.test(s))) {
    return 'Windows drive, stream or device name';
  }
  return undefined;
}

/** `root` joined with the relative `name`, or a {@link RegistryError} `unsafeArchive` when it would escape. */
export function entryTarget(root: string, name: string, p: PathApi, caseInsensitive: boolean): string {
  const reason = unsafeEntryReason(name, p);
  const target = p.join(root, ...name.split(/[\\/]+/).filter((s) => s !== '' && s !== '.'));
  if (reason !== undefined || !isInside(root, target, p, caseInsensitive)) {
    throw new RegistryError('unsafeArchive', `The archive was refused: entry "${name}" would be written outside the install folder (${reason ?? 'escapes the folder'}).`);
  }
  return target;
}

/**
 * Where a link entry at `linkName` pointing to `linkTarget` resolves, refused with `unsafeArchive`
 * unless it stays inside `root`. Checked on the names (before anything is written); the real
 * paths are checked again after extraction, since links can chain.
 */
export function linkTarget(root: string, linkName: string, target: string, p: PathApi, caseInsensitive: boolean): string {
  const from = p.dirname(entryTarget(root, linkName, p, caseInsensitive));
  const resolved = p.resolve(from, target);
  if (target === '' || target.includes('\0') || p.isAbsolute(target) || /^[a-zA-Z]:/.test(target) || !isInside(root, resolved, p, caseInsensitive)) {
    throw new RegistryError('unsafeArchive', `The archive was refused: link "${linkName}" points outside the install folder ("${target}").`);
  }
  return resolved;
}

/**
 * The absolute path of a binary target's `cmd` (`./agent`, `bin/agent`, `agent.exe`) inside
 * `installDir`, or a {@link RegistryError} `cmdOutside`. The file itself is checked after extraction.
 */
export function cmdPath(installDir: string, cmd: string, p: PathApi, caseInsensitive: boolean): string {
  const reason = unsafeEntryReason(cmd, p);
  const target = p.join(installDir, ...cmd.split(/[\\/]+/).filter((s) => s !== '' && s !== '.'));
  if (reason !== undefined || target === p.normalize(installDir) || !isInside(installDir, target, p, caseInsensitive)) {
    throw new RegistryError('cmdOutside', `The registry entry was refused: its command "${cmd}" is not inside the install folder (${reason ?? 'names the folder itself'}).`);
  }
  return target;
}

/** Where registry installs live, below the extension's global storage folder. */
export interface RegistryLayout {
  readonly root: string;
  /** `agents/<id>/<version>/`: one folder per installed version; present = complete. */
  readonly agentsDir: string;
  /** Downloads and staging folders (same file system as `agentsDir`, so moves are atomic renames). */
  readonly tmpDir: string;
  /** The last good registry index. */
  readonly cacheFile: string;
  readonly iconsDir: string;
}

export function registryLayout(storageDir: string): RegistryLayout {
  const root = path.join(storageDir, 'registry');
  return {
    root,
    agentsDir: path.join(root, 'agents'),
    tmpDir: path.join(root, 'tmp'),
    cacheFile: path.join(root, 'registry-cache.json'),
    iconsDir: path.join(root, 'icons'),
  };
}

/** The folder of one installed version (id and version are single safe segments by the schema). */
export function versionDir(layout: RegistryLayout, id: string, version: string): string {
  for (const segment of [id, version]) {
    if (unsafeEntryReason(segment, path) !== undefined || /[\\/]/.test(segment) || segment === '.' || segment === '..') {
      throw new RegistryError('invalidEntry', `"${segment}" cannot name an install folder.`);
    }
  }
  return path.join(layout.agentsDir, id, version);
}
