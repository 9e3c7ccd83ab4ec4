import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { nulFields, type Git } from './git';

/** One file that differs between two trees: `A`dded, `M`odified, `D`eleted (renames as a delete and an add). */
export interface TreeChange {
  readonly status: 'A' | 'M' | 'D';
  /** `/`-separated, relative to the repository. */
  readonly path: string;
}

/**
 * The tree of a working folder as it is now — committed, staged, unstaged and untracked files,
 * ignored ones left out — written into the object store through a scratch index, so neither the
 * folder nor its index changes.
 */
export async function workingTree(git: Git, folder: string): Promise<string> {
  const index = path.join(os.tmpdir(), `hermes-acp-index-${process.pid}-${randomBytes(6).toString('hex')}`);
  const env = { GIT_INDEX_FILE: index };
  try {
    await git.run(folder, ['read-tree', 'HEAD'], { env });
    await git.run(folder, ['add', '-A', '--', '.', ':(exclude).worktrees'], { env });
    return await git.text(folder, ['write-tree'], { env });
  } finally {
    await fs.rm(index, { force: true });
  }
}

/** What changed from `from` to `to` (commits or trees). */
export async function treeChanges(git: Git, folder: string, from: string, to: string): Promise<TreeChange[]> {
  const fields = nulFields(await git.run(folder, ['diff', '--name-status', '-z', '--no-renames', from, to]));
  const out: TreeChange[] = [];
  for (let i = 0; i + 1 < fields.length; i += 2) {
    const s = fields[i]?.[0];
    const p = fields[i + 1] ?? '';
    out.push({ status: s === 'A' ? 'A' : s === 'D' ? 'D' : 'M', path: p });
  }
  return out;
}

/** The content of `path` in `treeish`, or undefined when it has none. */
export async function blobAt(git: Git, folder: string, treeish: string, file: string): Promise<Buffer | undefined> {
  const r = await git.probe(folder, ['cat-file', 'blob', `${treeish}:${file}`]);
  return r.ok ? r.stdout : undefined;
}
