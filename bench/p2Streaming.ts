import type { EntryView } from '../src/protocol/sessionView';
import { patchWindowMs } from '../src/views/webviewChannel';
import { agentAnswer, chunked } from './streamText';
import { frameTimes, frameTraceCategories, longTasks, longTasksOf, traceEvents, type LongTaskInfo } from './traceFrames';
import { benchHeader, channelTextIntervalMs, mainThreadDelta, percentile, streamInPage, WebviewBrowser, type MainThread, type StreamOutcome, type WebviewPage } from './webviewPage';

/**
 * P2 — streaming render: the real webview bundle in headless Chromium receives one agent message
 * as N chunks at the rate the host would post them (an agent producing `chunksPerSecond` chunks;
 * the host coalesces them as `WebviewChannel` does: the first patch within 16 ms, text-only
 * patches at most every 100 ms, each posted as its own task). Total main-thread time of the
 * whole stream versus rendering the final message once; long tasks while it streams.
 */
export interface P2Options {
  readonly chunks: number;
  readonly chunksPerSecond: number;
  readonly windowMs: number;
  /** Text-only patches at most this often; undefined: the channel's wait at this rate (`channelTextIntervalMs`). */
  readonly textIntervalMs?: number;
  /** Characters per chunk (about one LLM token). */
  readonly charsPerChunk: number;
  readonly onceRuns: number;
  /** Also stream once more with tracing on, for frame times. */
  readonly frames: boolean;
}

export interface P2Result {
  readonly chunks: number;
  readonly chars: number;
  readonly chunksPerSecond: number;
  readonly windowMs: number;
  readonly patches: number;
  readonly streamWallMs: number;
  /** Rendering the final message once (the median of `onceRuns` fresh pages, by CPU time). */
  readonly once: MainThread;
  readonly onceRunsCpuMs: readonly number[];
  /** The whole stream, until the last paced render settled. */
  readonly stream: MainThread;
  /** stream.cpuMs / once.cpuMs (≤ 2 is the target). */
  readonly ratio: number;
  /**
   * Linearity: main-thread CPU time of the stream's last quarter / its first quarter (the message
   * is 4× longer by then; ~1 when a chunk costs the same however long the message already is).
   */
  readonly growth: number;
  readonly firstQuarterCpuMs: number;
  readonly lastQuarterCpuMs: number;
  /** Main-thread CPU time of each second of the stream. */
  readonly slicesCpuMs: readonly number[];
  /** The same from TaskDuration (wall clock; inflated by a busy machine). */
  readonly ratioWall: number;
  /** Main-thread time per frame while streaming (traced run): p95 by CPU and by wall clock, max, count. */
  readonly frameP95Ms?: number;
  readonly frameP95WallMs?: number;
  readonly frameMaxMs?: number;
  readonly frames?: number;
  /** Frames over 16.7 ms of main-thread CPU time. */
  readonly framesOverBudget?: number;
  /** Main-thread tasks of the traced stream (turn end included) over 50 ms of CPU time, and over 50 ms of wall time. */
  readonly longTasksCpu?: number;
  readonly longTasksWall?: number;
  /** The longest tasks over 50 ms of CPU time (at most 3), with what ran in them. */
  readonly longestTasks?: readonly LongTaskInfo[];
  readonly longestTaskCpuMs?: number;
  readonly longestTaskWallMs?: number;
  readonly tasks?: number;
}

export const defaultP2: P2Options = {
  chunks: 20_000,
  chunksPerSecond: 1_000,
  windowMs: patchWindowMs,
  charsPerChunk: 4,
  onceRuns: 3,
  frames: true,
};

/**
 * Streams the message; with `sampleMs`, also samples the main thread's CPU time that often while
 * it streams (the cost of each slice of the stream: flat if rendering stays linear).
 */
async function stream(page: WebviewPage, chunks: readonly string[], options: P2Options, sampleMs?: number): Promise<StreamOutcome & { readonly slicesCpuMs: number[] }> {
  let done = false;
  const streamed = page.page
    .evaluate(streamInPage, {
      chunks,
      chunksPerSecond: options.chunksPerSecond,
      windowMs: options.windowMs,
      textIntervalMs: options.textIntervalMs ?? channelTextIntervalMs(chunks, options.chunksPerSecond),
      index: 0,
      entryId: 'a',
      firstSeq: page.lastSeq + 1,
    })
    .finally(() => {
      done = true;
    });
  const slicesCpuMs: number[] = [];
  if (sampleMs !== undefined) {
    let previous = await page.metrics();
    for (;;) {
      await Promise.race([streamed, new Promise((r) => setTimeout(r, sampleMs))]);
      if (done) {
        break;
      }
      const now = await page.metrics();
      slicesCpuMs.push(now.cpuMs - previous.cpuMs);
      previous = now;
    }
  }
  const outcome = await streamed;
  page.advanceSeq(outcome.lastSeq);
  await page.patch([], benchHeader('idle')); // the turn ended
  await page.settle();
  return { ...outcome, slicesCpuMs };
}

export async function runP2(options: P2Options = defaultP2): Promise<P2Result> {
  const text = agentAnswer(options.chunks * options.charsPerChunk);
  const chunks = chunked(text, options.chunks);
  const final: EntryView = { kind: 'assistant', id: 'a', parts: [{ kind: 'text', text }] };
  const browser = await WebviewBrowser.launch();
  try {
    // Once: a fresh page renders the finished message from a snapshot.
    const onceRuns: MainThread[] = [];
    let onceShown = -1;
    for (let i = 0; i < options.onceRuns; i++) {
      const page = await browser.open();
      await page.warmUp();
      const m0 = await page.metrics();
      await page.snapshot(benchHeader('idle'), [final]);
      await page.settle();
      const m1 = await page.metrics();
      onceShown = await page.shownChars('a');
      onceRuns.push(mainThreadDelta(m0, m1));
      failOnErrors(page);
      await page.close();
    }
    const once = [...onceRuns].sort((a, b) => a.cpuMs - b.cpuMs)[Math.floor(onceRuns.length / 2)];
    if (once === undefined) {
      throw new Error('no once run');
    }

    // Streamed: the same message as chunks, coalesced per window, then the turn ends.
    const page = await browser.open();
    await page.warmUp();
    const m0 = await page.metrics();
    const outcome = await stream(page, chunks, options, 1_000);
    const m1 = await page.metrics();
    const streamShown = await page.shownChars('a');
    failOnErrors(page);
    await page.close();
    if (streamShown !== onceShown || streamShown <= 0) {
      throw new Error(`the streamed message shows ${streamShown} characters, the one-shot render ${onceShown}`);
    }
    const streamed = mainThreadDelta(m0, m1);

    let frames: Partial<P2Result> = {};
    if (options.frames) {
      const traced = await browser.open();
      await traced.warmUp();
      const trace = await browser.traced(traced, frameTraceCategories, async () => {
        await stream(traced, chunks, options);
      });
      failOnErrors(traced);
      await traced.close();
      const f = frameTimes(trace);
      const long = longTasks(trace, 50);
      frames = {
        frameP95Ms: percentile(f.cpuMs, 95),
        frameP95WallMs: percentile(f.wallMs, 95),
        frameMaxMs: Math.max(...f.cpuMs),
        frames: f.count,
        framesOverBudget: f.cpuMs.filter((ms) => ms > 1000 / 60).length,
        longTasksCpu: long.overCpuMs.length,
        longTasksWall: long.overWallMs.length,
        longestTasks: longTasksOf(traceEvents(trace), 'cpu').slice(0, 3),
        longestTaskCpuMs: long.maxCpuMs,
        longestTaskWallMs: long.maxWallMs,
        tasks: long.tasks,
      };
    }
    // Linearity: the main thread's CPU time in the last quarter of the stream versus the first
    // (whole one-second slices; the first slice, which inserts the message, is left out).
    const slices = outcome.slicesCpuMs.slice(1);
    const quarter = Math.max(1, Math.floor(slices.length / 4));
    const sum = (xs: readonly number[]): number => xs.reduce((a, b) => a + b, 0);
    const firstQuarterCpuMs = sum(slices.slice(0, quarter));
    const lastQuarterCpuMs = sum(slices.slice(-quarter));
    return {
      growth: lastQuarterCpuMs / firstQuarterCpuMs,
      firstQuarterCpuMs,
      lastQuarterCpuMs,
      slicesCpuMs: outcome.slicesCpuMs,
      chunks: chunks.length,
      chars: text.length,
      chunksPerSecond: options.chunksPerSecond,
      windowMs: options.windowMs,
      patches: outcome.patches,
      streamWallMs: outcome.wallMs,
      once,
      onceRunsCpuMs: onceRuns.map((r) => r.cpuMs),
      stream: streamed,
      ratio: streamed.cpuMs / once.cpuMs,
      ratioWall: streamed.taskMs / once.taskMs,
      ...frames,
    };
  } finally {
    await browser.close();
  }
}

function failOnErrors(page: WebviewPage): void {
  if (page.errors.length > 0) {
    throw new Error(`the webview reported errors: ${page.errors.slice(0, 3).join(' | ')}`);
  }
}
