import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { cmdPath, entryTarget, isInside, linkTarget, registryLayout, unsafeEntryReason, versionDir } from '../../../src/registry/installPaths';
import { RegistryError } from '../../../src/registry/registryErrors';

const posixRoot = '/home/u/.storage/registry/tmp/stage';
const winRoot = 'C:\\Users\\u\\AppData\\Code\\registry\\tmp\\stage';

/** Names that must never be written below the install folder, on any platform. */
const hostileEverywhere = ['../evil', 'a/../../evil', 'a/b/../../../evil', '..', '../', '/etc/passwd', '\\evil', '..\\evil', 'a\\..\\..\\evil', 'C:\\Windows\\evil.exe', 'C:evil', 'c:/evil', '\\\\server\\share\\evil', 'a/..\\../evil', 'ok\0.txt', ''];
/** Same shapes, harmless: must still pass. */
const benignEverywhere = ['evil', 'a/b/c', './a', 'a/./b', '..a', 'a..', 'a/..b/c', '...', 'dir/', 'codex-acp', 'bin/agent.exe', 'a\\b'];

suite('registry install paths: zip-slip and cmd guards', () => {
  test('hostile entry names are refused with a reason, on POSIX and on (simulated) Windows', () => {
    for (const name of hostileEverywhere) {
      assert.notEqual(unsafeEntryReason(name, path.posix), undefined, `posix accepted ${JSON.stringify(name)}`);
      assert.notEqual(unsafeEntryReason(name, path.win32), undefined, `win32 accepted ${JSON.stringify(name)}`);
      assert.throws(() => entryTarget(posixRoot, name, path.posix, false), (e) => RegistryError.is(e, 'unsafeArchive'));
      assert.throws(() => entryTarget(winRoot, name, path.win32, true), (e) => RegistryError.is(e, 'unsafeArchive'));
    }
  });

  test('benign names of the same shapes pass and land inside the folder', () => {
    for (const name of benignEverywhere) {
      assert.equal(unsafeEntryReason(name, path.posix), undefined, name);
      assert.equal(unsafeEntryReason(name, path.win32), undefined, name);
      assert.ok(isInside(posixRoot, entryTarget(posixRoot, name, path.posix, false), path.posix, false), name);
      assert.ok(isInside(winRoot, entryTarget(winRoot, name, path.win32, true), path.win32, true), name);
    }
    assert.equal(entryTarget(posixRoot, 'a\\b', path.posix, false), `${posixRoot}/a/b`, 'backslash is a separator in archives from Windows');
  });

  test('Windows-only hazards: streams, drive letters and device names (not hazards on POSIX)', () => {
    for (const name of ['file.txt:stream', 'bin/agent.exe:$DATA', 'CON', 'bin/nul.txt', 'aux', 'COM1.log']) {
      assert.notEqual(unsafeEntryReason(name, path.win32), undefined, name);
      assert.equal(unsafeEntryReason(name, path.posix), undefined, name);
    }
    for (const name of ['console.txt', 'bin/nullable', 'auxiliary', 'COM.log']) {
      assert.equal(unsafeEntryReason(name, path.win32), undefined, name);
    }
  });

  test('inside checks fold case on Windows and macOS only', () => {
    assert.ok(isInside(winRoot, 'c:\\users\\U\\appdata\\code\\REGISTRY\\tmp\\stage\\bin\\a.exe', path.win32, true));
    assert.ok(!isInside(winRoot, 'c:\\users\\U\\appdata\\code\\REGISTRY\\tmp\\stage2\\a.exe', path.win32, true), 'a sibling with a common prefix is outside');
    assert.ok(!isInside('/a/Stage', '/a/stage/x', path.posix, false));
    assert.ok(isInside('/a/Stage', '/a/stage/x', path.posix, true), 'macOS: one folder');
    assert.ok(!isInside('/a/stage', '/a/stage-evil/x', path.posix, false));
    assert.ok(!isInside('/a/stage', '/a', path.posix, false));
  });

  test('link targets must stay inside; relative links within the folder pass', () => {
    for (const [name, target] of [['link', '/etc/passwd'], ['link', '../outside'], ['a/b/link', '../../../x'], ['link', 'C:\\Windows'], ['link', ''], ['../link', 'x']] as const) {
      assert.throws(() => linkTarget(posixRoot, name, target, path.posix, false), (e) => RegistryError.is(e, 'unsafeArchive'), `${name} -> ${target}`);
    }
    assert.equal(linkTarget(posixRoot, 'bin/agent', '../lib/agent', path.posix, false), `${posixRoot}/lib/agent`);
    assert.equal(linkTarget(posixRoot, 'a/b/link', '../../x', path.posix, false), `${posixRoot}/x`);
    assert.throws(() => linkTarget(winRoot, 'link', '..\\..\\x', path.win32, true), (e) => RegistryError.is(e, 'unsafeArchive'));
  });

  test('a cmd must name a file inside the install folder', () => {
    for (const cmd of ['../../bin/sh', '/bin/sh', '..', '.', './', 'C:\\Windows\\System32\\cmd.exe', 'bin/../../x', '']) {
      assert.throws(() => cmdPath(posixRoot, cmd, path.posix, false), (e) => RegistryError.is(e, 'cmdOutside'), cmd);
      assert.throws(() => cmdPath(winRoot, cmd, path.win32, true), (e) => RegistryError.is(e, 'cmdOutside'), cmd);
    }
    assert.equal(cmdPath(posixRoot, './codex-acp', path.posix, false), `${posixRoot}/codex-acp`);
    assert.equal(cmdPath(posixRoot, 'dist/bin/agent', path.posix, false), `${posixRoot}/dist/bin/agent`);
    assert.equal(cmdPath(winRoot, './codex-acp.exe', path.win32, true), `${winRoot}\\codex-acp.exe`);
    assert.equal(cmdPath(winRoot, 'bin/agent.exe', path.win32, true), `${winRoot}\\bin\\agent.exe`);
  });

  test('install folders are <storage>/registry/agents/<id>/<version>', () => {
    const layout = registryLayout('/g');
    assert.equal(versionDir(layout, 'codex-acp', '0.9.2'), '/g/registry/agents/codex-acp/0.9.2');
    for (const [id, v] of [['..', '1.0.0'], ['a/b', '1.0.0'], ['a', '../1'], ['a', '']] as const) {
      assert.throws(() => versionDir(layout, id, v), (e) => RegistryError.is(e, 'invalidEntry'), `${id}@${v}`);
    }
  });
});
