import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { WorkspaceBoundary } from '../../../src/acp/workspaceBoundary';
import { ClientRequestError } from '../../../src/agentPort/agentErrors';
import { comparisonKey, fileUriToPath, hostSemantics, isInside, normalizeDriveLetter, pathToFileUri, samePath, type PathSemantics } from '../../../src/util/paths';

const win: PathSemantics = { flavor: 'win32', caseInsensitive: true };
const mac: PathSemantics = { flavor: 'posix', caseInsensitive: true };
const linux: PathSemantics = { flavor: 'posix', caseInsensitive: false };

suite('util/paths: one helper for drive letters, separators, file URIs and containment', () => {
  test('host semantics per platform', () => {
    assert.deepEqual(hostSemantics('win32'), win);
    assert.deepEqual(hostSemantics('darwin'), mac);
    assert.deepEqual(hostSemantics('linux'), linux);
  });

  test("drive letters: VS Code's c:\\ and Node's C:\\ are one spelling; POSIX paths are untouched", () => {
    assert.equal(normalizeDriveLetter('c:\\Users\\Ada\\ws\\a.ts', win), 'C:\\Users\\Ada\\ws\\a.ts');
    assert.equal(normalizeDriveLetter('C:\\x', win), 'C:\\x');
    assert.equal(normalizeDriveLetter('\\\\srv\\share\\x', win), '\\\\srv\\share\\x');
    assert.equal(normalizeDriveLetter('c:/x', linux), 'c:/x');
    assert.ok(samePath('c:\\Users\\ADA\\ws\\A.ts', 'C:/Users/Ada/ws/a.ts', win));
    assert.ok(samePath('/Users/Ada/WS/a.ts', '/users/ada/ws/a.ts', mac));
    assert.ok(!samePath('/home/ada/WS/a.ts', '/home/ada/ws/a.ts', linux));
    assert.ok(samePath('C:\\ws\\sub\\..\\a.ts', 'c:\\ws\\a.ts', win), 'normalised before comparing');
  });

  test('isInside: separators and case folded where the volume folds them; a sibling with a common prefix is outside', () => {
    assert.ok(isInside('C:\\Users\\Ada\\ws', 'c:/users/ada/WS/src/a.ts', win));
    assert.ok(isInside('C:\\Users\\Ada\\ws\\', 'C:\\Users\\Ada\\ws', win), 'the root itself, trailing separator or not');
    assert.ok(!isInside('C:\\Users\\Ada\\ws', 'C:\\Users\\Ada\\ws2\\a.ts', win));
    assert.ok(!isInside('C:\\Users\\Ada\\ws', 'C:\\Users\\Ada\\ws\\..\\secret.txt', win), '.. applied before the test');
    assert.ok(!isInside('C:\\ws', 'D:\\ws\\a.ts', win), 'another drive');
    assert.ok(isInside('C:\\', 'c:\\anything', win), 'a drive root holds the drive');
    assert.ok(isInside('/Users/ada/ws', '/users/ADA/ws/a.ts', mac));
    assert.ok(!isInside('/home/ada/ws', '/home/ada/WS/a.ts', linux), 'Linux does not fold case');
    assert.ok(!isInside('/home/ada/ws', '/home/ada/ws-old/a.ts', linux));
    assert.ok(isInside('/home/ada/ws', '/home/ada/ws/..a/b', linux), '`..a` is a name, not a parent');
    assert.ok(isInside('/', '/etc/passwd', linux));
  });

  test('comparison keys: one form per volume', () => {
    assert.equal(comparisonKey('C:\\Users\\Ada\\', win), 'c:/users/ada');
    assert.equal(comparisonKey('C:\\', win), 'c:/');
    assert.equal(comparisonKey('/Users/Ada/', mac), '/users/ada');
    assert.equal(comparisonKey('/Users/Ada', linux), '/Users/Ada');
  });

  test('file: URIs to paths and back, per platform', () => {
    assert.equal(fileUriToPath('file:///c%3A/Users/Ada/a%20b.ts', win), 'c:/Users/Ada/a b.ts');
    assert.equal(fileUriToPath('file:///C:/x', win), 'C:/x');
    assert.equal(fileUriToPath('file://server/share/x.ts', win), '\\\\server/share/x.ts');
    assert.equal(fileUriToPath('file:///home/ada/a%23b.ts', linux), '/home/ada/a#b.ts');
    assert.equal(fileUriToPath('file://localhost/etc/hosts', linux), '/etc/hosts');
    assert.equal(fileUriToPath('file://evil.example/etc/hosts', linux), undefined, 'another host is not a local file');
    assert.equal(fileUriToPath('file:///bad%E0%A4%A', linux), undefined, 'a malformed escape');
    assert.equal(fileUriToPath('https://example.com/x', linux), undefined);
    assert.equal(pathToFileUri('C:\\Users\\Ada\\a b#.ts', win), 'file:///C:/Users/Ada/a%20b%23.ts');
    assert.equal(pathToFileUri('\\\\srv\\share\\x.ts', win), 'file://srv/share/x.ts');
    assert.equal(pathToFileUri('/home/ada/a b.ts', linux), 'file:///home/ada/a%20b.ts');
    for (const [p, sem] of [['C:\\Users\\Ada\\ü %.ts', win], ['/home/ada/ü %?.ts', linux]] as const) {
      const back = fileUriToPath(pathToFileUri(p, sem), sem);
      assert.ok(back !== undefined && samePath(back, p, sem), `${p} round-trips (${back})`);
    }
  });

  test("the fs/* boundary folds case on a case-folding volume (simulated macOS) and not on Linux", async () => {
    const root = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-paths-')));
    try {
      fs.writeFileSync(path.join(root, 'a.txt'), 'x');
      const upper = path.join(root.toUpperCase(), 'NEW.txt');
      // Linux: another spelling is another folder, outside the workspace.
      await assert.rejects(new WorkspaceBoundary(() => [root], linux).resolve(upper, 'write'), (e) => ClientRequestError.is(e) && e.message.includes('outside the workspace'));
      // A folding volume: the same folder, so the write is inside.
      const inside = await new WorkspaceBoundary(() => [root], mac).resolve(upper, 'write');
      assert.equal(inside.realPath, upper);
      assert.equal((await new WorkspaceBoundary(() => [root]).resolve(path.join(root, 'a.txt'), 'read')).realPath, path.join(root, 'a.txt'));
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });
});
