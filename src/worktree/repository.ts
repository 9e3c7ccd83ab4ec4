import * as path from 'node:path';
import { GitError, WorktreeUnavailableError, type Git } from './git';

/** The repository a folder is in: its top-level folder, the shared git dir, the commit `HEAD` names. */
export interface Repository {
  /** The main checkout's top-level folder (also when `cwd` was inside one of its worktrees). */
  readonly root: string;
  /** `git rev-parse --git-common-dir`, absolute: where `info/exclude` and our records live. */
  readonly commonDir: string;
  /** The commit `HEAD` points at. */
  readonly head: string;
  /** The folder asked about, relative to {@link root} (`''` at the top): a run in `repo/sub` runs in `worktree/sub`. */
  readonly subdir: string;
}

/**
 * The repository `cwd` is in. Outside a repository, without git, with a git too old, or in a
 * repository without a commit yet: a {@link WorktreeUnavailableError} that says so.
 */
export async function openRepository(git: Git, cwd: string): Promise<Repository> {
  await git.checkVersion(cwd);
  let top: string;
  let common: string;
  try {
    [top, common] = (await git.text(cwd, ['rev-parse', '--show-toplevel', '--git-common-dir'])).split('\n') as [string, string];
  } catch (e) {
    if (e instanceof GitError) {
      throw new WorktreeUnavailableError(`${cwd} is not in a git repository: a worktree needs one (run "git init" and commit, or pick a folder inside a repository). git said: ${e.stderr.split('\n')[0] ?? ''}`, 'not-a-repository');
    }
    throw e;
  }
  if (top === undefined || top === '') {
    throw new WorktreeUnavailableError(`${cwd} is inside a git directory, not a working tree: a worktree needs a checkout.`, 'not-a-repository');
  }
  const commonDir = path.resolve(cwd, common);
  // From inside a linked worktree, the main checkout is the common dir's parent (a non-bare repository).
  const root = path.basename(commonDir) === '.git' ? path.dirname(commonDir) : top;
  let head: string;
  try {
    head = await git.text(cwd, ['rev-parse', '--verify', '--quiet', 'HEAD^{commit}']);
  } catch {
    throw new WorktreeUnavailableError(`The repository at ${top} has no commit yet: a worktree starts from one (commit first).`, 'no-commit');
  }
  const subdir = path.relative(top, cwd).split(path.sep).join('/');
  return { root, commonDir, head, subdir: subdir.startsWith('..') ? '' : subdir };
}

/** The commit `ref` names in `repo`, or a clear error. */
export async function resolveCommit(git: Git, repo: Repository, ref: string): Promise<string> {
  if (ref.startsWith('-')) {
    throw new Error(`"${ref}" is not a branch or commit name.`);
  }
  try {
    return await git.text(repo.root, ['rev-parse', '--verify', '--quiet', '--end-of-options', `${ref}^{commit}`]);
  } catch {
    throw new Error(`"${ref}" is not a branch or commit of ${repo.root}.`);
  }
}
