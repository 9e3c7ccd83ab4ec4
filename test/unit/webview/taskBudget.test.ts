import * as assert from 'node:assert/strict';
import type { Token } from 'marked';
import { placeWithinBudget } from '../../../src/webview/markdown/taskBudget';
import { finishedCharsPerTask, finishedMsPerTask } from '../../../src/webview/markdown/viewLimits';

/** Paragraph tokens of 1 KB each (a batch is two of them). */
function blocks(n: number): Token[] {
  return Array.from({ length: n }, (_, i): Token => ({ type: 'paragraph', raw: `${String(i).padEnd(1023, '.')}\n`, text: '', tokens: [] }));
}

/** Places batches with a clock that advances `msPerKb` per kilobyte placed; the batches placed and what was left. */
function run(count: number, msPerKb: number): { batches: number[]; left: number; ms: number } {
  let clock = 0;
  const batches: number[] = [];
  const left = placeWithinBudget(
    blocks(count),
    (batch) => {
      batches.push(batch.length);
      clock += batch.reduce((n, tk) => n + tk.raw.length, 0) * (msPerKb / 1024);
    },
    { now: () => clock, inputPending: () => false },
  );
  return { batches, left: left.length, ms: clock };
}

suite('webview: placing finished blocks within a task budget', () => {
  test('a refresh that fits is placed in one task (one frame follows, not one per batch)', () => {
    // 4 KB (a refresh at 1,000 chunks/s) at 3 ms per KB: 12 ms, under the budget.
    const r = run(4, 3);
    assert.deepEqual(r.batches, [2, 2]);
    assert.equal(r.left, 0);
  });

  test('no task places more than finishedCharsPerTask, however fast', () => {
    const r = run(40, 0.01);
    assert.equal(r.batches.reduce((a, b) => a + b, 0) * 1024, finishedCharsPerTask);
    assert.equal(r.left, 40 - finishedCharsPerTask / 1024);
  });

  test('a slow machine: the task stops before the batch that would cross the budget', () => {
    // 10 ms per KB: a batch takes 20 ms; a second would end at 40 ms.
    const r = run(4, 10);
    assert.deepEqual(r.batches, [2]);
    assert.equal(r.left, 2);
    assert.ok(r.ms <= finishedMsPerTask);
  });

  test('in between, batches go on while the predicted end stays within the budget', () => {
    // 4 ms per KB: 8 ms a batch; ends at 8, 16, 24 ms, and a fourth would end at 32.
    const r = run(8, 4);
    assert.deepEqual(r.batches, [2, 2, 2]);
    assert.equal(r.left, 2);
    assert.ok(r.ms <= finishedMsPerTask, `${r.ms} ms`);
  });

  test('one batch always goes, even past the budget (a slow batch is not split)', () => {
    const r = run(3, 40);
    assert.deepEqual(r.batches, [2]);
    assert.equal(r.left, 1);
  });

  test('all: every batch in one task, however slow; a key waiting stops it after the batch it came in (one batch always goes)', () => {
    let clock = 0;
    const placed: number[] = [];
    const place = (batch: Token[]): void => {
      placed.push(batch.length);
      clock += 40;
    };
    assert.equal(placeWithinBudget(blocks(10), place, { now: () => clock, inputPending: () => false }, true).length, 0);
    assert.deepEqual(placed, [2, 2, 2, 2, 2]);
    placed.length = 0;
    let checks = 0;
    assert.equal(placeWithinBudget(blocks(10), place, { now: () => clock, inputPending: () => ++checks >= 2 }, true).length, 6);
    assert.deepEqual(placed, [2, 2], 'the key was seen after the second batch');
    placed.length = 0;
    clock = 0;
    assert.equal(placeWithinBudget(blocks(10), (b) => placed.push(b.length), { now: () => clock, inputPending: () => true }).length, 8, 'one batch goes, key or not');
  });
});
