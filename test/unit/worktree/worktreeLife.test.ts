import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { Worktrees } from '../../../src/worktree/worktrees';
import { tempWorkspace } from '../../support/agentStack';
import { git, read, status, tempRepo, write } from './gitRepo';

suite('worktree module: include, apply, keep, discard, reload, stale', () => {
  const wt = new Worktrees();

  test('.worktreeinclude: listed ignored files copied; escapes (.., absolute, ~, symlinks out, .git) skipped with why', async () => {
    const root = tempRepo();
    const outside = tempWorkspace('hermes-outside-');
    write(outside, 'secret.txt', 'outside\n');
    write(root, '.env', 'TOKEN=1\n');
    write(root, 'local/settings.json', '{}\n');
    fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(root, 'local', 'link-out'));
    fs.symlinkSync(path.join(root, '.env'), path.join(root, 'local', 'link-in'));
    fs.symlinkSync(outside, path.join(root, 'out-dir'));
    fs.symlinkSync(path.join(root, 'missing-target'), path.join(root, 'dangling'));
    write(
      root,
      '.worktreeinclude',
      ['# files the worktree needs', '.env', 'local', '../' + path.basename(outside) + '/secret.txt', path.join(outside, 'secret.txt'), '~/x', 'out-dir/secret.txt', 'src/../../escape', '.git/config', 'dangling', 'not-there', 'a.txt', ''].join('\n'),
    );
    const made = await wt.create({ cwd: root, name: 'inc', createdBy: 'chat' });
    assert.deepEqual(made.included.copied, ['.env', 'local']);
    assert.equal(read(made.record.path, '.env'), 'TOKEN=1\n');
    assert.equal(read(made.record.path, 'local/settings.json'), '{}\n');
    assert.ok(fs.lstatSync(path.join(made.record.path, 'local', 'link-in')).isSymbolicLink(), 'a link that stays inside the repository is kept');
    assert.ok(!fs.existsSync(path.join(made.record.path, 'local', 'link-out')), 'a link out of the repository is not copied');
    const skipped = made.included.skipped.join('\n');
    assert.match(skipped, /secret\.txt: it resolves to .*outside the repository/);
    assert.match(skipped, new RegExp(`${path.join(outside, 'secret.txt').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}: only paths relative`));
    assert.match(skipped, /~\/x: only paths relative/);
    assert.match(skipped, /out-dir\/secret\.txt: it resolves to .*outside the repository/);
    assert.match(skipped, /src\/\.\.\/\.\.\/escape: it resolves to .*outside the repository/);
    assert.match(skipped, /\.git\/config: it names \.git/);
    assert.match(skipped, /dangling: .*/);
    assert.match(skipped, /not-there: not found/);
    assert.match(skipped, /a\.txt: already in the worktree/);
    assert.equal(made.included.skipped.length, 9);
    assert.ok(!fs.existsSync(path.join(made.record.path, 'escape')));
  });

  test('apply without conflict: committed, uncommitted, new and deleted files reach the main checkout; the worktree stays', async () => {
    const root = tempRepo();
    const made = await wt.create({ cwd: root, name: 'clean', createdBy: 'chat' });
    const w = made.record.path;
    write(w, 'src/b.txt', 'b from the branch\n');
    git(w, 'commit', '-q', '-am', 'on the branch');
    write(w, 'a.txt', 'one\ntwo\nthree\nfour\nFIVE\n');
    write(w, 'new/c.txt', 'new\n');
    fs.rmSync(path.join(w, '.gitignore'));
    // The main checkout changed another part of a.txt meanwhile: merged, not a conflict.
    write(root, 'a.txt', 'ONE\ntwo\nthree\nfour\nfive\n');
    const st = await wt.status(made.record);
    assert.deepEqual(st.changes.map((c) => `${c.status} ${c.path}`).sort(), ['D .gitignore', 'M a.txt', 'A new/c.txt', 'M src/b.txt'].sort());
    assert.equal(st.commits, 1);
    const r = await wt.apply(made.record);
    assert.deepEqual([...r.applied].sort(), ['.gitignore', 'a.txt', 'new/c.txt', 'src/b.txt']);
    assert.deepEqual(r.conflicts, []);
    assert.equal(read(root, 'a.txt'), 'ONE\ntwo\nthree\nfour\nFIVE\n');
    assert.equal(read(root, 'src/b.txt'), 'b from the branch\n');
    assert.equal(read(root, 'new/c.txt'), 'new\n');
    assert.ok(!fs.existsSync(path.join(root, '.gitignore')));
    assert.equal(read(path.join(r.backup), 'a.txt'), 'ONE\ntwo\nthree\nfour\nfive\n', 'the main checkout\'s version was saved first');
    assert.equal(read(w, 'a.txt'), 'one\ntwo\nthree\nfour\nFIVE\n', 'the worktree is left as it was');
    assert.equal(git(root, 'diff', '--cached', '--name-only'), '', 'a clean apply leaves the index alone');
  });

  test('apply with a conflict: markers and the three index stages (the merge editor), both versions kept', async () => {
    const root = tempRepo();
    const made = await wt.create({ cwd: root, name: 'clash', createdBy: 'chat' });
    write(made.record.path, 'a.txt', 'one\ntwo\nTHREE from the agent\nfour\nfive\n');
    write(root, 'a.txt', 'one\ntwo\nthree, mine\nfour\nfive\n');
    fs.rmSync(path.join(made.record.path, 'src', 'b.txt'));
    write(root, 'src/b.txt', 'b, mine\n');
    const r = await wt.apply(made.record);
    assert.deepEqual(r.conflicts, [{ path: 'a.txt', kind: 'text' }, { path: 'src/b.txt', kind: 'deleted-in-worktree' }]);
    const merged = read(root, 'a.txt');
    assert.match(merged, /<<<<<<< my checkout\nthree, mine\n=======\nTHREE from the agent\n>>>>>>> hermes\/clash\n/);
    const stages = git(root, 'ls-files', '-u', '--', 'a.txt').split('\n').map((l) => l.split(/\s+/)[2]);
    assert.deepEqual(stages, ['1', '2', '3']);
    assert.match(status(root), /^UU a\.txt$/m, 'git (and VS Code) see a merge conflict');
    assert.equal(read(root, 'src/b.txt'), 'b, mine\n', 'a file the worktree deleted but you changed is kept');
    assert.equal(read(r.backup, 'a.txt'), 'one\ntwo\nthree, mine\nfour\nfive\n');
    assert.equal(read(made.record.path, 'a.txt'), 'one\ntwo\nTHREE from the agent\nfour\nfive\n');
  });

  test('keep: everything committed on the branch with the message given; nothing to keep says so', async () => {
    const root = tempRepo();
    const made = await wt.create({ cwd: root, name: 'keep', createdBy: 'chat' });
    await assert.rejects(wt.keep(made.record, 'empty'), /Nothing to commit/);
    await assert.rejects(wt.keep(made.record, '  '), /commit message is needed/);
    write(made.record.path, 'a.txt', 'kept\n');
    write(made.record.path, 'added.txt', 'added\n');
    const sha = await wt.keep(made.record, 'Agent work\n\nwith a body');
    assert.equal(git(root, 'rev-parse', 'hermes/keep'), sha);
    assert.equal(git(root, 'log', '-1', '--format=%B', 'hermes/keep'), 'Agent work\n\nwith a body');
    assert.equal(git(root, 'show', '--name-only', '--format=', 'hermes/keep').split('\n').sort().join(','), 'a.txt,added.txt');
    assert.equal(status(made.record.path), '');
    assert.equal(status(root), '', 'the main checkout is untouched');
  });

  test('discard: lists what is lost, then removes the worktree, its branch and its record', async () => {
    const root = tempRepo();
    const made = await wt.create({ cwd: root, name: 'gone', createdBy: 'chat' });
    write(made.record.path, 'a.txt', 'lost\n');
    const lost = await wt.whatDiscardLoses(made.record);
    assert.deepEqual(lost.changes.map((c) => c.path), ['a.txt']);
    await wt.discard(made.record);
    assert.ok(!fs.existsSync(made.record.path));
    assert.equal(git(root, 'branch', '--list', 'hermes/gone'), '');
    assert.deepEqual((await wt.list(root)).worktrees, []);
    assert.equal(status(root), '');
  });

  test('reload: a new instance finds the recorded worktrees with their state; stale ones are only offered', async () => {
    const root = tempRepo();
    const live = await wt.create({ cwd: root, name: 'live', createdBy: 'chat', sessionId: 's-live', agent: 'hermes' });
    const idle = await wt.create({ cwd: root, name: 'idle', createdBy: 'chat', sessionId: 's-idle' });
    const busy = await wt.create({ cwd: root, name: 'busy', createdBy: 'chat', sessionId: 's-busy' });
    const removed = await wt.create({ cwd: root, name: 'removed', createdBy: 'runner' });
    write(busy.record.path, 'a.txt', 'work\n');
    fs.rmSync(removed.record.path, { recursive: true, force: true });
    const again = new Worktrees();
    const { worktrees, problems } = await again.list(path.join(live.record.path));
    assert.deepEqual(problems, []);
    assert.deepEqual(worktrees.map((w) => w.record.name), ['busy', 'idle', 'live', 'removed']);
    assert.equal(worktrees.find((w) => w.record.name === 'live')?.record.sessionId, 's-live');
    assert.equal(worktrees.find((w) => w.record.name === 'live')?.record.agent, 'hermes');
    assert.equal(worktrees.find((w) => w.record.name === 'busy')?.changes.length, 1);
    const stale = await again.stale(root, (r) => r.sessionId === 's-live');
    assert.deepEqual(stale.map((s) => `${s.status.record.name}:${s.reason}`), ['idle:unchanged', 'removed:missing']);
    assert.ok(fs.existsSync(idle.record.path), 'nothing is removed by looking');
    // A record that is not one is named, not fatal.
    fs.writeFileSync(path.join(root, '.git', 'hermes-acp', 'worktrees', 'junk.json'), '{"name": 1}');
    assert.equal((await again.list(root)).problems.length, 1);
    await again.discard(stale[1]!.status.record);
    assert.equal(git(root, 'branch', '--list', 'hermes/removed'), '');
    assert.ok(os.tmpdir() !== '');
  });
});
