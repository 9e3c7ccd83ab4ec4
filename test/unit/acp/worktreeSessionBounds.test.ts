import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { ClientRequestError, RpcCode } from '../../../src/agentPort/agentErrors';
import { WorkspaceBoundary } from '../../../src/acp/workspaceBoundary';
import { resolveTerminalCwd } from '../../../src/acp/terminalCwd';
import { TerminalManager } from '../../../src/acp/terminals';
import { PermissionPolicy } from '../../../src/permissions/policy';
import type { PathSemantics } from '../../../src/util/paths';
import { tempWorkspace } from '../../support/agentStack';
import { FakeFs } from '../permissions/fakeFs';
import { editOptions, hermesWrite, ruleSets } from '../permissions/corpusShapes';

const linux: PathSemantics = { flavor: 'posix', caseInsensitive: false };
const mac: PathSemantics = { flavor: 'posix', caseInsensitive: true };
const win: PathSemantics = { flavor: 'win32', caseInsensitive: true };

function refusedOutside(pattern = /outside the workspace/): (e: unknown) => boolean {
  return (e) => ClientRequestError.is(e) && e.code === RpcCode.resourceNotFound && pattern.test(e.message);
}

/**
 * Issue 40: a worktree session's `fs/*`, terminals and permission workspace are its worktree
 * (`<repo>/.worktrees/<name>`), not the main checkout it sits in — each session bounded by its own
 * folders (`roots(sessionId)`), the other sessions by the workspace folders.
 */
suite('a worktree session is bounded by its worktree (fs/*, terminals, permission workspace)', () => {
  const ws = fs.realpathSync(tempWorkspace('hermes-wt-bounds-'));
  const wt = path.join(ws, '.worktrees', 'hermes-1');
  const sibling = path.join(ws, '.worktrees', 'hermes-10');
  fs.mkdirSync(path.join(wt, 'src'), { recursive: true });
  fs.mkdirSync(sibling, { recursive: true });
  fs.writeFileSync(path.join(ws, 'main.txt'), 'main checkout\n');
  fs.writeFileSync(path.join(wt, 'main.txt'), 'worktree copy\n');
  fs.writeFileSync(path.join(sibling, 'main.txt'), 'another worktree\n');
  fs.symlinkSync(path.join(ws, 'main.txt'), path.join(wt, 'to-main.txt'));
  const rootsOf = (sessionId?: string): readonly string[] => (sessionId === 'wt-session' ? [wt] : [ws]);
  const boundary = new WorkspaceBoundary(rootsOf, linux);

  test('fs/*: inside its worktree only; the main checkout, a sibling worktree, .. and a symlink out are refused', async () => {
    assert.equal((await boundary.resolve(path.join(wt, 'main.txt'), 'read', 'wt-session')).realPath, path.join(wt, 'main.txt'));
    assert.equal((await boundary.resolve(path.join(wt, 'src', 'new.ts'), 'write', 'wt-session')).stat, undefined);
    await assert.rejects(boundary.resolve(path.join(ws, 'main.txt'), 'write', 'wt-session'), refusedOutside(new RegExp(`only writes files inside the session's folder ${wt.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}`)));
    await assert.rejects(boundary.resolve(path.join(sibling, 'main.txt'), 'read', 'wt-session'), refusedOutside());
    await assert.rejects(boundary.resolve(`${wt}/../hermes-10/main.txt`, 'write', 'wt-session'), refusedOutside());
    await assert.rejects(boundary.resolve(path.join(wt, 'to-main.txt'), 'read', 'wt-session'), refusedOutside(/resolves to/));
  });

  test('the other sessions (and an unknown one) keep the workspace folders, whichever asked first', async () => {
    const fresh = new WorkspaceBoundary(rootsOf, linux);
    assert.equal((await fresh.resolve(path.join(ws, 'main.txt'), 'read', 'main-session')).realPath, path.join(ws, 'main.txt'));
    await assert.rejects(fresh.resolve(path.join(ws, 'main.txt'), 'read', 'wt-session'), refusedOutside());
    assert.equal((await fresh.resolve(path.join(ws, 'main.txt'), 'read')).realPath, path.join(ws, 'main.txt'));
    assert.equal((await fresh.resolve(path.join(wt, 'main.txt'), 'read', 'main-session')).realPath, path.join(wt, 'main.txt'));
  });

  test('terminals: the default cwd is the worktree; a cwd in the main checkout is refused', async function () {
    if (process.platform === 'win32') {
      this.skip();
    }
    assert.equal(await resolveTerminalCwd(undefined, [wt]), wt);
    await assert.rejects(resolveTerminalCwd(ws, [wt]), refusedOutside(/only runs commands inside the session's folder/));
    await assert.rejects(resolveTerminalCwd(sibling, [wt]), refusedOutside());
    const m = new TerminalManager({ roots: rootsOf, killGraceMs: 500 });
    try {
      const never = new AbortController().signal;
      const ids: acp.TerminalOutputRequest[] = [];
      for (const sessionId of ['wt-session', 'main-session']) {
        const { terminalId } = await m.createTerminal({ sessionId, command: 'pwd' }, never);
        ids.push({ sessionId, terminalId });
        await m.waitForTerminalExit({ sessionId, terminalId }, never);
      }
      assert.deepEqual(await Promise.all(ids.map(async (id) => (await m.terminalOutput(id, never)).output)), [`${wt}\n`, `${ws}\n`]);
      await assert.rejects(m.createTerminal({ sessionId: 'wt-session', command: 'pwd', cwd: ws }, never), refusedOutside());
    } finally {
      await m.dispose();
    }
  });

  test('simulated macOS: another spelling of the worktree is the worktree; the main checkout stays outside', async () => {
    const upper = path.join(ws, '.WORKTREES', 'HERMES-1', 'NEW.txt');
    assert.equal((await new WorkspaceBoundary(rootsOf, mac).resolve(upper, 'write', 'wt-session')).realPath, upper);
    await assert.rejects(new WorkspaceBoundary(rootsOf, linux).resolve(upper, 'write', 'wt-session'), refusedOutside());
    await assert.rejects(new WorkspaceBoundary(rootsOf, mac).resolve(path.join(ws, 'NEW.txt'), 'write', 'wt-session'), refusedOutside());
  });

  // The permission layer's workspace for a worktree session is the worktree (ChatManager.createChat:
  // hostPolicyContext(cwd, [worktree])): rules written for the workspace (`src/**`) apply inside it,
  // and a write to the main checkout is outside — asked, never allowed by the rule.
  const places = {
    win32: { sem: win, repo: 'C:\\repo', wt: 'C:\\repo\\.worktrees\\hermes-1', home: 'C:\\Users\\u', sep: '\\' },
    darwin: { sem: mac, repo: '/Users/u/repo', wt: '/Users/u/repo/.worktrees/hermes-1', home: '/Users/u', sep: '/' },
    posix: { sem: linux, repo: '/home/u/repo', wt: '/home/u/repo/.worktrees/hermes-1', home: '/home/u', sep: '/' },
  } as const;
  for (const [os, p] of Object.entries(places)) {
    test(`permission workspace of a worktree session (simulated ${os})`, () => {
      const j = (...parts: string[]): string => parts.join(p.sep);
      const tree = { [j(p.wt, 'src', 'a.ts')]: 'file', [j(p.repo, 'src', 'a.ts')]: 'file', [j(p.repo, '.worktrees', 'hermes-10', 'src', 'a.ts')]: 'file' } as const;
      const policy = new PermissionPolicy(ruleSets.editSrc.rules, { cwd: p.wt, roots: [p.wt], home: p.home, semantics: p.sem, fs: new FakeFs(p.sem, tree), sensitive: [] });
      const decide = (target: string): string => policy.evaluate({ sessionId: 's', toolCall: { ...hermesWrite(target), toolCallId: target }, options: editOptions }).effect;
      const folded = os === 'posix' ? [] : [j(p.wt.toUpperCase(), 'SRC', 'A.TS'), j(p.wt.replace('hermes-1', 'Hermes-1'), 'Src', 'a.ts')];
      for (const inside of [j(p.wt, 'src', 'a.ts'), j('src', 'a.ts'), ...folded]) {
        assert.equal(decide(inside), 'allow', `${inside} is in the worktree`);
      }
      const outside = [j(p.repo, 'src', 'a.ts'), j(p.repo, '.worktrees', 'hermes-10', 'src', 'a.ts'), j('..', 'hermes-10', 'src', 'a.ts'), j('src', '..', '..', '..', 'src', 'a.ts')];
      if (os !== 'posix') {
        outside.push(j(p.repo.toUpperCase(), 'SRC', 'A.TS'));
      } else {
        outside.push(j(p.wt.toUpperCase(), 'src', 'a.ts'));
      }
      for (const o of outside) {
        assert.equal(decide(o), 'ask', `${o} is outside the worktree: asked`);
      }
    });
  }
});
