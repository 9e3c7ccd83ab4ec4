import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { canonicalize, locateInRoots } from '../permissions/canonicalPath';
import { nodePermissionFs } from '../permissions/nodeFs';
import { hostSemantics, type PathSemantics } from '../util/paths';

export const includeFileName = '.worktreeinclude';

export interface IncludeResult {
  /** Entries copied, as written in the file. */
  readonly copied: readonly string[];
  /** Entries skipped, each with why (outside the repository, a symlink escape, missing, …). */
  readonly skipped: readonly string[];
}

/**
 * Copies what `<repo>/.worktreeinclude` lists (one path per line, relative to the repository;
 * `#` comments; the ignored files a worktree would lack, such as `.env` or a local config) into a
 * new worktree. Each entry passes the permission layer's path checks (`canonicalize`: symlinks
 * resolved name by name, `..` applied after them, dangling links and extra hard links refused) and
 * must land inside the repository and outside `.git` and `.worktrees`; links inside a copied folder
 * are kept only when they resolve inside the repository. Nothing already in the worktree is overwritten.
 */
export async function copyWorktreeIncludes(repoRoot: string, worktree: string, sem: PathSemantics = hostSemantics()): Promise<IncludeResult> {
  let text: string;
  try {
    text = await fs.readFile(path.join(repoRoot, includeFileName), 'utf8');
  } catch {
    return { copied: [], skipped: [] };
  }
  const realRoot = await fs.realpath(repoRoot);
  const copied: string[] = [];
  const skipped: string[] = [];
  for (const raw of text.split(/\r?\n/)) {
    const entry = raw.trim();
    if (entry === '' || entry.startsWith('#')) {
      continue;
    }
    const why = await copyEntry(entry, realRoot, worktree, sem);
    if (why === undefined) {
      copied.push(entry);
    } else {
      skipped.push(`${entry}: ${why}`);
    }
  }
  return { copied, skipped };
}

async function copyEntry(entry: string, realRoot: string, worktree: string, sem: PathSemantics): Promise<string | undefined> {
  if (path.isAbsolute(entry) || /^[a-z]:/i.test(entry) || entry.startsWith('~')) {
    return 'only paths relative to the repository are copied';
  }
  const c = canonicalize(entry, { cwd: realRoot, home: undefined, semantics: sem, fs: nodePermissionFs });
  if ('problem' in c) {
    return c.problem;
  }
  const rel = locateInRoots(c.canonical, [realRoot], sem);
  if (rel === undefined || rel === '') {
    return `it resolves to ${c.canonical}, outside the repository`;
  }
  const first = rel.split('/')[0] ?? '';
  if (first === '.git' || first === '.worktrees') {
    return `it names ${first}, which is never copied`;
  }
  const source = c.canonical;
  const target = path.join(worktree, ...rel.split('/'));
  let stat;
  try {
    stat = await fs.stat(source);
  } catch {
    return 'not found';
  }
  if (await exists(target)) {
    return 'already in the worktree (left as it is)';
  }
  await fs.mkdir(path.dirname(target), { recursive: true });
  if (stat.isDirectory()) {
    await copyTree(source, target, realRoot, sem);
  } else if (stat.isFile()) {
    await fs.copyFile(source, target);
  } else {
    return 'not a file or folder';
  }
  return undefined;
}

/** A folder copied file by file; a link is recreated only if it resolves inside the repository. */
async function copyTree(from: string, to: string, realRoot: string, sem: PathSemantics): Promise<void> {
  await fs.mkdir(to, { recursive: true });
  for (const d of await fs.readdir(from, { withFileTypes: true })) {
    const s = path.join(from, d.name);
    const t = path.join(to, d.name);
    if (d.isSymbolicLink()) {
      const real = await fs.realpath(s).catch(() => undefined);
      if (real !== undefined && locateInRoots(real, [realRoot], sem) !== undefined) {
        await fs.symlink(await fs.readlink(s), t);
      }
    } else if (d.isDirectory()) {
      await copyTree(s, t, realRoot, sem);
    } else if (d.isFile()) {
      await fs.copyFile(s, t);
    }
  }
}

/** Whether something (a file, folder or link, even a dangling one) is at `p`. */
export async function exists(p: string): Promise<boolean> {
  try {
    await fs.lstat(p);
    return true;
  } catch {
    return false;
  }
}
