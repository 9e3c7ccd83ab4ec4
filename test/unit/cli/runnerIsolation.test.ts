import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { events, ofType, perTestDir, resultOf, runCli, scriptedAgent, tempDir, type CliRun, type Event } from './cliHarness';
import { git, read, status, tempRepo, write } from '../worktree/gitRepo';

function oneShot(query: string, extra: readonly string[]): string[] {
  return ['-q', query, '--format', 'stream-json', '--permissions', 'allow', ...extra, '--', ...scriptedAgent];
}

function obj(e: Event, key: string): Record<string, unknown> {
  const v = e[key];
  assert.ok(typeof v === 'object' && v !== null && !Array.isArray(v), `${key} is not an object: ${JSON.stringify(e)}`);
  return v as Record<string, unknown>;
}

function result(run: CliRun): Event {
  return resultOf(events(run));
}

suite('hermes-acp-run --worktree and --checkpoints / --restore', () => {
  const work = perTestDir('hermes-iso-');
  let store = '';
  setup(() => {
    store = tempDir('hermes-checkpoints-');
  });
  teardown(() => fs.rmSync(store, { recursive: true, force: true }));
  const env = (): Record<string, string> => ({ HERMES_ACP_CHECKPOINTS: store });

  test('--worktree: the session works in <repo>/.worktrees/hermes-<id>; result.worktree; the change stays uncommitted there; the main checkout is untouched', async () => {
    const repo = tempRepo();
    const head = git(repo, 'rev-parse', 'HEAD');
    const run = await runCli(oneShot('[edit path=a.txt text="from the agent\\n" complete=yes]', ['--cwd', repo, '--worktree']), { cwd: work.path, env: env(), timeoutMs: 40_000 });
    const evs = events(run);
    const res = resultOf(evs);
    assert.equal(res.exit_code, 0, run.stderr);
    const wt = obj(res, 'worktree');
    assert.match(String(wt.path), new RegExp(`^${repo.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}/\\.worktrees/hermes-[0-9a-f]{8}$`));
    assert.equal(wt.branch, `hermes/${path.basename(String(wt.path))}`);
    assert.equal(wt.base, head);
    assert.equal(ofType(evs, 'system')[0]?.cwd, wt.path, 'the system event names the worktree');
    assert.equal(read(String(wt.path), 'a.txt'), 'from the agent\n', 'the agent edited the worktree (its session cwd)');
    assert.equal(status(String(wt.path)), 'M a.txt', 'left uncommitted for the CI job');
    assert.equal(git(repo, 'rev-parse', String(wt.branch)), head);
    assert.equal(status(repo), '', 'the main checkout is clean');
    assert.equal(read(repo, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    assert.ok(!('checkpoint' in res), 'no checkpoint without --checkpoints');
  });

  test('--worktree: two runs at once get two worktrees, each with only its own change', async () => {
    const repo = tempRepo();
    const [one, two] = await Promise.all(
      ['one', 'two'].map((n) => runCli(oneShot(`[edit path=a.txt text="${n}\\n" complete=yes]`, ['--cwd', repo, '--worktree']), { cwd: work.path, env: env(), timeoutMs: 60_000 })),
    );
    const a = obj(result(one!), 'worktree');
    const b = obj(result(two!), 'worktree');
    assert.notEqual(a.path, b.path);
    assert.equal(read(String(a.path), 'a.txt'), 'one\n');
    assert.equal(read(String(b.path), 'a.txt'), 'two\n');
    assert.equal(status(repo), '');
  });

  test('--worktree outside a git repository: result last with an error saying a repository is needed, no agent started', async () => {
    const plain = tempDir('hermes-nogit-');
    const run = await runCli(oneShot('[plain]', ['--cwd', plain, '--worktree']), { cwd: work.path, env: env() });
    const evs = events(run);
    const res = resultOf(evs);
    assert.equal(run.code, 1);
    assert.equal(res.exit_code, 1);
    assert.match(String(res.error), /--worktree: .* is not in a git repository: a worktree needs one/);
    assert.ok(!('worktree' in res));
    assert.deepEqual(evs.map((e) => e.type), ['system', 'result']);
    assert.doesNotMatch(run.stderr, /scripted-agent\] started/, 'no agent was started');
    assert.deepEqual(fs.readdirSync(plain), []);
  });

  test('--checkpoints: an allowed edit, an allowed delete, a write without asking and a file in a skipped folder are caught; --restore puts them back', async () => {
    const dir = work.path;
    write(dir, 'keep.txt', 'original\n');
    write(dir, 'gone.txt', 'to be deleted\n');
    write(dir, 'node_modules/pkg/x.txt', 'installed\n');
    write(dir, 'same.txt', 'untouched\n');
    const query = '[edit path=keep.txt text="edited\\n" complete=yes] [delete path=gone.txt ask=yes] [silent-edit path=sneaky.txt text="new\\n"] [edit path=node_modules/pkg/x.txt text="patched\\n" complete=yes]';
    const run = await runCli(oneShot(query, ['--cwd', dir, '--checkpoints']), { cwd: dir, env: env(), timeoutMs: 40_000 });
    const res = result(run);
    assert.equal(res.exit_code, 0, run.stderr);
    const cp = obj(res, 'checkpoint');
    assert.match(String(cp.id), /^cp-\d{8}T\d{6}-[0-9a-f]{6}$/);
    assert.deepEqual(cp.files, ['gone.txt', 'keep.txt', 'node_modules/pkg/x.txt', 'sneaky.txt']);
    assert.equal(read(dir, 'keep.txt'), 'edited\n');
    assert.ok(!fs.existsSync(path.join(dir, 'gone.txt')));

    const restored = await runCli(['--restore', String(cp.id), '--cwd', dir], { cwd: work.path, env: env() });
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(read(dir, 'keep.txt'), 'original\n');
    assert.equal(read(dir, 'gone.txt'), 'to be deleted\n', 'a deleted file is recreated');
    assert.equal(read(dir, 'node_modules/pkg/x.txt'), 'installed\n', 'saved when the edit was allowed');
    assert.ok(!fs.existsSync(path.join(dir, 'sneaky.txt')), 'a created file is removed');
    assert.equal(read(dir, 'same.txt'), 'untouched\n');
    assert.match(restored.stdout, /^restored gone\.txt$/m);
    assert.match(restored.stdout, /^removed sneaky\.txt$/m);

    const unknown = await runCli(['--restore', 'cp-nope', '--cwd', dir], { cwd: work.path, env: env() });
    assert.equal(unknown.code, 1);
    assert.match(unknown.stderr, new RegExp(`No checkpoint "cp-nope" for .*\\(its checkpoints: ${String(cp.id)}\\)`));
    const misuse = await runCli(['--restore', String(cp.id), '-q', 'x'], { cwd: work.path, env: env() });
    assert.equal(misuse.code, 2);
    assert.match(misuse.stderr, /--restore takes only --cwd/);
  });

  test('--worktree with an agent the runner does not start is a usage error', async () => {
    const run = await runCli(['-q', 'x', '--worktree', '--transport', 'api-server', '--base-url', 'http://127.0.0.1:9'], { cwd: work.path, env: { ...env(), HERMES_API_KEY: 'k'.repeat(20) } });
    assert.equal(run.code, 2);
    assert.match(run.stderr, /--worktree needs an agent this runner starts .* not --transport api-server/);
    assert.equal(run.stdout, '');
  });

  test('--checkpoints with a denied change: nothing changed, an empty checkpoint', async () => {
    write(work.path, 'keep.txt', 'original\n');
    const run = await runCli(['-q', '[delete path=keep.txt ask=yes]', '--format', 'stream-json', '--cwd', work.path, '--checkpoints', '--', ...scriptedAgent], { cwd: work.path, env: env() });
    const res = result(run);
    assert.deepEqual(obj(res, 'checkpoint').files, []);
    assert.equal(read(work.path, 'keep.txt'), 'original\n');
  });

  test('--worktree --checkpoints together: the checkpoint is of the worktree', async () => {
    const repo = tempRepo();
    const run = await runCli(oneShot('[silent-edit path=src/b.txt text="changed\\n"]', ['--cwd', repo, '--worktree', '--checkpoints']), { cwd: work.path, env: env(), timeoutMs: 40_000 });
    const res = result(run);
    const wt = obj(res, 'worktree');
    assert.deepEqual(obj(res, 'checkpoint').files, ['src/b.txt']);
    const restored = await runCli(['--restore', String(obj(res, 'checkpoint').id), '--cwd', String(wt.path)], { cwd: work.path, env: env() });
    assert.equal(restored.code, 0, restored.stderr);
    assert.equal(read(String(wt.path), 'src/b.txt'), 'b\n');
    assert.equal(status(String(wt.path)), '');
  });
});
