import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { nulFields, type Git } from './git';

/**
 * The main checkout's uncommitted changes copied into a new worktree that starts from the same
 * `HEAD`: tracked changes (staged and unstaged) as one binary patch, untracked files (not ignored
 * ones) copied. The main checkout is left as it was. Returns the paths carried.
 */
export async function carryChanges(git: Git, repoRoot: string, worktree: string): Promise<string[]> {
  const carried: string[] = [];
  const changed = nulFields(await git.run(repoRoot, ['diff', '--name-only', '-z', 'HEAD']));
  if (changed.length > 0) {
    const patch = await git.run(repoRoot, ['diff', '--binary', '--full-index', 'HEAD']);
    await git.run(worktree, ['apply', '--binary', '--whitespace=nowarn', '-'], { input: patch });
    carried.push(...changed);
  }
  for (const rel of nulFields(await git.run(repoRoot, ['ls-files', '--others', '--exclude-standard', '-z']))) {
    if (rel.startsWith('.worktrees/')) {
      continue;
    }
    const from = path.join(repoRoot, ...rel.split('/'));
    const to = path.join(worktree, ...rel.split('/'));
    const stat = await fs.lstat(from).catch(() => undefined);
    if (stat?.isFile() !== true) {
      continue; // links and special files stay behind (a link could point anywhere)
    }
    await fs.mkdir(path.dirname(to), { recursive: true });
    await fs.copyFile(from, to);
    carried.push(rel);
  }
  return carried;
}
