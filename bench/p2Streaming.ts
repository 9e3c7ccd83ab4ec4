import type { EntryView } from '../src/protocol/sessionView';
import { patchWindowMs } from '../src/views/chat/webviewChannel';
import { agentAnswer, chunked } from './streamText';
import { quarterFigures, type QuarterFigures, type Slice } from './linearity';
import { frameTimes, frameTraceCategories, longTasks, longTasksOf, traceEvents, type LongTaskInfo } from './traceFrames';
import { benchHeader, channelTextIntervalMs, mainThreadDelta, percentile, WebviewBrowser, type MainThread, type StreamOutcome, type WebviewPage } from './webviewPage';

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
  /** Streams (untraced) measured; their mean is the stream's cost. Interleaved with the one-shot renders. */
  readonly streamRuns: number;
  /** Also stream once more with tracing on, for frame times. */
  readonly frames: boolean;
}

/** Linearity (`growth`, gated ≤ 1.2): see {@link QuarterFigures}. */
export interface P2Result extends QuarterFigures {
  readonly chunks: number;
  readonly chars: number;
  readonly chunksPerSecond: number;
  readonly windowMs: number;
  readonly patches: number;
  readonly streamWallMs: number;
  /** Rendering the final message once (the median of `onceRuns` fresh pages, by CPU time). */
  readonly once: MainThread;
  readonly onceRunsCpuMs: readonly number[];
  /** The whole stream, until the last paced render settled (the mean of `streamRuns`). */
  readonly stream: MainThread;
  readonly streamRunsCpuMs: readonly number[];
  /** stream.cpuMs / once.cpuMs (≤ 2 is the target). */
  readonly ratio: number;
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
  onceRuns: 5,
  streamRuns: 2,
  frames: true,
};

/**
 * Streams the message (its chunks staged before `m0` is taken); with `sampleMs`, also samples the
 * main thread's CPU time that often while it streams, and how much text is shown by then (the cost
 * of each slice of the stream: flat per character if rendering stays linear). The text is read
 * between two readings of the clock: `readingMs` is what the readings cost the main thread (CPU
 * and wall clock), for the caller to leave out of the stream's figures too.
 */
async function stream(
  page: WebviewPage,
  play: () => Promise<StreamOutcome>,
  sampleMs?: number,
): Promise<StreamOutcome & { readonly slices: Slice[]; readonly readingMs: { cpuMs: number; taskMs: number } }> {
  let done = false;
  const streamed = play().finally(() => {
    done = true;
  });
  const slices: Slice[] = [];
  const readingMs = { cpuMs: 0, taskMs: 0 };
  if (sampleMs !== undefined) {
    let previous = await page.metrics();
    for (;;) {
      await Promise.race([streamed, new Promise((r) => setTimeout(r, sampleMs))]);
      if (done) {
        break;
      }
      const now = await page.metrics();
      const shownChars = Math.max(0, await page.shownChars('a'));
      slices.push({ cpuMs: now.cpuMs - previous.cpuMs, shownChars });
      previous = await page.metrics();
      readingMs.cpuMs += previous.cpuMs - now.cpuMs;
      readingMs.taskMs += previous.taskMs - now.taskMs;
    }
  }
  const outcome = await streamed;
  await page.patch([], benchHeader('idle')); // the turn ended
  await page.settle();
  return { ...outcome, slices, readingMs };
}

/** A stream of `chunks` as `options` say, its chunks handed to the page ({@link WebviewPage.prepareStream}). */
function prepare(page: WebviewPage, chunks: readonly string[], options: P2Options): Promise<() => Promise<StreamOutcome>> {
  return page.prepareStream(chunks, {
    chunksPerSecond: options.chunksPerSecond,
    windowMs: options.windowMs,
    textIntervalMs: options.textIntervalMs ?? channelTextIntervalMs(chunks, options.chunksPerSecond),
    index: 0,
    entryId: 'a',
  });
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
    const renderOnce = async (): Promise<void> => {
      const page = await browser.open();
      await page.warmUp();
      // Staged first, as the stream's chunks are: the harness's transfer is not the render's cost.
      const deliver = await page.prepareSnapshot(benchHeader('idle'), [final]);
      const m0 = await page.metrics();
      await deliver();
      await page.settle();
      const m1 = await page.metrics();
      onceShown = await page.shownChars('a');
      onceRuns.push(mainThreadDelta(m0, m1));
      failOnErrors(page);
      await page.close();
    };
    // Streamed: the same message as chunks, coalesced per window, then the turn ends.
    const streamRuns: { readonly cost: MainThread; readonly outcome: Awaited<ReturnType<typeof stream>> }[] = [];
    const streamOnce = async (): Promise<void> => {
      const page = await browser.open();
      await page.warmUp();
      const play = await prepare(page, chunks, options);
      const m0 = await page.metrics();
      const outcome = await stream(page, play, 1_000);
      const m1 = await page.metrics();
      const streamShown = await page.shownChars('a');
      failOnErrors(page);
      await page.close();
      if (streamShown !== onceShown || streamShown <= 0) {
        throw new Error(`the streamed message shows ${streamShown} characters, the one-shot render ${onceShown}`);
      }
      // What the stream cost the page, without the harness's readings of the text shown.
      const delta = mainThreadDelta(m0, m1);
      streamRuns.push({ cost: { ...delta, cpuMs: delta.cpuMs - outcome.readingMs.cpuMs, taskMs: delta.taskMs - outcome.readingMs.taskMs }, outcome });
    };
    // Interleaved (once, once, stream, once, once, stream, once): the machine's speed drifts over
    // minutes, and both sides of the ratio should see the same machine.
    const gap = Math.max(1, Math.ceil(options.onceRuns / (options.streamRuns + 1)));
    for (let i = 1; i <= options.onceRuns; i++) {
      await renderOnce();
      if (i % gap === 0 && streamRuns.length < options.streamRuns) {
        await streamOnce();
      }
    }
    while (streamRuns.length < options.streamRuns) {
      await streamOnce();
    }
    const once = [...onceRuns].sort((a, b) => a.cpuMs - b.cpuMs)[Math.floor(onceRuns.length / 2)];
    const first = streamRuns[0];
    if (once === undefined || first === undefined) {
      throw new Error('no once or stream run');
    }
    const mean = (pick: (cost: MainThread) => number): number => streamRuns.reduce((n, run) => n + pick(run.cost), 0) / streamRuns.length;
    const streamed: MainThread = {
      cpuMs: mean((c) => c.cpuMs),
      taskMs: mean((c) => c.taskMs),
      scriptMs: mean((c) => c.scriptMs),
      layoutMs: mean((c) => c.layoutMs),
      styleMs: mean((c) => c.styleMs),
      layouts: mean((c) => c.layouts),
      styles: mean((c) => c.styles),
    };

    let frames: Partial<P2Result> = {};
    if (options.frames) {
      const traced = await browser.open();
      await traced.warmUp();
      const tracedPlay = await prepare(traced, chunks, options);
      const trace = await browser.traced(traced, frameTraceCategories, async () => {
        await stream(traced, tracedPlay);
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
    // Linearity: the main thread's CPU time per character shown in the last quarter of the streams
    // versus the first (whole one-second slices; the first, which inserts the message, left out).
    const quarters = quarterFigures(streamRuns.map((run) => run.outcome.slices));
    return {
      ...quarters,
      slicesCpuMs: first.outcome.slices.map((slice) => slice.cpuMs),
      chunks: chunks.length,
      chars: text.length,
      chunksPerSecond: options.chunksPerSecond,
      windowMs: options.windowMs,
      patches: first.outcome.patches,
      streamWallMs: first.outcome.wallMs,
      once,
      onceRunsCpuMs: onceRuns.map((r) => r.cpuMs),
      stream: streamed,
      streamRunsCpuMs: streamRuns.map((run) => run.cost.cpuMs),
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
