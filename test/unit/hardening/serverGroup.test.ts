/**
 * The R6 window-reload check reads code-server's process group: code-server's own processes, one of
 * each process the live window forks (`--type=extensionHost`, `--type=fileWatcher`), and whatever
 * those started. These cases are the shapes seen on this machine, and the leaks the check is for.
 */
import * as assert from 'node:assert/strict';
import { descendsFromWindow, repeatedRoles, role, roleCounts, type ProcInfo } from './support';

const node = '/opt/node/bin/node';
const bootstrap = '/cs/lib/vscode/out/bootstrap-fork';

function proc(pid: number, ppid: number, cmdline: string): ProcInfo {
  return { pid, ppid, pgid: 100, state: 'S', cmdline };
}

const launcher = proc(100, 1, `node /cs/node_modules/.bin/code-server --bind-addr 127.0.0.1:4000 --auth none /tmp/ws`);
const entry = proc(101, 100, `${node} /cs/out/node/entry`);
const extHost = (pid: number): ProcInfo => proc(pid, 101, `${node} --dns-result-order=ipv4first ${bootstrap} --type=extensionHost --transformURIs --useHostProxy=false`);
const watcher = (pid: number): ProcInfo => proc(pid, 101, `${node} ${bootstrap} --type=fileWatcher`);

suite('R6 support: code-server process group roles', () => {
  test('role is the --type a process was forked with, or server', () => {
    assert.equal(role(launcher), 'server');
    assert.equal(role(entry), 'server');
    assert.equal(role(extHost(200)), 'extensionHost');
    assert.equal(role(watcher(201)), 'fileWatcher');
    assert.equal(roleCounts([launcher, entry, extHost(200), watcher(201)]), 'server ×2, extensionHost ×1, fileWatcher ×1');
  });

  test('benign: one live window (right after a reload too, before its host starts)', () => {
    assert.deepEqual(repeatedRoles([launcher, entry, extHost(200), watcher(201)]), []);
    assert.deepEqual(repeatedRoles([launcher, entry]), []);
    assert.deepEqual(repeatedRoles([launcher, entry, extHost(200)]), []);
  });

  test('leak: an earlier window\'s extension host or watcher still in the group', () => {
    assert.deepEqual(repeatedRoles([launcher, entry, extHost(200), watcher(201), extHost(300), watcher(301)]), ['extensionHost', 'fileWatcher']);
    assert.deepEqual(repeatedRoles([launcher, entry, extHost(200), extHost(300)]), ['extensionHost']);
  });

  test('a child of the live extension host (git, a language server, its own child) belongs to the window', () => {
    const git = proc(210, 200, 'git status -z');
    const helper = proc(211, 210, 'git-credential');
    const group = [launcher, entry, extHost(200), watcher(201), git, helper];
    assert.ok(descendsFromWindow(git, group));
    assert.ok(descendsFromWindow(helper, group));
  });

  test('an orphan (its extension host gone, reparented to init or code-server) does not', () => {
    const orphan = proc(310, 1, 'git status -z');
    const adopted = proc(311, 101, 'node some-server.js');
    const group = [launcher, entry, extHost(200), orphan, adopted];
    assert.equal(descendsFromWindow(orphan, group), false);
    assert.equal(descendsFromWindow(adopted, group), false);
  });
});
