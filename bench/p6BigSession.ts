import { feedWindowMs } from '../src/session/sessionFeed';
import type { SessionState } from '../src/session/sessionState';
import { ViewProjector } from '../src/session/viewProjection';
import { snapshotLimits } from '../src/session/viewWindow';
import { patchWindowMs } from '../src/views/chat/webviewChannel';
import { installProbes, interactionFigures, probeScrolling, probeTyping, summarize, type InteractionSummary } from './interaction';
import { benchViewContext, longSessionState, replyIndex } from './longSession';
import { hostPerChunkUs } from './p3LongSession';
import { chunkSets } from './streamText';
import { channelTextIntervalMs, mainThreadDelta, median, WebviewBrowser } from './webviewPage';

/**
 * P6 — a big session: 1,000 turns (5,001 entries) whose shell tool calls printed 50 KB each (50 MB
 * of tool output in all), versus 2 turns of the same kind. The host reduces and projects one
 * streamed chunk (as P3); the webview renders the session's snapshot, then a reply streams in
 * untouched (what a chunk costs), then a second reply while the user types and scrolls (how the
 * page answers). Reported: what a chunk costs at 5,001 entries versus 11 (host and webview), the
 * same with the user's typing and scrolling counted in (scrolling a big session up shows cards a
 * small one does not have), the snapshot's size and render time, heap and DOM size, typing latency
 * and frame gaps while scrolling.
 */
export interface P6Options {
  readonly turns: number;
  readonly shortTurns: number;
  readonly toolOutputChars: number;
  readonly hostChunks: number;
  readonly webviewChunks: number;
  readonly chunksPerSecond: number;
  readonly runs: number;
}

export const defaultP6: P6Options = { turns: 1_000, shortTurns: 2, toolOutputChars: 50_000, hostChunks: 20_000, webviewChunks: 3_000, chunksPerSecond: 1_000, runs: 3 };

export interface P6Side {
  readonly entries: number;
  readonly hostUs: number;
  readonly webviewUs: number;
  /** Main-thread CPU per chunk of the second reply, the user's typing and scrolling included. */
  readonly webviewProbedUs: number;
  readonly snapshotBytes: number;
  readonly snapshotProjectMs: number;
  readonly snapshotRenderCpuMs: number;
  readonly heapMB: number;
  readonly nodes: number;
  readonly typingMs: readonly number[];
  readonly scrollFrameGapsMs: readonly number[];
  /** The webview's figure of each run (the side reports their medians; the other figures are the median run's). */
  readonly webviewRunsUs: readonly number[];
  readonly webviewProbedRunsUs: readonly number[];
}

export interface P6Result extends InteractionSummary {
  readonly small: P6Side;
  readonly big: P6Side;
  readonly toolOutputBytes: number;
  readonly buildMs: number;
  /** (host + webview) per chunk at 5,001 entries / at 11. */
  readonly ratio: number;
  readonly hostRatio: number;
  readonly webviewRatio: number;
  /** As `ratio`, with the webview's cost of the reply streamed while the user typed and scrolled. */
  readonly probedRatio: number;
}

type WebviewSide = Omit<P6Side, 'entries' | 'hostUs' | 'snapshotBytes' | 'snapshotProjectMs' | 'webviewRunsUs' | 'webviewProbedRunsUs'>;

async function webviewSide(browser: WebviewBrowser, state: SessionState, chunks: readonly string[], options: P6Options): Promise<WebviewSide> {
  // What the channel sends: a long session's last entries whole, the earlier ones outlined.
  const view = new ViewProjector().snapshot(state, benchViewContext, snapshotLimits);
  const page = await browser.open();
  try {
    await page.warmUp(true);
    const { renderCpuMs, loaded } = await page.loadSession(view.entries, view.earlier);
    await installProbes(page);
    /** Streams a reply as the entry at `index` (after the snapshot's); `probe` runs meanwhile. */
    const reply = async (entryId: string, index: number, probe: () => Promise<void>): Promise<number> => {
      const play = await page.prepareStream(chunks, {
        chunksPerSecond: options.chunksPerSecond,
        windowMs: patchWindowMs,
        textIntervalMs: channelTextIntervalMs(chunks, options.chunksPerSecond),
        index,
        entryId,
      });
      const m0 = await page.metrics();
      const streamed = play();
      await probe();
      await streamed;
      await page.settle();
      const m1 = await page.metrics();
      if (page.errors.length > 0 || (await page.shownChars(entryId)) <= 0) {
        throw new Error(`the streamed reply is not shown; errors: ${page.errors.slice(0, 3).join(' | ')}`);
      }
      return (mainThreadDelta(m0, m1).cpuMs * 1000) / chunks.length;
    };
    const shown = replyIndex(view);
    const webviewUs = await reply('live', shown, () => Promise.resolve());
    const webviewProbedUs = await reply('live-probed', shown + 1, async () => {
      await new Promise((r) => setTimeout(r, 500));
      await probeTyping(page);
      await probeScrolling(page);
    });
    const figures = await interactionFigures(page);
    return {
      webviewUs,
      webviewProbedUs,
      snapshotRenderCpuMs: renderCpuMs,
      heapMB: loaded.heapBytes / (1024 * 1024),
      nodes: loaded.nodes,
      typingMs: figures.typingMs,
      scrollFrameGapsMs: figures.scrollFrameGapsMs,
    };
  } finally {
    await page.close();
  }
}

export async function runP6(options: P6Options = defaultP6): Promise<P6Result> {
  const { hostChunks, webChunks } = chunkSets(options.hostChunks, options.webviewChunks);
  const started = performance.now();
  const states = [longSessionState(options.shortTurns, options.toolOutputChars), longSessionState(options.turns, options.toolOutputChars)];
  const buildMs = performance.now() - started;
  let toolOutputBytes = 0;
  for (const e of states[1]?.entries ?? []) {
    if (e.kind === 'tool') {
      for (const c of e.content) {
        toolOutputBytes += c.type === 'content' && c.content.type === 'text' ? c.content.text.length : 0;
      }
    }
  }
  const sides = states.map((state) => {
    const t0 = performance.now();
    const snapshot = new ViewProjector().snapshot(state, benchViewContext, snapshotLimits);
    const snapshotProjectMs = performance.now() - t0;
    return { state, entries: state.entries.length, snapshotBytes: JSON.stringify(snapshot).length, snapshotProjectMs, hostUs: Infinity };
  });
  const perWindow = Math.max(1, Math.round((options.chunksPerSecond * feedWindowMs) / 1000));
  for (let r = 0; r < options.runs; r++) {
    for (const s of sides) {
      s.hostUs = Math.min(s.hostUs, hostPerChunkUs(s.state, hostChunks, perWindow));
    }
  }
  // The webview's side `runs` times, the two sessions taking turns (a slow moment of the machine
  // then falls on both), each side its median: one stream per side could not tell 1.2× from noise
  // (the same build measured 1.02×–1.32× in single runs).
  const browser = await WebviewBrowser.launch();
  const web: WebviewSide[][] = sides.map(() => []);
  try {
    for (let r = 0; r < options.runs; r++) {
      for (const [i, s] of sides.entries()) {
        web[i]?.push(await webviewSide(browser, s.state, webChunks, options));
      }
    }
  } finally {
    await browser.close();
  }
  const side = (i: number): P6Side => {
    const s = sides[i];
    const runs = web[i] ?? [];
    const w = medianBy(runs, (run) => run.webviewUs);
    if (s === undefined || w === undefined) {
      throw new Error('missing P6 measurement');
    }
    const probed = medianBy(runs, (run) => run.webviewProbedUs)?.webviewProbedUs ?? w.webviewProbedUs;
    return {
      entries: s.entries,
      hostUs: s.hostUs,
      snapshotBytes: s.snapshotBytes,
      snapshotProjectMs: s.snapshotProjectMs,
      ...w,
      webviewProbedUs: probed,
      webviewRunsUs: runs.map((run) => run.webviewUs),
      webviewProbedRunsUs: runs.map((run) => run.webviewProbedUs),
    };
  };
  const small = side(0);
  const big = side(1);
  return {
    small,
    big,
    toolOutputBytes,
    buildMs,
    ratio: (big.hostUs + big.webviewUs) / (small.hostUs + small.webviewUs),
    hostRatio: big.hostUs / small.hostUs,
    webviewRatio: big.webviewUs / small.webviewUs,
    probedRatio: (big.hostUs + big.webviewProbedUs) / (small.hostUs + small.webviewProbedUs),
    ...summarize({ typingMs: big.typingMs, scrollFrameGapsMs: big.scrollFrameGapsMs }),
  };
}

/** The run whose `value` is the median (`median`: the middle one of an odd count). */
function medianBy<T>(runs: readonly T[], value: (run: T) => number): T | undefined {
  const m = median(runs.map(value));
  return runs.find((run) => value(run) === m);
}
