import type { EntryView } from '../src/protocol/sessionView';
import { patchWindowMs } from '../src/views/chat/webviewChannel';
import { installProbes, interactionFigures, probeScrolling, probeTyping, summarize, type InteractionSummary } from './interaction';
import { agentAnswer, chunked } from './streamText';
import { frameTimes, longTasks } from './traceFrames';
import { benchHeader, channelTextIntervalMs, mainThreadDelta, percentile, WebviewBrowser } from './webviewPage';

/**
 * P5 — a very long reply: 100,000 chunks (~400 KB of Markdown) streamed into one message at
 * 1,000 chunks a second, as P2 does, while a user types in the composer and scrolls the
 * transcript every 10 s. Reported: CPU versus rendering the final message once, linearity (the
 * last quarter of the stream versus the first), the renderer's longest tasks and frames, typing
 * latency and frame gaps while scrolling, heap and DOM size at the end.
 */
export interface P5Options {
  readonly chunks: number;
  readonly chunksPerSecond: number;
  readonly charsPerChunk: number;
  /** A typing and a scrolling probe this often while the reply streams. */
  readonly probeEveryMs: number;
}

export const defaultP5: P5Options = { chunks: 100_000, chunksPerSecond: 1_000, charsPerChunk: 4, probeEveryMs: 10_000 };

export interface P5Result extends InteractionSummary {
  readonly chunks: number;
  readonly chars: number;
  readonly streamWallMs: number;
  readonly onceCpuMs: number;
  readonly streamCpuMs: number;
  /** streamCpuMs / onceCpuMs; the stream's CPU includes the probes' (typing, scrolling). */
  readonly ratio: number;
  readonly growth: number;
  /** Main-thread CPU of each one-second slice without a probe, and of each probe (typing + scrolling). */
  readonly slicesCpuMs: readonly number[];
  readonly probeSlicesCpuMs: readonly number[];
  readonly longTasksCpu: number;
  readonly longestTaskCpuMs: number;
  readonly longestTaskWallMs: number;
  readonly frameP95CpuMs: number;
  readonly frameMaxCpuMs: number;
  readonly typingSamples: number;
  readonly scrollFrames: number;
  readonly heapMB: number;
  readonly nodes: number;
}

export async function runP5(options: P5Options = defaultP5): Promise<P5Result> {
  const text = agentAnswer(options.chunks * options.charsPerChunk);
  const chunks = chunked(text, options.chunks);
  const final: EntryView = { kind: 'assistant', id: 'a', parts: [{ kind: 'text', text }] };
  const browser = await WebviewBrowser.launch();
  try {
    const oncePage = await browser.open();
    await oncePage.warmUp();
    const deliver = await oncePage.prepareSnapshot(benchHeader('idle'), [final]);
    const o0 = await oncePage.metrics();
    await deliver();
    const onceShown = await oncePage.settleShown('a');
    const onceCpuMs = mainThreadDelta(o0, await oncePage.metrics()).cpuMs;
    await oncePage.close();

    const page = await browser.open();
    await page.warmUp();
    await installProbes(page);
    let done = false;
    const slicesCpuMs: number[] = [];
    const probeSlicesCpuMs: number[] = [];
    let streamWallMs = 0;
    const play = await page.prepareStream(chunks, {
      chunksPerSecond: options.chunksPerSecond,
      windowMs: patchWindowMs,
      textIntervalMs: channelTextIntervalMs(chunks, options.chunksPerSecond),
      index: 0,
      entryId: 'a',
    });
    const m0 = await page.metrics();
    const trace = await browser.traced(page, ['toplevel', 'cc'], async () => {
      const streamed = play().finally(() => {
        done = true;
      });
      let previous = m0;
      let nextProbe = Date.now() + options.probeEveryMs / 2;
      while (!done) {
        const probing = Date.now() >= nextProbe;
        if (probing) {
          nextProbe += options.probeEveryMs;
          await probeTyping(page);
          await probeScrolling(page);
        } else {
          await Promise.race([streamed, new Promise((r) => setTimeout(r, 1_000))]);
        }
        const now = await page.metrics();
        (probing ? probeSlicesCpuMs : slicesCpuMs).push(now.cpuMs - previous.cpuMs);
        previous = now;
      }
      const outcome = await streamed;
      streamWallMs = outcome.wallMs;
      await page.patch([], benchHeader('idle'));
      await page.settle();
    });
    const m1 = await page.metrics();
    const shown = await page.shownChars('a');
    if (shown !== onceShown || page.errors.length > 0) {
      throw new Error(`the streamed reply shows ${shown} characters, the one-shot render ${onceShown}; errors: ${page.errors.slice(0, 3).join(' | ')}`);
    }
    const figures = await interactionFigures(page);
    await page.collectGarbage();
    const end = await page.metrics();
    await page.close();

    const tasks = longTasks(trace, 50);
    const frames = frameTimes(trace);
    // Linearity from the one-second slices without a probe; the first (inserting the message) left out.
    const slices = slicesCpuMs.slice(1);
    const quarter = Math.max(1, Math.floor(slices.length / 4));
    const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
    const streamCpuMs = mainThreadDelta(m0, m1).cpuMs;
    return {
      chunks: chunks.length,
      chars: text.length,
      streamWallMs,
      onceCpuMs,
      streamCpuMs,
      ratio: streamCpuMs / onceCpuMs,
      growth: sum(slices.slice(-quarter)) / sum(slices.slice(0, quarter)),
      slicesCpuMs,
      probeSlicesCpuMs,
      longTasksCpu: tasks.overCpuMs.length,
      longestTaskCpuMs: tasks.maxCpuMs,
      longestTaskWallMs: tasks.maxWallMs,
      frameP95CpuMs: percentile(frames.cpuMs, 95),
      frameMaxCpuMs: Math.max(0, ...frames.cpuMs),
      ...summarize(figures),
      typingSamples: figures.typingMs.length,
      scrollFrames: figures.scrollFrameGapsMs.length,
      heapMB: end.heapBytes / (1024 * 1024),
      nodes: end.nodes,
    };
  } finally {
    await browser.close();
  }
}
