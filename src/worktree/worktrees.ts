import { promises as fs } from 'node:fs';
import * as path from 'node:path';
import { randomBytes } from 'node:crypto';
import { Git, GitError } from './git';
import { openRepository, resolveCommit, type Repository } from './repository';
import { copyWorktreeIncludes, exists, type IncludeResult } from './worktreeInclude';
import { WorktreeRecords, type WorktreeRecord } from './worktreeRecords';
import { treeChanges, workingTree, type TreeChange } from './worktreeTree';
import { carryChanges } from './carryChanges';
import { applyToCheckout, type ApplyResult } from './applyBack';

export const worktreesFolder = '.worktrees';
export const branchPrefix = 'hermes/';

export interface CreateWorktreeOptions {
  /** A folder inside the repository (the session's or the run's cwd). */
  readonly cwd: string;
  /** The worktree's name (`<repo>/.worktrees/<name>`, branch `hermes/<name>`); default `hermes-<8 hex>`, as Hermes' `-w`. */
  readonly name?: string;
  /** The branch or commit to start from; default `HEAD`. */
  readonly base?: string;
  /** Copy the main checkout's uncommitted changes (staged, unstaged, untracked) into the worktree. Only from `HEAD`. */
  readonly carryChanges?: boolean;
  readonly createdBy: 'chat' | 'runner';
  readonly sessionId?: string;
  readonly agent?: string;
}

export interface CreatedWorktree {
  readonly record: WorktreeRecord;
  readonly repo: Repository;
  /** Where the session works: the worktree, or the same sub-folder of it the cwd was in. */
  readonly cwd: string;
  readonly included: IncludeResult;
  /** Files carried over from the main checkout. */
  readonly carried: readonly string[];
}

/** A recorded worktree and how it stands now. */
export interface WorktreeStatus {
  readonly record: WorktreeRecord;
  /** The folder is gone (removed by hand): only its branch and record are left. */
  readonly missing: boolean;
  /** Files that differ from the base: committed on the branch, uncommitted or untracked in the worktree. */
  readonly changes: readonly TreeChange[];
  /** Commits on the branch since the base. */
  readonly commits: number;
}

export interface StaleWorktree {
  readonly status: WorktreeStatus;
  readonly reason: 'missing' | 'unchanged';
}

const namePattern = /^[A-Za-z0-9][A-Za-z0-9._-]{0,63}$/;

/**
 * Worktrees for sessions and runs (issue 40), in the layout Hermes' `-w` uses:
 * `<repo>/.worktrees/<name>` on a new branch `hermes/<name>`, `.worktrees/` kept out of the main
 * checkout's status through `.git/info/exclude` (no tracked file edited), `.worktreeinclude`
 * copied. Every worktree is recorded ({@link WorktreeRecords}) so it and its session survive a
 * reload; nothing is removed without {@link discard}.
 */
export class Worktrees {
  constructor(readonly git: Git = new Git()) {}

  repository(cwd: string): Promise<Repository> {
    return openRepository(this.git, cwd);
  }

  async create(o: CreateWorktreeOptions): Promise<CreatedWorktree> {
    const repo = await openRepository(this.git, o.cwd);
    const name = o.name ?? `hermes-${randomBytes(4).toString('hex')}`;
    if (!namePattern.test(name) || name.includes('..') || name.endsWith('.lock')) {
      throw new Error(`"${name}" cannot name a worktree: use letters, digits, ".", "_" and "-" (at most 64, no "..").`);
    }
    const base = o.base !== undefined ? await resolveCommit(this.git, repo, o.base) : repo.head;
    if (o.carryChanges === true && base !== repo.head) {
      throw new Error('Uncommitted changes can only be carried into a worktree that starts from HEAD.');
    }
    const branch = `${branchPrefix}${name}`;
    const wtPath = path.join(repo.root, worktreesFolder, name);
    if (await exists(wtPath)) {
      throw new Error(`${wtPath} already exists: pick another name.`);
    }
    if ((await this.git.probe(repo.root, ['rev-parse', '--verify', '--quiet', `refs/heads/${branch}`])).ok) {
      throw new Error(`The branch ${branch} already exists: pick another name.`);
    }
    await excludeWorktreesFolder(repo.commonDir);
    await this.git.run(repo.root, ['worktree', 'add', '--no-track', '-b', branch, wtPath, base]);
    const records = new WorktreeRecords(repo.commonDir);
    const record: WorktreeRecord = {
      name,
      path: wtPath,
      branch,
      base,
      repoRoot: repo.root,
      createdAt: Date.now(),
      createdBy: o.createdBy,
      ...(o.sessionId !== undefined ? { sessionId: o.sessionId } : {}),
      ...(o.agent !== undefined ? { agent: o.agent } : {}),
    };
    await records.write(record);
    const included = await copyWorktreeIncludes(repo.root, wtPath);
    const carried = o.carryChanges === true ? await carryChanges(this.git, repo.root, wtPath) : [];
    const cwd = repo.subdir === '' ? wtPath : path.join(wtPath, ...repo.subdir.split('/'));
    await fs.mkdir(cwd, { recursive: true });
    return { record, repo, cwd, included, carried };
  }

  /** Whether the checkout at `cwd` has uncommitted changes (staged, unstaged, untracked; `.worktrees/` aside). */
  async hasUncommittedChanges(cwd: string): Promise<boolean> {
    const out = await this.git.text(cwd, ['status', '--porcelain', '--untracked-files=normal']);
    return out.split('\n').some((l) => l.trim() !== '' && !l.slice(3).startsWith('.worktrees/'));
  }

  /** Updates a record (the chat binds its session to the worktree once the agent answered `session/new`). */
  async updateRecord(record: WorktreeRecord, patch: Partial<Pick<WorktreeRecord, 'sessionId' | 'agent'>>): Promise<WorktreeRecord> {
    const repo = await openRepository(this.git, record.repoRoot);
    const next = { ...record, ...patch };
    await new WorktreeRecords(repo.commonDir).write(next);
    return next;
  }

  /** Every recorded worktree of the repository `cwd` is in, with how it stands. */
  async list(cwd: string): Promise<{ worktrees: WorktreeStatus[]; problems: string[] }> {
    const repo = await openRepository(this.git, cwd);
    const { records, problems } = await new WorktreeRecords(repo.commonDir).list();
    const worktrees: WorktreeStatus[] = [];
    for (const record of records) {
      worktrees.push(await this.status(record));
    }
    return { worktrees, problems };
  }

  async status(record: WorktreeRecord): Promise<WorktreeStatus> {
    const branchTip = (await this.git.probe(record.repoRoot, ['rev-parse', '--verify', '--quiet', `refs/heads/${record.branch}`])).stdout.toString('utf8').trim();
    const commits = branchTip !== '' ? Number(await this.git.text(record.repoRoot, ['rev-list', '--count', `${record.base}..${branchTip}`])) : 0;
    if (!(await exists(record.path))) {
      const changes = branchTip !== '' ? await treeChanges(this.git, record.repoRoot, record.base, branchTip) : [];
      return { record, missing: true, changes, commits };
    }
    const tree = await workingTree(this.git, record.path);
    return { record, missing: false, changes: await treeChanges(this.git, record.path, record.base, tree), commits };
  }

  /**
   * Worktrees to offer for cleanup: their folder gone, or their session gone (`isLive` says no)
   * with nothing changed and nothing committed. Only listed: {@link discard} removes.
   */
  async stale(cwd: string, isLive: (record: WorktreeRecord) => boolean): Promise<StaleWorktree[]> {
    const { worktrees } = await this.list(cwd);
    const out: StaleWorktree[] = [];
    for (const status of worktrees) {
      if (status.missing) {
        out.push({ status, reason: 'missing' });
      } else if (!isLive(status.record) && status.changes.length === 0 && status.commits === 0) {
        out.push({ status, reason: 'unchanged' });
      }
    }
    return out;
  }

  /** Commits everything in the worktree (new files too) on its branch; returns the commit. */
  async keep(record: WorktreeRecord, message: string): Promise<string> {
    if (message.trim() === '') {
      throw new Error('A commit message is needed to keep the branch.');
    }
    await this.git.run(record.path, ['add', '-A']);
    if ((await this.git.probe(record.path, ['diff', '--cached', '--quiet'])).ok) {
      throw new Error(`Nothing to commit in ${record.path}: the worktree has no changes.`);
    }
    try {
      await this.git.run(record.path, ['commit', '--no-verify', '-q', '-F', '-'], { input: message });
    } catch (e) {
      if (e instanceof GitError && /user\.(name|email)|who you are/i.test(e.stderr)) {
        throw new Error(`git has no author identity for ${record.repoRoot}: set user.name and user.email (git config), then keep the branch again.`, { cause: e });
      }
      throw e;
    }
    return this.git.text(record.path, ['rev-parse', 'HEAD']);
  }

  /**
   * "Apply to my checkout" (see {@link applyToCheckout}); the main checkout's previous content of
   * every touched file is saved under `<git common dir>/hermes-acp/applied/`.
   */
  async apply(record: WorktreeRecord): Promise<ApplyResult> {
    const repo = await openRepository(this.git, record.repoRoot);
    return applyToCheckout(this.git, record, path.join(repo.commonDir, 'hermes-acp', 'applied'));
  }

  /**
   * A file as it was at the worktree's base (`path` repository-relative, `/`-separated), for the
   * review's diff editors; undefined when the base has no such file (added on the branch).
   */
  async baseContent(record: WorktreeRecord, relPath: string): Promise<Buffer | undefined> {
    const r = await this.git.probe(record.repoRoot, ['cat-file', 'blob', `${record.base}:${relPath}`]);
    return r.ok ? r.stdout : undefined;
  }

  /** What {@link discard} would lose: the files changed and the commits on the branch. Show it before asking. */
  async whatDiscardLoses(record: WorktreeRecord): Promise<WorktreeStatus> {
    return this.status(record);
  }

  /** Removes the worktree, its branch and its record. */
  async discard(record: WorktreeRecord): Promise<void> {
    if (await exists(record.path)) {
      await this.git.run(record.repoRoot, ['worktree', 'remove', '--force', '--force', record.path]);
    } else {
      await this.git.run(record.repoRoot, ['worktree', 'prune']);
    }
    await this.git.probe(record.repoRoot, ['branch', '-D', '--end-of-options', record.branch]);
    const repo = await openRepository(this.git, record.repoRoot);
    await new WorktreeRecords(repo.commonDir).remove(record.name);
  }
}

/** `/.worktrees/` in `<git common dir>/info/exclude`, once: the main checkout's status stays clean. */
export async function excludeWorktreesFolder(commonDir: string): Promise<void> {
  const file = path.join(commonDir, 'info', 'exclude');
  const line = `/${worktreesFolder}/`;
  let text = '';
  try {
    text = await fs.readFile(file, 'utf8');
  } catch {
    await fs.mkdir(path.dirname(file), { recursive: true });
  }
  if (text.split(/\r?\n/).some((l) => l.trim() === line || l.trim() === `${worktreesFolder}/`)) {
    return;
  }
  await fs.appendFile(file, `${text === '' || text.endsWith('\n') ? '' : '\n'}# Hermes ACP worktrees\n${line}\n`);
}
