import * as assert from 'node:assert/strict';
import { MarkdownView } from '../../../src/webview/markdown';
import { beatMs, createTicker } from '../../../src/webview/ticker';
import { bareWindowEachTest, FakeTimers } from './harness';

suite('webview: the one-second beat and paced timers on it', () => {
  /** A ticker on fake timers whose beat callback logs when it ran. */
  function ticking(): { timers: FakeTimers; ticker: ReturnType<typeof createTicker>; log: string[]; beat: () => void } {
    const timers = new FakeTimers();
    const ticker = createTicker(timers);
    const log: string[] = [];
    const beat = (): void => void log.push(`beat@${timers.now()}`);
    ticker.add(beat);
    return { timers, ticker, log, beat };
  }

  test('a paced timer due shortly before a beat is put off to the beat', () => {
    const { timers, ticker, log } = ticking();
    timers.advance(150);
    // Due at 950; the beat comes at 1,000 (within a quarter of 800 ms).
    ticker.paced.setTimeout(() => log.push(`render@${timers.now()}`), 800);
    timers.advance(849);
    assert.deepEqual(log, []);
    timers.advance(1);
    assert.deepEqual(log.sort(), [`beat@${beatMs}`, 'render@1000']);
  });

  test('a timer due a little after a beat runs on it, at most a tenth of its delay early', () => {
    const { timers, ticker, log } = ticking();
    timers.advance(100);
    ticker.paced.setTimeout(() => log.push(`late@${timers.now()}`), 950); // due 1,050: 50 ms after the beat
    timers.advance(900);
    assert.deepEqual(log.sort(), ['beat@1000', 'late@1000']);
  });

  test('a timer far from a beat keeps its own time', () => {
    const { timers, ticker, log } = ticking();
    timers.advance(100);
    ticker.paced.setTimeout(() => log.push(`after@${timers.now()}`), 1_100); // due 1,200: more than a tenth of 1,100 after
    ticker.paced.setTimeout(() => log.push(`short@${timers.now()}`), 100); // due 200: the beat is 8× later
    timers.advance(2_000);
    assert.deepEqual(log, ['short@200', 'beat@1000', 'after@1200', 'beat@2000']);
  });

  test('a paced timer on the beat can be cancelled', () => {
    const { timers, ticker, log } = ticking();
    const id = ticker.paced.setTimeout(() => log.push('render'), 900);
    ticker.paced.clearTimeout(id);
    timers.advance(1_000);
    assert.deepEqual(log, ['beat@1000']);
  });

  test('without a beat, paced timers are plain timers; the beat runs while a label needs it', () => {
    const timers = new FakeTimers();
    const ticker = createTicker(timers);
    const log: string[] = [];
    ticker.paced.setTimeout(() => log.push(`render@${timers.now()}`), 900);
    timers.advance(1_000);
    const beat = (): void => void log.push(`beat@${timers.now()}`);
    ticker.add(beat);
    timers.advance(2_000);
    ticker.remove(beat);
    ticker.paced.setTimeout(() => log.push(`after@${timers.now()}`), 900);
    timers.advance(5_000);
    assert.deepEqual(log, ['render@900', 'beat@2000', 'beat@3000', 'after@3900']);
    assert.equal(timers.count, 0, 'no timer left behind');
  });
});

suite('webview: a fast stream refreshed on the beat', () => {
  const fx = bareWindowEachTest();

  test('while the turn clock ticks, a stream at 4,000 characters a second is refreshed on the beats', () => {
    const ticker = createTicker(fx.timers);
    const beats: number[] = [];
    ticker.add(() => beats.push(fx.timers.now()));
    const view = new MarkdownView(ticker.paced);
    const refreshes: number[] = [];
    let text = '';
    let shown = 0;
    fx.timers.advance(370); // the reply starts between two beats
    for (let i = 0; i < 800; i++) {
      text += i % 20 === 19 ? 'the end of a paragraph, and more words.\n\n' : 'Some words of a reply, a few more. ';
      view.set(text, true);
      fx.timers.advance(10);
      const length = view.element.textContent?.length ?? 0;
      if (length !== shown) {
        shown = length;
        refreshes.push(fx.timers.now());
      }
    }
    const later = refreshes.filter((at) => at > 3_000);
    assert.ok(later.length >= 4, `refreshes after 3 s: ${later.join(', ')}`);
    for (const at of later) {
      assert.ok(beats.includes(at), `a refresh at ${at} ms, beats at ${beats.join(', ')}`);
    }
  });
});
