import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { removeStaleSpillDirs, SnapshotStore } from '../../../src/changes/snapshotStore';

suite('changes: SnapshotStore', () => {
  let root: string;

  setup(() => {
    root = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-snap-'));
  });

  teardown(() => {
    fs.rmSync(root, { recursive: true, force: true });
  });

  test('identical texts are stored once and released by reference count', () => {
    const s = new SnapshotStore();
    const a = s.put('hello\n');
    const b = s.put('hello\n');
    assert.ok(a !== undefined && b !== undefined);
    assert.equal(a.id, b.id);
    assert.deepEqual(s.usage(), { snapshots: 1, bytesInMemory: 6, bytesOnDisk: 0 });
    s.release(a);
    assert.equal(s.get(b), 'hello\n');
    s.release(b);
    assert.deepEqual(s.usage(), { snapshots: 0, bytesInMemory: 0, bytesOnDisk: 0 });
    assert.throws(() => s.get(b), /released/);
  });

  test('past the memory cap the oldest texts spill to disk in the background and read back exactly', async () => {
    const dir = path.join(root, `${process.pid}-spill`);
    const s = new SnapshotStore({ spillDir: dir, memoryCapBytes: 2500 });
    const texts = Array.from({ length: 5 }, (_, i) => `${String(i).repeat(999)}é`);
    const refs = texts.map((t) => s.put(t));
    assert.equal(s.usage().bytesOnDisk, 0, 'put never waits for the disk');
    await s.settled();
    const u = s.usage();
    assert.equal(u.snapshots, 5);
    assert.ok(u.bytesInMemory <= 2500, `memory ${u.bytesInMemory}`);
    assert.equal(u.bytesInMemory + u.bytesOnDisk, 5 * 1001);
    assert.equal(fs.readdirSync(dir).length, 3);
    const present = refs.filter((r) => r !== undefined);
    await s.load(present);
    assert.equal(s.usage().bytesInMemory, 5 * 1001, 'loaded back');
    refs.forEach((r, i) => assert.equal(r !== undefined ? s.get(r) : undefined, texts[i]));
    assert.equal(s.synchronousReads, 0);
    await s.settled();
    assert.ok(s.usage().bytesInMemory <= 2500, 'evicted again, without writing twice');
    const files = fs.readdirSync(dir).length;
    const first = refs[0];
    assert.ok(first !== undefined);
    s.release(first);
    await new Promise((r) => setTimeout(r, 50));
    assert.equal(fs.readdirSync(dir).length, files - 1, 'a released spilled text is deleted');
    s.dispose();
    assert.equal(fs.existsSync(dir), false);
  });

  test('without a spill directory memory is the limit; with one, memory + disk', async () => {
    const s = new SnapshotStore({ memoryCapBytes: 10 });
    assert.ok(s.put('12345') !== undefined);
    assert.equal(s.put('1234567890'), undefined);
    const d = new SnapshotStore({ spillDir: path.join(root, 'x'), memoryCapBytes: 10, diskCapBytes: 10 });
    assert.ok(d.put('1234567890') !== undefined);
    assert.ok(d.put('abcdefghij') !== undefined);
    assert.equal(d.put('ABCDEFGHIJ'), undefined);
    await d.settled();
    assert.deepEqual(d.usage(), { snapshots: 2, bytesInMemory: 10, bytesOnDisk: 10 });
    d.dispose();
  });

  test('stale spill directories of dead hosts are removed, live ones kept', async () => {
    fs.mkdirSync(path.join(root, '999999999-abc'));
    fs.mkdirSync(path.join(root, `${process.pid}-mine`));
    fs.mkdirSync(path.join(root, '4242-alive'));
    const removed = await removeStaleSpillDirs(root, (pid) => pid === 4242);
    assert.equal(removed, 1);
    assert.deepEqual(fs.readdirSync(root).sort(), [`${process.pid}-mine`, '4242-alive'].sort());
    assert.equal(await removeStaleSpillDirs(path.join(root, 'missing'), () => false), 0);
  });
});
