import { capture, type Captured } from '../process/capture';
import { defaultLauncher, type ProcessLauncher } from '../process/launcher';

/** The oldest git this module drives: `git worktree remove` and `worktree list --porcelain` came in 2.17. */
export const minimumGitVersion: readonly [number, number] = [2, 17];

/** A git command that failed, with what git said. */
export class GitError extends Error {
  constructor(
    message: string,
    readonly args: readonly string[],
    readonly stderr: string,
    readonly exitCode: number | null,
  ) {
    super(message);
    this.name = 'GitError';
  }
}

/** Not a git repository, no git, or a git too old for worktrees: said before any agent starts. */
export class WorktreeUnavailableError extends Error {
  constructor(
    message: string,
    readonly reason: 'not-a-repository' | 'no-git' | 'old-git' | 'no-commit',
  ) {
    super(message);
    this.name = 'WorktreeUnavailableError';
  }
}

export interface GitRunOptions {
  readonly input?: Buffer | string;
  /** Extra environment (`GIT_INDEX_FILE` for a scratch index). */
  readonly env?: Readonly<Record<string, string>>;
  /** Exit codes that are answers, not failures (`git merge-file` returns the conflict count). */
  readonly okCodes?: readonly number[];
  readonly maxOutputBytes?: number;
}

/**
 * git, run through the one process launcher (src/process/launcher.ts) with prompts and pagers off.
 * `run` rejects with a {@link GitError} that quotes git's own message; `probe` returns the result.
 */
export class Git {
  constructor(
    private readonly launcher: ProcessLauncher = defaultLauncher(),
    private readonly command = 'git',
    private readonly timeoutMs = 60_000,
  ) {}

  probe(cwd: string, args: readonly string[], o: GitRunOptions = {}): Promise<Captured> {
    return capture(this.launcher, {
      command: this.command,
      // No pager, no colour, no fsmonitor daemons started on the user's behalf, quoted paths off.
      args: ['-c', 'core.quotepath=off', '-c', 'color.ui=false', '-c', 'core.fsmonitor=false', ...args],
      cwd,
      env: { GIT_TERMINAL_PROMPT: '0', GIT_PAGER: 'cat', GIT_OPTIONAL_LOCKS: '0', LC_ALL: 'C', ...o.env },
      input: o.input,
      timeoutMs: this.timeoutMs,
      maxOutputBytes: o.maxOutputBytes ?? 256 * 1024 * 1024,
    });
  }

  async run(cwd: string, args: readonly string[], o: GitRunOptions = {}): Promise<Buffer> {
    const r = await this.probe(cwd, args, o);
    if (r.notFound) {
      throw new WorktreeUnavailableError(`git was not found on PATH: install git ${minimumGitVersion.join('.')} or newer to use worktrees.`, 'no-git');
    }
    if (r.ok || (r.exitCode !== null && !r.timedOut && (o.okCodes ?? []).includes(r.exitCode))) {
      return r.stdout;
    }
    const why = r.timedOut ? `timed out after ${this.timeoutMs / 1000} s` : (r.stderr.split('\n').find((l) => l.trim() !== '') ?? `exit code ${String(r.exitCode)}`);
    throw new GitError(`git ${args.filter((a) => !a.startsWith('-c')).slice(0, 3).join(' ')} failed in ${cwd}: ${why}`, args, r.stderr, r.exitCode);
  }

  async text(cwd: string, args: readonly string[], o: GitRunOptions = {}): Promise<string> {
    return (await this.run(cwd, args, o)).toString('utf8').trim();
  }

  private version: Promise<string> | undefined;

  /** The installed version, checked against {@link minimumGitVersion} (once per instance). */
  checkVersion(cwd: string): Promise<string> {
    this.version ??= this.readVersion(cwd);
    this.version.catch(() => (this.version = undefined));
    return this.version;
  }

  private async readVersion(cwd: string): Promise<string> {
    const out = await this.text(cwd, ['--version']);
    const m = /(\d+)\.(\d+)/.exec(out);
    const [major, minor] = m !== null ? [Number(m[1]), Number(m[2])] : [0, 0];
    const [wantMajor, wantMinor] = minimumGitVersion;
    if (major < wantMajor || (major === wantMajor && minor < wantMinor)) {
      throw new WorktreeUnavailableError(`${out} is too old for worktrees: git ${wantMajor}.${wantMinor} or newer is needed.`, 'old-git');
    }
    return out;
  }
}

/** NUL-separated fields of a `-z` output. */
export function nulFields(out: Buffer): string[] {
  const text = out.toString('utf8');
  const parts = text.split('\0');
  if (parts[parts.length - 1] === '') {
    parts.pop();
  }
  return parts;
}
