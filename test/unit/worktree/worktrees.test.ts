import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { Git, WorktreeUnavailableError } from '../../../src/worktree/git';
import { Worktrees } from '../../../src/worktree/worktrees';
import { tempWorkspace } from '../../support/agentStack';
import { git, read, status, tempRepo, write } from './gitRepo';

suite('worktree module on real git repositories', () => {
  const wt = new Worktrees();

  test('create: <repo>/.worktrees/<name> on hermes/<name> from HEAD, excluded, recorded; the main checkout stays clean', async () => {
    const root = tempRepo();
    const head = git(root, 'rev-parse', 'HEAD');
    const made = await wt.create({ cwd: root, name: 'task-1', createdBy: 'runner' });
    assert.equal(made.record.path, path.join(root, '.worktrees', 'task-1'));
    assert.equal(made.cwd, made.record.path);
    assert.equal(made.record.branch, 'hermes/task-1');
    assert.equal(made.record.base, head);
    assert.equal(git(made.record.path, 'rev-parse', '--abbrev-ref', 'HEAD'), 'hermes/task-1');
    assert.equal(read(made.record.path, 'a.txt'), read(root, 'a.txt'));
    assert.equal(status(root), '', 'the main checkout shows nothing new');
    assert.equal(await wt.hasUncommittedChanges(root), false, 'a worktree is not a change of the main checkout');
    assert.match(fs.readFileSync(path.join(root, '.git', 'info', 'exclude'), 'utf8'), /^\/\.worktrees\/$/m);
    assert.equal(git(root, 'diff', 'HEAD', '--stat'), '', 'no tracked file edited (.gitignore untouched)');
    assert.ok(fs.existsSync(path.join(root, '.git', 'hermes-acp', 'worktrees', 'task-1.json')));
    // The default name follows Hermes' -w: hermes-<id>.
    const other = await wt.create({ cwd: root, createdBy: 'chat' });
    assert.match(other.record.name, /^hermes-[0-9a-f]{8}$/);
    assert.equal(other.record.branch, `hermes/${other.record.name}`);
    // Once only in info/exclude.
    assert.equal(fs.readFileSync(path.join(root, '.git', 'info', 'exclude'), 'utf8').match(/\.worktrees/g)?.length, 1);
  });

  test('review: the status lists what changed since the base, and the base side of each file reads from the base commit', async () => {
    const root = tempRepo();
    const made = await wt.create({ cwd: root, name: 'review', createdBy: 'chat' });
    write(made.record.path, 'a.txt', 'one\ntwo\nTHREE\nfour\nfive\n');
    write(made.record.path, 'src/new file.txt', 'new\n');
    fs.rmSync(path.join(made.record.path, 'src', 'b.txt'));
    // The main checkout moves on meanwhile: the review still compares with the worktree's base.
    write(root, 'a.txt', 'main moved\n');
    git(root, 'commit', '-qam', 'main moved');
    const st = await wt.status(made.record);
    assert.deepEqual(st.changes.map((c) => `${c.status} ${c.path}`).sort(), ['A src/new file.txt', 'D src/b.txt', 'M a.txt']);
    assert.equal((await wt.baseContent(made.record, 'a.txt'))?.toString('utf8'), 'one\ntwo\nthree\nfour\nfive\n');
    assert.equal((await wt.baseContent(made.record, 'src/b.txt'))?.toString('utf8'), 'b\n');
    assert.equal(await wt.baseContent(made.record, 'src/new file.txt'), undefined, 'added on the branch: no base side');
  });

  test('create from a sub-folder works in the same sub-folder of the worktree; from a branch the user picks', async () => {
    const root = tempRepo();
    const first = git(root, 'rev-parse', 'HEAD');
    write(root, 'a.txt', 'changed\n');
    git(root, 'commit', '-q', '-am', 'second');
    git(root, 'branch', 'older', first);
    const made = await wt.create({ cwd: path.join(root, 'src'), name: 'sub', base: 'older', createdBy: 'chat' });
    assert.equal(made.cwd, path.join(root, '.worktrees', 'sub', 'src'));
    assert.equal(made.record.base, first);
    assert.equal(read(made.record.path, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    await assert.rejects(wt.create({ cwd: root, name: 'x', base: 'no-such-branch', createdBy: 'chat' }), /"no-such-branch" is not a branch or commit/);
    await assert.rejects(wt.create({ cwd: root, name: 'x', base: '--output=/tmp/x', createdBy: 'chat' }), /not a branch or commit name/);
  });

  test('names that cannot be a folder and a branch are refused; an existing name too', async () => {
    const root = tempRepo();
    for (const bad of ['../up', 'a/b', '-rf', 'x..y', 'name.lock', '', 'a b']) {
      await assert.rejects(wt.create({ cwd: root, name: bad, createdBy: 'chat' }), /cannot name a worktree/, bad);
    }
    await wt.create({ cwd: root, name: 'same', createdBy: 'chat' });
    await assert.rejects(wt.create({ cwd: root, name: 'same', createdBy: 'chat' }), /already exists/);
  });

  test('two at once get two worktrees', async () => {
    const root = tempRepo();
    const [a, b] = await Promise.all([wt.create({ cwd: root, createdBy: 'runner' }), wt.create({ cwd: root, createdBy: 'runner' })]);
    assert.notEqual(a.record.path, b.record.path);
    assert.equal(git(root, 'worktree', 'list', '--porcelain').match(/^worktree /gm)?.length, 3);
  });

  test('uncommitted changes are carried only when asked, and stay in the main checkout', async () => {
    const root = tempRepo();
    write(root, 'a.txt', 'edited\n');
    write(root, 'src/b.txt', 'staged\n');
    git(root, 'add', 'src/b.txt');
    write(root, 'new/file.txt', 'untracked\n');
    write(root, '.env', 'SECRET=1\n');
    const before = status(root);
    assert.equal(await wt.hasUncommittedChanges(root), true);
    const plain = await wt.create({ cwd: root, name: 'plain', createdBy: 'chat' });
    assert.equal(read(plain.record.path, 'a.txt'), 'one\ntwo\nthree\nfour\nfive\n');
    assert.equal(plain.carried.length, 0);
    const carried = await wt.create({ cwd: root, name: 'carried', carryChanges: true, createdBy: 'chat' });
    assert.equal(read(carried.record.path, 'a.txt'), 'edited\n');
    assert.equal(read(carried.record.path, 'src/b.txt'), 'staged\n');
    assert.equal(read(carried.record.path, 'new/file.txt'), 'untracked\n');
    assert.ok(!fs.existsSync(path.join(carried.record.path, '.env')), 'ignored files are not carried (that is .worktreeinclude)');
    assert.deepEqual([...carried.carried].sort(), ['a.txt', 'new/file.txt', 'src/b.txt']);
    assert.equal(status(root), before, 'the main checkout is as it was');
    git(root, 'stash', '-q', '-u');
    git(root, 'commit', '-q', '--allow-empty', '-m', 'later');
    await assert.rejects(wt.create({ cwd: root, name: 'from-old', base: 'HEAD~1', carryChanges: true, createdBy: 'chat' }), /only be carried into a worktree that starts from HEAD/);
  });

  test('outside git, in a repository without a commit, without git, with a git too old: a clear error', async () => {
    const plain = tempWorkspace('hermes-nogit-');
    await assert.rejects(wt.create({ cwd: plain, createdBy: 'runner' }), (e: unknown) => e instanceof WorktreeUnavailableError && e.reason === 'not-a-repository' && e.message.includes('not in a git repository: a worktree needs one'));
    const empty = tempWorkspace('hermes-empty-');
    git(empty, 'init', '-q');
    await assert.rejects(wt.create({ cwd: empty, createdBy: 'runner' }), (e: unknown) => e instanceof WorktreeUnavailableError && e.reason === 'no-commit');
    await assert.rejects(new Worktrees(new Git(undefined, 'git-that-is-not-installed')).create({ cwd: plain, createdBy: 'runner' }), (e: unknown) => e instanceof WorktreeUnavailableError && e.reason === 'no-git' && e.message.includes('git was not found'));
    // A git that answers `--version` like git 2.5 did (its real output format).
    const old = path.join(plain, 'old-git');
    fs.writeFileSync(old, '#!/bin/sh\necho "git version 2.5.6"\n', { mode: 0o755 });
    await assert.rejects(new Worktrees(new Git(undefined, old)).create({ cwd: tempRepo(), createdBy: 'runner' }), (e: unknown) => e instanceof WorktreeUnavailableError && e.reason === 'old-git' && e.message.includes('git version 2.5.6 is too old for worktrees: git 2.17 or newer'));
  });
});
