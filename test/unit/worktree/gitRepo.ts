import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { tempWorkspace } from '../../support/agentStack';

/** git in `cwd`, as a user would type it (tests only; the product goes through the launcher). */
export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, encoding: 'utf8', env: { ...process.env, GIT_CONFIG_NOSYSTEM: '1', LC_ALL: 'C' } }).trim();
}

export function write(root: string, rel: string, text: string): string {
  const p = path.join(root, ...rel.split('/'));
  fs.mkdirSync(path.dirname(p), { recursive: true });
  fs.writeFileSync(p, text);
  return p;
}

export function read(root: string, rel: string): string {
  return fs.readFileSync(path.join(root, ...rel.split('/')), 'utf8');
}

/** A real repository in a temp folder: one commit with `a.txt` (five lines), `src/b.txt`, `.gitignore` ignoring `.env`. */
export function tempRepo(): string {
  const root = tempWorkspace('hermes-wt-');
  git(root, 'init', '-q', '-b', 'main');
  git(root, 'config', 'user.name', 'Test');
  git(root, 'config', 'user.email', 'test@example.invalid');
  git(root, 'config', 'commit.gpgsign', 'false');
  write(root, 'a.txt', 'one\ntwo\nthree\nfour\nfive\n');
  write(root, 'src/b.txt', 'b\n');
  write(root, '.gitignore', '.env\nlocal/\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'first');
  return root;
}

export function status(root: string): string {
  return git(root, 'status', '--porcelain');
}
