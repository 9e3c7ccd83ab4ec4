import * as assert from 'node:assert/strict';
import { ChangeTracker, type PlannedFile } from '../../../src/changes/changeTracker';
import { formatRevertNote } from '../../../src/changes/revertNote';
import { SnapshotStore } from '../../../src/changes/snapshotStore';

const lines = (n: number, prefix = 'line'): string => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join('');

function setLine(text: string, n: number, value: string): string {
  const ls = text.split(/(?<=\n)/);
  ls[n - 1] = value;
  return ls.join('');
}

/** A fake workspace: path → text, and applying plans to it like the surface does. */
class Disk {
  readonly files = new Map<string, string>();
  read = (p: string): string | undefined => this.files.get(p);
  apply(files: readonly PlannedFile[]): void {
    for (const f of files) {
      if (!f.changed) {
        continue;
      }
      if (f.result === undefined) {
        this.files.delete(f.path);
      } else {
        this.files.set(f.path, f.result);
      }
    }
  }
}

/** The agent writes a file during the running turn, as the surface reports it. */
function agentWrites(t: ChangeTracker, disk: Disk, path: string, text: string | undefined): void {
  t.recordBefore(path, disk.read(path), { source: 'write' });
  if (text === undefined) {
    disk.files.delete(path);
  } else {
    disk.files.set(path, text);
  }
  t.recordAfter(path, text);
}

suite('changes: ChangeTracker', () => {
  let store: SnapshotStore;
  let t: ChangeTracker;
  let disk: Disk;

  setup(() => {
    store = new SnapshotStore();
    t = new ChangeTracker({ store, now: () => 1000 });
    disk = new Disk();
  });

  teardown(() => {
    t.dispose();
    assert.equal(store.usage().snapshots, 0, 'dispose releases every snapshot');
  });

  test('two turns, three files: counts per turn, restore to before turn 1 gives the original bytes and deletes the new file', () => {
    const a0 = lines(30, 'a');
    const b0 = 'b one\r\nb two\r\nb three';
    disk.files.set('/w/a.txt', a0);
    disk.files.set('/w/b.txt', b0);
    t.beginTurn(1, 'first');
    const a1 = setLine(setLine(a0, 3, 'A THREE\n'), 20, 'A TWENTY\nA TWENTY-B\n');
    agentWrites(t, disk, '/w/a.txt', a1);
    // A permission diff: the snapshot is taken before the agent writes the file itself.
    t.recordBefore('/w/b.txt', disk.read('/w/b.txt'), { source: 'permission', needsConfirm: true });
    disk.files.set('/w/b.txt', 'b one\r\nB TWO\r\nb three');
    assert.deepEqual(t.pathsToConfirm(), ['/w/b.txt']);
    t.recordAfter('/w/b.txt', disk.read('/w/b.txt'));
    t.endTurn();

    t.beginTurn(2, 'second');
    agentWrites(t, disk, '/w/new/c.txt', 'brand\nnew\n');
    agentWrites(t, disk, '/w/a.txt', setLine(a1, 10, 'A TEN\n'));
    t.endTurn();

    const turns = t.turns();
    assert.deepEqual(
      turns.map((x) => [x.turnId, x.files.map((f) => [f.path, f.added, f.removed, f.created])]),
      [
        [1, [['/w/a.txt', 3, 2, false], ['/w/b.txt', 1, 1, false]]],
        [2, [['/w/new/c.txt', 2, 0, true], ['/w/a.txt', 1, 1, false]]],
      ],
    );
    const plan = t.planRestore(1, disk.read);
    assert.equal(plan.conflicts, 0);
    disk.apply(plan.files);
    t.commit(plan.files);
    assert.equal(disk.read('/w/a.txt'), a0);
    assert.equal(disk.read('/w/b.txt'), b0);
    assert.equal(disk.files.has('/w/new/c.txt'), false);
    assert.deepEqual(t.turns().flatMap((x) => x.files.map((f) => f.pending)), [0, 0, 0, 0]);
    assert.match(formatRevertNote(t.note), /a\.txt: restored to how it was before turn 1/);
    assert.match(formatRevertNote(t.note), /c\.txt \(turn 2\): the file you created was deleted/);
  });

  test('a turn revert keeps a user edit made between turns in another region', () => {
    const a0 = lines(20);
    disk.files.set('/a', a0);
    t.beginTurn(1);
    agentWrites(t, disk, '/a', setLine(setLine(a0, 2, 'TWO\n'), 18, 'EIGHTEEN\n'));
    t.endTurn();
    disk.files.set('/a', setLine(disk.read('/a') ?? '', 10, 'user ten\n'));
    const plan = t.planRevert([{ turnId: 1, path: '/a' }], disk.read);
    assert.equal(plan.conflicts, 0);
    disk.apply(plan.files);
    t.commit(plan.files);
    assert.equal(disk.read('/a'), setLine(a0, 10, 'user ten\n'));
    assert.equal(t.file(1, '/a')?.pending, 0);
  });

  test('an overlapping user edit is reported, not overwritten; force overwrites it', () => {
    const a0 = lines(10);
    disk.files.set('/a', a0);
    t.beginTurn(1);
    agentWrites(t, disk, '/a', setLine(a0, 5, 'FIVE\n'));
    t.endTurn();
    const edited = setLine(disk.read('/a') ?? '', 5, 'FIVE and the user\n');
    disk.files.set('/a', edited);
    const plan = t.planRevert([{ turnId: 1, path: '/a' }], disk.read);
    assert.equal(plan.conflicts, 1);
    assert.equal(plan.files[0]?.changed, false);
    const forced = t.planRevert([{ turnId: 1, path: '/a' }], disk.read, { force: true });
    assert.equal(forced.files[0]?.result, a0);
  });

  test('a later turn over the same lines: reverting the earlier turn alone conflicts; restoring before it does not', () => {
    const a0 = lines(8);
    disk.files.set('/a', a0);
    t.beginTurn(1);
    agentWrites(t, disk, '/a', setLine(a0, 4, 'FOUR v1\n'));
    t.endTurn();
    t.beginTurn(2);
    agentWrites(t, disk, '/a', setLine(a0, 4, 'FOUR v2\n'));
    t.endTurn();
    assert.equal(t.planRevert([{ turnId: 1, path: '/a' }], disk.read).conflicts, 1);
    const plan = t.planRestore(1, disk.read);
    assert.equal(plan.conflicts, 0);
    assert.equal(plan.files[0]?.result, a0);
  });

  test('restore with a user edit in a conflicting region asks; force writes the snapshot exactly', () => {
    const a0 = lines(8);
    disk.files.set('/a', a0);
    t.beginTurn(1);
    agentWrites(t, disk, '/a', setLine(a0, 4, 'FOUR\n'));
    t.endTurn();
    disk.files.set('/a', setLine(setLine(disk.read('/a') ?? '', 4, 'FOUR user\n'), 7, 'seven user\n'));
    assert.equal(t.planRestore(1, disk.read).conflicts, 1);
    const forced = t.planRestore(1, disk.read, { force: true });
    assert.equal(forced.files[0]?.result, a0);
  });

  test('kept hunks leave the pending list and Revert File skips them; restore still undoes them', () => {
    const a0 = lines(20);
    disk.files.set('/a', a0);
    t.beginTurn(1);
    const a1 = setLine(setLine(a0, 2, 'TWO\n'), 15, 'FIFTEEN\n');
    agentWrites(t, disk, '/a', a1);
    t.endTurn();
    const [first] = t.file(1, '/a')?.hunks ?? [];
    assert.ok(first !== undefined);
    t.keep({ turnId: 1, path: '/a', keys: [first.key] });
    assert.deepEqual([t.file(1, '/a')?.pending, t.file(1, '/a')?.added], [1, 1]);
    const plan = t.planRevert([{ turnId: 1, path: '/a' }], disk.read);
    assert.equal(plan.files[0]?.result, setLine(a1, 15, 'line 15\n'));
    disk.apply(plan.files);
    t.commit(plan.files);
    assert.equal(t.planRestore(1, disk.read).files[0]?.result, a0);
  });

  test('a file written twice in a turn keeps the first snapshot; an unchanged file is dropped at the end of the turn', () => {
    disk.files.set('/a', 'one\n');
    disk.files.set('/same', 'same\n');
    t.beginTurn(1);
    agentWrites(t, disk, '/a', 'two\n');
    agentWrites(t, disk, '/a', 'three\n');
    agentWrites(t, disk, '/same', 'same\n');
    t.recordBefore('/denied', 'x\n', { source: 'permission', needsConfirm: true });
    t.recordAfter('/denied', 'x\n');
    t.endTurn();
    assert.deepEqual(t.turns()[0]?.files.map((f) => f.path), ['/a']);
    assert.equal(t.baseText(1, '/a'), 'one\n');
    assert.equal(store.usage().snapshots, 1, 'snapshots of dropped files are released');
  });

  test('a snapshot read that raced the agent’s own write is revised from the permission diff', () => {
    t.beginTurn(1);
    // The tool call named the file; by the time the disk was read, the agent had written it.
    t.recordBefore('/h', 'new text\n', { source: 'location', needsConfirm: true });
    const diff = { oldText: 'old text\n', newText: 'new text\n' };
    const revise = (base: string | undefined): { text: string | undefined; certain: boolean } =>
      base === diff.newText ? { text: diff.oldText, certain: true } : { text: base, certain: true };
    assert.equal(t.reviseBefore('/h', revise), true);
    assert.equal(t.baseText(1, '/h'), 'old text\n');
    assert.deepEqual(t.pathsToConfirm(), ['/h'], 'still confirmed from disk at the end');
    assert.equal(t.reviseBefore('/h', revise), false, 'nothing to revise any more');
    t.recordAfter('/h', 'new text\n');
    assert.equal(t.reviseBefore('/h', () => ({ text: 'other\n', certain: true })), false, 'not once a change is recorded');
    // Never over an exact before text from a client write.
    agentWrites(t, disk, '/w', 'x\n');
    assert.equal(t.reviseBefore('/w', () => ({ text: 'y\n', certain: true })), false);
    t.endTurn();
    assert.deepEqual(t.file(1, '/h')?.hunks.map((h) => [h.baseText, h.agentText]), [['old text\n', 'new text\n']]);
  });

  test('a next turn may start before the last one is confirmed: both keep their files', async () => {
    disk.files.set('/a', 'a\n');
    disk.files.set('/b', 'b\n');
    t.beginTurn(1);
    t.recordBefore('/a', 'a\n', { source: 'permission', needsConfirm: true });
    disk.files.set('/a', 'A\n');
    // The prompt answered; before its after texts are read, the user sends the next prompt.
    t.beginTurn(2);
    assert.equal(t.isOpen(1), true);
    agentWrites(t, disk, '/b', 'B\n');
    const queued = t.whenIdle(() => Promise.resolve('ran'));
    t.recordAfter('/a', disk.read('/a'), { turnId: 1 });
    t.endTurn(1);
    assert.equal(t.isOpen(1), false);
    assert.equal(t.queued, 1, 'turn 2 still runs');
    assert.deepEqual(t.turns().map((x) => [x.turnId, x.files.map((f) => f.path)]), [[1, ['/a']], [2, ['/b']]]);
    t.endTurn(2);
    assert.equal(await queued, 'ran');
  });

  test('a turn that changed nothing is not listed', () => {
    t.beginTurn(1);
    t.endTurn();
    assert.deepEqual(t.turns(), []);
  });

  test('work queued while a turn runs waits for the turn to end, in order', async () => {
    disk.files.set('/a', 'x\n');
    t.beginTurn(1);
    agentWrites(t, disk, '/a', 'y\n');
    const order: string[] = [];
    const first = t.whenIdle(() => {
      order.push('revert');
      return Promise.resolve(1);
    });
    const second = t.whenIdle(() => {
      order.push('keep');
      return Promise.resolve(2);
    });
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(order, []);
    assert.equal(t.queued, 2);
    t.endTurn();
    assert.deepEqual(await Promise.all([first, second]), [1, 2]);
    assert.deepEqual(order, ['revert', 'keep']);
    assert.equal(await t.whenIdle(() => Promise.resolve('now')), 'now', 'runs at once when idle');
  });

  test('queued work started after a new turn began waits for that turn too', async () => {
    t.beginTurn(1);
    const ran: number[] = [];
    const p = t.whenIdle(async () => {
      ran.push(1);
      t.beginTurn(2);
      return Promise.resolve();
    });
    const q = t.whenIdle(() => {
      ran.push(2);
      return Promise.resolve();
    });
    t.endTurn();
    await p;
    await new Promise((r) => setTimeout(r, 10));
    assert.deepEqual(ran, [1]);
    t.endTurn();
    await q;
    assert.deepEqual(ran, [1, 2]);
  });

  test('reconcile: a hunk reverted by hand is recorded, an undo of our revert brings it back', () => {
    const a0 = lines(10);
    disk.files.set('/a', a0);
    t.beginTurn(1);
    const a1 = setLine(a0, 3, 'THREE\n');
    agentWrites(t, disk, '/a', a1);
    t.endTurn();
    assert.equal(t.reconcile('/a', a0), true);
    assert.equal(t.file(1, '/a')?.pending, 0);
    assert.equal(t.reconcile('/a', a1), true);
    assert.equal(t.file(1, '/a')?.pending, 1);
    assert.equal(t.reconcile('/a', a1), false);
  });

  test('files over the size limit are listed but not snapshotted, and cannot be reverted', () => {
    const small = new ChangeTracker({ store, maxFileBytes: 10 });
    small.beginTurn(1);
    small.recordBefore('/big', 'x'.repeat(100), { source: 'write' });
    small.recordAfter('/big', 'y'.repeat(100));
    small.endTurn();
    assert.equal(small.file(1, '/big')?.untracked, 'tooLarge');
    const plan = small.planRevert([{ turnId: 1, path: '/big' }], () => 'y'.repeat(100));
    assert.equal(plan.files[0]?.untracked, 'tooLarge');
    assert.equal(plan.files[0]?.changed, false);
    small.dispose();
  });

  test('the note lists reverted hunks with their lines until cleared', () => {
    const a0 = lines(10);
    disk.files.set('/w/a.ts', a0);
    t.beginTurn(1);
    agentWrites(t, disk, '/w/a.ts', setLine(a0, 4, 'const x = 2;\n'));
    t.endTurn();
    const plan = t.planRevert([{ turnId: 1, path: '/w/a.ts' }], disk.read);
    t.commit(plan.files);
    const note = formatRevertNote(t.note, (p) => p.replace('/w/', ''));
    assert.match(note, /^Note from the editor: since your last turn the user reverted/);
    assert.match(note, /- a\.ts line 4 \(turn 1\): your 1 line starting "const x = 2;" was replaced by the previous text/);
    t.clearNote();
    assert.equal(formatRevertNote(t.note), '');
  });

  test('usage counts files, snapshot bytes and hunk memory', () => {
    disk.files.set('/a', 'x'.repeat(1000) + '\n');
    t.beginTurn(1);
    agentWrites(t, disk, '/a', 'y\n');
    t.endTurn();
    const u = t.usage();
    assert.deepEqual([u.turns, u.files, u.snapshotBytes], [1, 1, 1001]);
    assert.ok(u.hunkBytes >= 2 * 1003);
  });

  test('forget drops turns and releases their snapshots', () => {
    disk.files.set('/a', 'x\n');
    t.beginTurn(1);
    agentWrites(t, disk, '/a', 'y\n');
    t.endTurn();
    assert.equal(store.usage().snapshots, 1);
    t.forget(1);
    assert.deepEqual(t.turns(), []);
    assert.equal(store.usage().snapshots, 0);
  });
});
