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
});
