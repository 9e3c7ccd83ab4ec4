import { promises as fs } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { hostSemantics, isInside } from '../util/paths';
import type { Git } from './git';
import type { WorktreeRecord } from './worktreeRecords';
import { blobAt, treeChanges, workingTree } from './worktreeTree';

export type ConflictKind =
  /** Both sides changed the text: conflict markers written, the index holds base / yours / theirs (VS Code's merge editor opens on it). */
  | 'text'
  /** Both sides changed a binary file: yours kept, the worktree's written next to it as `<file>.<worktree name>`. */
  | 'binary'
  /** The worktree deleted a file you changed: yours kept. */
  | 'deleted-in-worktree';

export interface ApplyResult {
  /** Files written (or deleted) in the main checkout without a conflict, merged ones included. */
  readonly applied: readonly string[];
  readonly conflicts: readonly { readonly path: string; readonly kind: ConflictKind }[];
  /** Where the main checkout's previous content of every touched file was saved (nothing is lost). */
  readonly backup: string;
}

/**
 * "Apply to my checkout": the worktree's changes since its base — committed on its branch,
 * uncommitted and untracked alike — brought into the main checkout's working tree, file by file,
 * as a three-way merge of base, the main checkout's current file and the worktree's. A file the
 * main checkout did not change takes the worktree's version; one both changed is merged
 * (`git merge-file`), and a conflict leaves markers plus the index's three stages so VS Code offers
 * its merge editor. Before any file is touched its current content is copied under `backupRoot`.
 * The worktree and its branch are left as they are.
 */
export async function applyToCheckout(git: Git, record: WorktreeRecord, backupRoot: string): Promise<ApplyResult> {
  const tree = await workingTree(git, record.path);
  const changes = await treeChanges(git, record.path, record.base, tree);
  const root = record.repoRoot;
  const realRoot = await fs.realpath(root);
  const backup = path.join(backupRoot, `${record.name}-${Date.now()}`);
  const applied: string[] = [];
  const conflicts: { path: string; kind: ConflictKind }[] = [];
  for (const change of changes) {
    const target = path.join(root, ...change.path.split('/'));
    // A linked folder in the main checkout must not carry a write outside it.
    const parentReal = await fs.realpath(path.dirname(target)).catch(() => undefined);
    if (parentReal !== undefined && !isInside(realRoot, parentReal, hostSemantics())) {
      throw new Error(`${change.path} is reached through a link out of ${root}: not applied.`);
    }
    const ours = await readIfFile(target);
    const base = await blobAt(git, root, record.base, change.path);
    const theirs = await blobAt(git, record.path, tree, change.path);
    if (same(ours, theirs)) {
      continue;
    }
    if (ours !== undefined) {
      const saved = path.join(backup, ...change.path.split('/'));
      await fs.mkdir(path.dirname(saved), { recursive: true });
      await fs.writeFile(saved, ours);
    }
    if (same(ours, base)) {
      await put(target, theirs);
      applied.push(change.path);
    } else if (theirs === undefined) {
      conflicts.push({ path: change.path, kind: 'deleted-in-worktree' });
    } else if (isBinary(ours) || isBinary(base) || isBinary(theirs)) {
      await fs.writeFile(`${target}.${record.name}`, theirs);
      conflicts.push({ path: change.path, kind: 'binary' });
    } else {
      const merged = await mergeTexts(git, root, { ours: ours ?? Buffer.alloc(0), base: base ?? Buffer.alloc(0), theirs }, record.branch);
      await put(target, merged.text);
      if (merged.conflicts === 0) {
        applied.push(change.path);
      } else {
        await markConflicted(git, root, change.path, { base, ours, theirs });
        conflicts.push({ path: change.path, kind: 'text' });
      }
    }
  }
  return { applied, conflicts, backup };
}

async function mergeTexts(git: Git, cwd: string, t: { ours: Buffer; base: Buffer; theirs: Buffer }, branch: string): Promise<{ text: Buffer; conflicts: number }> {
  const dir = await fs.mkdtemp(path.join(os.tmpdir(), `hermes-acp-merge-${randomBytes(3).toString('hex')}-`));
  try {
    const files = { ours: path.join(dir, 'ours'), base: path.join(dir, 'base'), theirs: path.join(dir, 'theirs') };
    await Promise.all([fs.writeFile(files.ours, t.ours), fs.writeFile(files.base, t.base), fs.writeFile(files.theirs, t.theirs)]);
    const r = await git.probe(cwd, ['merge-file', '-p', '-L', 'my checkout', '-L', 'base', '-L', branch, files.ours, files.base, files.theirs]);
    if (r.exitCode === null || r.exitCode < 0 || r.exitCode > 127) {
      throw new Error(`git merge-file failed: ${r.stderr}`);
    }
    return { text: r.stdout, conflicts: r.exitCode };
  } finally {
    await fs.rm(dir, { recursive: true, force: true });
  }
}

/** The index's stages 1 (base), 2 (the main checkout's), 3 (the worktree's) for `file`: git and VS Code see a merge conflict. */
async function markConflicted(git: Git, root: string, file: string, t: { base: Buffer | undefined; ours: Buffer | undefined; theirs: Buffer }): Promise<void> {
  const lines: string[] = [];
  const stages: [1 | 2 | 3, Buffer | undefined][] = [[1, t.base], [2, t.ours], [3, t.theirs]];
  for (const [stage, content] of stages) {
    if (content !== undefined) {
      const id = await git.text(root, ['hash-object', '-w', '--stdin'], { input: content });
      lines.push(`100644 ${id} ${stage}\t${file}`);
    }
  }
  await git.run(root, ['update-index', '--force-remove', '--', file]);
  await git.run(root, ['update-index', '--index-info'], { input: `${lines.join('\n')}\n` });
}

async function readIfFile(p: string): Promise<Buffer | undefined> {
  const stat = await fs.lstat(p).catch(() => undefined);
  return stat?.isFile() === true ? fs.readFile(p) : undefined;
}

async function put(target: string, content: Buffer | undefined): Promise<void> {
  if (content === undefined) {
    await fs.rm(target, { force: true });
    return;
  }
  await fs.mkdir(path.dirname(target), { recursive: true });
  await fs.writeFile(target, content);
}

function same(a: Buffer | undefined, b: Buffer | undefined): boolean {
  return a === undefined || b === undefined ? a === b : a.equals(b);
}

function isBinary(b: Buffer | undefined): boolean {
  return b?.subarray(0, 8000).includes(0) === true;
}
