import { comparisonKey, fileUriToPath, pathApi, type PathSemantics } from '../util/paths';
import type { PermissionFs } from './types';

// The path semantics live in src/util/paths.ts (one helper for fs/*, permissions, changes); the
// permission layer's callers import them from here as before.
export { comparisonKey, hostSemantics, pathApi } from '../util/paths';

export type Canonical = { readonly canonical: string } | { readonly problem: string };

export interface CanonicalInput {
  readonly cwd: string;
  readonly home: string | undefined;
  readonly semantics: PathSemantics;
  readonly fs: PermissionFs;
}

/**
 * The absolute real path a tool would touch for `raw`: `file:` URIs and `~` expanded, resolved
 * against the session's cwd, then walked name by name the way the OS does — each existing prefix
 * replaced by its real path BEFORE the next `..` applies (`src/link/..` is the parent of the
 * link's target, not `src`), and names past the longest existing prefix appended as written (a
 * new file inside a symlinked folder lands where the link points). What cannot be worked out is a
 * problem, never a guess: a dangling symlink, an unreadable folder, `~user`, other URI schemes.
 */
export function canonicalize(raw: string, input: CanonicalInput): Canonical {
  const p = pathApi(input.semantics);
  if (raw === '' || raw.includes('\0')) {
    return { problem: `unusable path ${JSON.stringify(raw)}` };
  }
  let value = raw;
  if (/^file:\/\//i.test(value)) {
    const fromUri = fileUriToPath(value, input.semantics);
    if (fromUri === undefined) {
      return { problem: `unusable file URI ${raw}` };
    }
    value = fromUri;
  } else if (/^[a-z][a-z0-9+.-]+:\/\//i.test(value)) {
    return { problem: `${raw} is not a file path` };
  }
  if (value === '~' || /^~[\\/]/.test(value)) {
    if (input.home === undefined) {
      return { problem: `${raw}: the home folder is unknown` };
    }
    value = p.join(input.home, value.slice(1));
  } else if (value.startsWith('~')) {
    return { problem: `${raw}: another user's home folder` };
  }
  if (input.semantics.flavor === 'win32') {
    if (/^[a-z]:(?![\\/])/i.test(value)) {
      return { problem: `${raw}: a path relative to another drive's current folder` };
    }
    const cleaned = cleanWindowsPath(value);
    if (cleaned === undefined) {
      return { problem: `${raw}: a name made only of dots and spaces` };
    }
    value = cleaned;
  }
  // Joined as text, not normalised: `..` must apply after the links before it are resolved.
  return walk(p.isAbsolute(value) ? value : `${input.cwd}${p.sep}${value}`, input);
}

/**
 * Win32 path normalisation drops trailing dots and spaces of every name and reads `name:stream`
 * as the file `name` (NTFS alternate data streams); `\\?\` and `\\.\` prefixes address the same
 * drive paths. Apply the same folding so `.env.`, `.env::$DATA` and `\\?\C:\ws\.env` are `.env`.
 */
function cleanWindowsPath(value: string): string | undefined {
  const device = /^[\\/]{2}[?.][\\/](?=[a-z]:)/i.exec(value);
  const body = device !== null ? value.slice(device[0].length) : value;
  const drive = /^[a-z]:/i.exec(body)?.[0] ?? '';
  const parts = body.slice(drive.length).split(/[\\/]/);
  const out: string[] = [];
  for (const part of parts) {
    if (part === '' || part === '.' || part === '..') {
      out.push(part);
      continue;
    }
    const name = part.split(':')[0]?.replace(/[. ]+$/, '') ?? '';
    if (name === '') {
      return undefined;
    }
    out.push(name);
  }
  return drive + out.join('\\');
}

function errorCode(e: unknown): string {
  return typeof e === 'object' && e !== null && 'code' in e && typeof e.code === 'string' ? e.code : 'error';
}

function walk(absolute: string, input: CanonicalInput): Canonical {
  const p = pathApi(input.semantics);
  const root = p.parse(absolute).root;
  const names = absolute.slice(root.length).split(input.semantics.flavor === 'win32' ? /[\\/]/ : '/');
  let current = root;
  let missing = false;
  for (const name of names) {
    if (name === '' || name === '.') {
      continue;
    }
    if (name === '..') {
      current = p.dirname(current);
      continue;
    }
    const next = p.join(current, name);
    if (!missing) {
      try {
        current = input.fs.realpath(next);
        continue;
      } catch (e) {
        const code = errorCode(e);
        if (code !== 'ENOENT' && code !== 'ENOTDIR') {
          return { problem: `cannot resolve ${next} (${code})` };
        }
        if (code === 'ENOENT' && input.fs.lexists(next)) {
          // It exists but cannot be followed: a dangling symlink, whose target a write would create.
          return { problem: `${next} is a symbolic link to a missing target` };
        }
        missing = true;
      }
    }
    current = next;
  }
  if (!missing && (input.fs.linkCount?.(current) ?? 1) > 1) {
    // The same file under another name, possibly outside the workspace (WorkspaceBoundary refuses these too).
    return { problem: `${current} has other hard links: the same file may also be elsewhere` };
  }
  return { canonical: current };
}

/**
 * `target`'s path inside the workspace folder holding it (the innermost one), `/`-separated, or
 * undefined when no folder holds it. Both sides are canonical, so a prefix test of the comparison
 * keys is exact: no `..` is left to climb out.
 */
export function locateInRoots(target: string, roots: readonly string[], sem: PathSemantics): string | undefined {
  const key = comparisonKey(target, sem);
  const slashed = sem.flavor === 'win32' ? target.replace(/\\/g, '/') : target;
  // Lower-casing can change a string's length (rare Unicode letters): then cut the key itself.
  const original = slashed.length === key.length ? slashed : key;
  let best: { rootLength: number; relative: string } | undefined;
  for (const root of roots) {
    const rootKey = comparisonKey(root, sem);
    const prefix = rootKey.endsWith('/') ? rootKey : `${rootKey}/`;
    let relative: string | undefined;
    if (key === rootKey) {
      relative = '';
    } else if (key.startsWith(prefix)) {
      relative = original.slice(prefix.length);
    }
    if (relative !== undefined && (best === undefined || rootKey.length > best.rootLength)) {
      best = { rootLength: rootKey.length, relative };
    }
  }
  return best?.relative;
}
