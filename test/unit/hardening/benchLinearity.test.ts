// P2's linearity gate (bench/linearity.ts): CPU per character shown, last quarter of a stream
// versus its first. These cases pin down what it divides by and what it leaves out.
import * as assert from 'node:assert/strict';
import { quarterFigures, type Slice } from '../../../bench/linearity';

/** Slices of `cpu` ms each, with `chars[i]` characters shown by the end of slice i. */
function slices(cpu: readonly number[], chars: readonly number[]): Slice[] {
  return cpu.map((cpuMs, i) => ({ cpuMs, shownChars: chars[i] ?? 0 }));
}

suite('P2 linearity: CPU per character shown', () => {
  test('a quarter that held more refreshes is not counted as growth', () => {
    // 9 slices: the first inserts the message; quarters are slices 1–2 and 7–8. The first quarter
    // holds two refreshes of 4,000 characters (60 ms), the last three (90 ms): the same cost per character.
    const run = slices([50, 30, 30, 30, 30, 30, 30, 30, 60], [500, 4_500, 8_500, 12_500, 16_500, 20_500, 24_500, 28_500, 36_500]);
    const q = quarterFigures([run]);
    assert.equal(q.firstQuarterCpuMs, 60);
    assert.equal(q.firstQuarterChars, 8_000);
    assert.equal(q.lastQuarterCpuMs, 90);
    assert.equal(q.lastQuarterChars, 12_000);
    assert.equal(q.growth, 1);
    assert.equal(q.growthCpu, 1.5);
  });

  test('a character that costs more late in the stream is growth, whatever the refresh count', () => {
    const run = slices([50, 30, 30, 30, 30, 30, 30, 45, 45], [500, 4_500, 8_500, 12_500, 16_500, 20_500, 24_500, 28_500, 32_500]);
    assert.equal(quarterFigures([run]).growth, 1.5);
  });

  test('the first slice (the message inserted) is left out', () => {
    const cheap = slices([1, 30, 30, 30, 30], [100, 4_100, 8_100, 12_100, 16_100]);
    const costly = slices([500, 30, 30, 30, 30], [100, 4_100, 8_100, 12_100, 16_100]);
    assert.deepEqual(quarterFigures([cheap]), quarterFigures([costly]));
    assert.equal(quarterFigures([cheap]).growth, 1);
  });

  test('runs are pooled: sums of CPU and characters, not a mean of ratios', () => {
    const a = slices([10, 20, 20, 20, 40], [0, 2_000, 4_000, 6_000, 8_000]);
    const b = slices([10, 20, 20, 20, 20], [0, 2_000, 4_000, 6_000, 8_000]);
    const q = quarterFigures([a, b]);
    assert.equal(q.firstQuarterCpuMs, 40);
    assert.equal(q.lastQuarterCpuMs, 60);
    assert.equal(q.firstQuarterChars, 4_000);
    assert.equal(q.lastQuarterChars, 4_000);
    assert.equal(q.growth, 1.5);
  });
});
