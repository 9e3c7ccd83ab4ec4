// P9 reports how many agents streamed at once in a round (bench/intervals.ts): the load its end is measured under.
import * as assert from 'node:assert/strict';
import { mostAtOnce } from '../../../bench/intervals';

suite('P9: agents streaming at once', () => {
  test('eight bursts a second apart, each 1.5 s long: two at once at most', () => {
    const bursts = Array.from({ length: 8 }, (_, i) => [i * 1_000, i * 1_000 + 1_500] as const);
    assert.equal(mostAtOnce(bursts), 2);
  });

  test('eight bursts sent within half a second, each 1.5 s long: all eight at once', () => {
    const bursts = Array.from({ length: 8 }, (_, i) => [i * 60, i * 60 + 1_500] as const);
    assert.equal(mostAtOnce(bursts), 8);
  });

  test('one ending as the next starts is not two at once; none is zero', () => {
    assert.equal(mostAtOnce([[0, 100], [100, 200], [200, 300]]), 1);
    assert.equal(mostAtOnce([]), 0);
  });
});
