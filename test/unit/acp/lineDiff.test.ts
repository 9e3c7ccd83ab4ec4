import * as assert from 'node:assert/strict';
import { diffHunks, diffLines, diffStats } from '../../../src/util/lineDiff';

suite('line diff', () => {
  test('counts added and removed lines', () => {
    assert.deepEqual(diffStats('a\nb\nc\n', 'a\nB\nc\nd\n'), { added: 2, removed: 1 });
    assert.deepEqual(diffStats('', 'x\ny\n'), { added: 2, removed: 0 });
    assert.deepEqual(diffStats('same\n', 'same\n'), { added: 0, removed: 0 });
  });

  test('reconstructs both sides from the ops', () => {
    const a = ['one', 'two', 'three', 'four', 'five'].join('\n');
    const b = ['zero', 'one', 'three', 'FOUR', 'five', 'six'].join('\n');
    const ops = diffLines(a, b);
    assert.equal(ops.filter((o) => o.kind !== 'insert').map((o) => o.line).join('\n'), a);
    assert.equal(ops.filter((o) => o.kind !== 'delete').map((o) => o.line).join('\n'), b);
  });

  test('groups distant changes into separate hunks with context', () => {
    const old = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`).join('\n');
    const changed = old.replace('line 3', 'LINE 3').replace('line 30', 'LINE 30');
    const hunks = diffHunks(old, changed, 2);
    assert.equal(hunks.length, 2);
    assert.equal(hunks[0]?.oldStart, 1);
    assert.equal(hunks[1]?.oldStart, 28);
    assert.equal(hunks[1]?.oldLines, 5);
  });

  test('a 10 MB diff (200,000+ lines, every 10th changed) is counted without overflowing the call stack', function () {
    this.timeout(20_000);
    const lines = Array.from({ length: 210_000 }, (_, i) => `row ${String(i).padStart(6, '0')}: lorem ipsum dolor sit amet, consectetur adipiscing elit`);
    const oldText = `${lines.join('\n')}\n`;
    const newText = `${lines.map((l, i) => (i % 10 === 4 ? `${l} (changed)` : l)).join('\n')}\n`;
    assert.ok(oldText.length > 10 * 1024 * 1024);
    // Too many edits for the search (over maxEditDistance): reported as a replace of the differing middle.
    const stats = diffStats(oldText, newText);
    assert.equal(stats.added, stats.removed);
    assert.ok(stats.added >= 21_000 && stats.added <= 210_000, `${stats.added}`);
    assert.ok(diffHunks(oldText, newText).length >= 1);
  });
});
