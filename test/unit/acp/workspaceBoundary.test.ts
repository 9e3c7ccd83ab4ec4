import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ClientRequestError, RpcCode } from '../../../src/agentPort/agentErrors';
import { sliceLines, WorkspaceBoundary } from '../../../src/acp/workspaceBoundary';
import { tempWorkspace } from '../../support/agentStack';

async function refused(p: Promise<unknown>, code: number, pattern: RegExp): Promise<void> {
  await assert.rejects(p, (e: unknown) => ClientRequestError.is(e) && e.code === code && pattern.test(e.message));
}

suite('workspace boundary (fs/* and terminal cwd)', () => {
  const ws = tempWorkspace();
  const outside = tempWorkspace('hermes-outside-');
  fs.writeFileSync(path.join(ws, 'inside.txt'), 'in\n');
  fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret\n');
  fs.symlinkSync(path.join(outside, 'secret.txt'), path.join(ws, 'link-out.txt'));
  fs.symlinkSync(outside, path.join(ws, 'dir-out'));
  fs.symlinkSync(path.join(outside, 'missing.txt'), path.join(ws, 'dangling.txt'));
  fs.linkSync(path.join(outside, 'secret.txt'), path.join(ws, 'hardlink.txt'));
  execFileSync('mkfifo', [path.join(ws, 'fifo')]);
  const boundary = new WorkspaceBoundary(() => [ws]);

  test('allows files inside, and new files in new folders', async () => {
    assert.equal((await boundary.resolve(path.join(ws, 'inside.txt'), 'read')).realPath, path.join(ws, 'inside.txt'));
    const created = await boundary.resolve(path.join(ws, 'new', 'deeper', 'file.ts'), 'write');
    assert.equal(created.stat, undefined);
  });

  test('refuses relative paths (ACP: paths are absolute)', async () => {
    await refused(boundary.resolve('inside.txt', 'read'), RpcCode.invalidParams, /must be absolute/);
  });

  test('refuses paths outside the workspace and .. traversal', async () => {
    await refused(boundary.resolve(path.join(outside, 'secret.txt'), 'read'), RpcCode.resourceNotFound, /outside the workspace/);
    await refused(boundary.resolve(`${ws}/../${path.basename(outside)}/secret.txt`, 'write'), RpcCode.resourceNotFound, /outside the workspace/);
  });

  test('refuses symlinks that escape, for files and folders, existing or not', async () => {
    await refused(boundary.resolve(path.join(ws, 'link-out.txt'), 'read'), RpcCode.resourceNotFound, /resolves to/);
    await refused(boundary.resolve(path.join(ws, 'dir-out', 'new.txt'), 'write'), RpcCode.resourceNotFound, /outside the workspace/);
    await refused(boundary.resolve(path.join(ws, 'dangling.txt'), 'write'), RpcCode.invalidParams, /symbolic link to a missing target/);
  });

  test('refuses hard links, devices and pipes', async () => {
    await refused(boundary.resolve(path.join(ws, 'hardlink.txt'), 'write'), RpcCode.invalidParams, /hard links/);
    await refused(boundary.resolve(path.join(ws, 'fifo'), 'read'), RpcCode.invalidParams, /pipe/);
    const devices = new WorkspaceBoundary(() => ['/dev']);
    await refused(devices.resolve('/dev/null', 'read'), RpcCode.invalidParams, /device/);
  });

  test('reads a missing file as resource not found', async () => {
    await refused(boundary.resolve(path.join(ws, 'nope.txt'), 'read'), RpcCode.resourceNotFound, /does not exist/);
  });

  test('slices lines 1-based with line and limit', () => {
    const text = 'a\nb\nc\nd';
    assert.equal(sliceLines(text, 2, 2), 'b\nc');
    assert.equal(sliceLines(text, 3), 'c\nd');
    assert.equal(sliceLines(text, undefined, 1), 'a');
    assert.equal(sliceLines(text), text);
  });
});
