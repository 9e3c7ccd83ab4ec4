import * as path from 'node:path';

/**
 * Cross-platform path semantics in one place (issue 21): drive-letter case, separators, `file:`
 * URIs, and "is this path inside that folder" with the case folding of the volume. Used by the
 * client file system boundary (`src/acp/workspaceBoundary.ts`), the permission layer
 * (`src/permissions/canonicalPath.ts`), registry installs and the Changes view. Every function
 * takes the semantics explicitly, so tests run Windows (`path.win32`) and macOS (case folding) on
 * Linux.
 */

/**
 * How a machine's paths behave. `win32`: `\` and `/` both separate, drive letters, names are
 * case-insensitive, trailing dots and spaces of a name are ignored (NTFS). `caseInsensitive` alone
 * models macOS' default volumes.
 */
export interface PathSemantics {
  readonly flavor: 'posix' | 'win32';
  readonly caseInsensitive: boolean;
}

/** The semantics of the machine the extension (or runner) runs on. */
export function hostSemantics(platform: NodeJS.Platform = process.platform): PathSemantics {
  if (platform === 'win32') {
    return { flavor: 'win32', caseInsensitive: true };
  }
  // macOS' default volumes (APFS, HFS+) are case-insensitive; a case-sensitive volume only makes
  // callers ask more often, never less.
  return { flavor: 'posix', caseInsensitive: platform === 'darwin' };
}

export function pathApi(sem: PathSemantics): path.PlatformPath {
  return sem.flavor === 'win32' ? path.win32 : path.posix;
}

/**
 * One spelling of a Windows drive letter: upper case, as Node's `realpath` and `process.cwd()`
 * write it (VS Code's `Uri.fsPath` writes `c:\…`). Other paths are returned unchanged.
 */
export function normalizeDriveLetter(p: string, sem: PathSemantics): string {
  return sem.flavor === 'win32' && /^[a-z]:/.test(p) ? p.charAt(0).toUpperCase() + p.slice(1) : p;
}

/** The form two absolute paths are compared in: `/` separators, lower case where names are case-insensitive, no trailing separator. */
export function comparisonKey(absolute: string, sem: PathSemantics): string {
  const slashed = sem.flavor === 'win32' ? absolute.replace(/\\/g, '/') : absolute;
  const key = sem.caseInsensitive ? slashed.toLowerCase() : slashed;
  return key.length > 1 && key.endsWith('/') && !/^[a-z]:\/$/i.test(key) ? key.slice(0, -1) : key;
}

/** Whether two absolute paths name the same file on this volume (spelling only: no symlinks followed). */
export function samePath(a: string, b: string, sem: PathSemantics): boolean {
  const p = pathApi(sem);
  return comparisonKey(p.normalize(a), sem) === comparisonKey(p.normalize(b), sem);
}

/**
 * Whether `candidate` is `root` or below it. Both are normalised first (`..` applied as text: pass
 * real paths when symlinks matter); a sibling sharing a prefix (`/ws2` for `/ws`) is outside.
 */
export function isInside(root: string, candidate: string, sem: PathSemantics): boolean {
  const p = pathApi(sem);
  const rootKey = comparisonKey(p.resolve(root), sem);
  const key = comparisonKey(p.resolve(candidate), sem);
  return key === rootKey || key.startsWith(rootKey.endsWith('/') ? rootKey : `${rootKey}/`);
}

/**
 * The absolute path of a `file:` URI, or undefined when it is not a local file (another host on
 * POSIX, a malformed escape). Windows: `file:///c:/x` is `c:/x`, `file://server/share/x` a UNC path.
 */
export function fileUriToPath(uri: string, sem: PathSemantics): string | undefined {
  let url: URL;
  try {
    url = new URL(uri);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'file:') {
    return undefined;
  }
  let pathname: string;
  try {
    pathname = decodeURIComponent(url.pathname);
  } catch {
    return undefined;
  }
  if (sem.flavor === 'win32') {
    const local = /^\/[a-z]:/i.test(pathname) ? pathname.slice(1) : pathname;
    return url.hostname !== '' ? `\\\\${url.hostname}${local}` : local;
  }
  return url.hostname !== '' && url.hostname !== 'localhost' ? undefined : pathname;
}

/** The `file:` URI of an absolute path (`C:\a b` → `file:///C:/a%20b`, `\\srv\share\x` → `file://srv/share/x`). */
export function pathToFileUri(absolute: string, sem: PathSemantics): string {
  const slashed = sem.flavor === 'win32' ? absolute.replace(/\\/g, '/') : absolute;
  const unc = sem.flavor === 'win32' ? /^\/\/([^/]+)(\/.*)?$/.exec(slashed) : null;
  const encode = (s: string): string => s.split('/').map(encodeURIComponent).join('/').replace(/^\/([A-Za-z])%3A/, '/$1:');
  if (unc !== null) {
    return `file://${unc[1] ?? ''}${encode(unc[2] ?? '/')}`;
  }
  return `file://${encode(slashed.startsWith('/') ? slashed : `/${slashed}`)}`;
}
