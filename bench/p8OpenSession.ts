import { ViewProjector } from '../src/session/viewProjection';
import { snapshotLimits } from '../src/session/viewWindow';
import { benchViewContext, longSessionState } from './longSession';
import { longTasks, longTasksOf, traceEvents, type LongTaskInfo } from './traceFrames';
import { benchHeader, WebviewBrowser, type WebviewPage } from './webviewPage';

/**
 * P8 — opening a big session: the webview's main-thread CPU from the snapshot's arrival to the
 * frames that show it, the DOM nodes of the transcript and the JS heap then, for sessions of 1,000
 * and 4,000 turns (5,001 and 20,001 entries; each turn's shell call printed 50 KB, so 50 MB and
 * 200 MB of tool output). The snapshot is what `WebviewChannel` sends (`snapshotLimits`: the last
 * entries whole, the earlier ones as outlines). Targets: ≤ 300 ms, ≤ 5,000 nodes, heap ≤ 20 MB at
 * both sizes; no task over 50 ms of CPU.
 */
export interface P8Options {
  readonly sizes: readonly number[];
  readonly toolOutputChars: number;
}

export const defaultP8: P8Options = { sizes: [1_000, 4_000], toolOutputChars: 50_000 };

export interface P8Side {
  readonly turns: number;
  readonly entries: number;
  /** Entries the snapshot carries whole, and its size (JSON characters). */
  readonly sentEntries: number;
  readonly snapshotBytes: number;
  /** What projecting the snapshot cost the host (ms). */
  readonly projectMs: number;
  /** Main-thread CPU (and wall) from posting the snapshot to two frames after it. */
  readonly openCpuMs: number;
  readonly openWallMs: number;
  readonly transcriptNodes: number;
  readonly rows: number;
  readonly heapMB: number;
  readonly tasks: number;
  readonly longTasksCpu: number;
  readonly longestTaskCpuMs: number;
  readonly longestTasks: readonly LongTaskInfo[];
}

export interface P8Result {
  readonly sides: readonly P8Side[];
  /** The biggest session's open CPU over the smallest's (what is shown is the same). */
  readonly growth: number;
}

/** Posts the snapshot (`deliver`) and waits for its task, its frame and the frame after (rows measured by the ResizeObserver). */
async function open(page: WebviewPage, deliver: () => Promise<void>): Promise<void> {
  await deliver();
  await page.page.evaluate(
    () =>
      new Promise<void>((resolve) => {
        const w = globalThis as unknown as { requestAnimationFrame(cb: () => void): void; setTimeout(cb: () => void, ms: number): void };
        w.setTimeout(() => w.requestAnimationFrame(() => w.requestAnimationFrame(() => resolve())), 0);
      }),
  );
  if (page.errors.length > 0) {
    throw new Error(`P8: page errors: ${page.errors.slice(0, 3).join(' | ')}`);
  }
}

async function openOnce(browser: WebviewBrowser, turns: number, options: P8Options): Promise<P8Side> {
  const state = longSessionState(turns, options.toolOutputChars);
  const t0 = performance.now();
  const view = new ViewProjector().snapshot(state, benchViewContext, snapshotLimits);
  const projectMs = performance.now() - t0;
  // Measured untraced (tracing costs CPU of its own); the long tasks from a second, traced page.
  const page = await browser.open();
  let measured: Omit<P8Side, 'tasks' | 'longTasksCpu' | 'longestTaskCpuMs' | 'longestTasks'>;
  try {
    await page.warmUp();
    const deliver = await page.prepareSnapshot(benchHeader('idle'), view.entries, view.earlier);
    const before = await page.metrics();
    const wall0 = Date.now();
    await open(page, deliver);
    const opened = await page.metrics();
    const openWallMs = Date.now() - wall0;
    const dom = await page.page.evaluate(() => {
      const d = (globalThis as unknown as { document: { querySelector(s: string): { querySelectorAll(s: string): { length: number } } | null } }).document;
      const log = d.querySelector('[role="log"]');
      return { nodes: log?.querySelectorAll('*').length ?? -1, rows: log?.querySelectorAll('.entry-row').length ?? -1 };
    });
    await page.collectGarbage();
    const settled = await page.metrics();
    measured = {
      turns,
      entries: state.entries.length,
      sentEntries: view.entries.length,
      snapshotBytes: JSON.stringify(view).length,
      projectMs,
      openCpuMs: opened.cpuMs - before.cpuMs,
      openWallMs,
      transcriptNodes: dom.nodes,
      rows: dom.rows,
      heapMB: settled.heapBytes / (1024 * 1024),
    };
  } finally {
    await page.close();
  }
  const traced = await browser.open();
  try {
    await traced.warmUp();
    const deliver = await traced.prepareSnapshot(benchHeader('idle'), view.entries, view.earlier);
    const trace = await browser.traced(traced, ['toplevel', 'devtools.timeline'], () => open(traced, deliver));
    const long = longTasks(trace, 50);
    return { ...measured, tasks: long.tasks, longTasksCpu: long.overCpuMs.length, longestTaskCpuMs: long.maxCpuMs, longestTasks: longTasksOf(traceEvents(trace), 'cpu').slice(0, 3) };
  } finally {
    await traced.close();
  }
}

export async function runP8(options: P8Options = defaultP8): Promise<P8Result> {
  const browser = await WebviewBrowser.launch();
  const sides: P8Side[] = [];
  try {
    for (const turns of options.sizes) {
      sides.push(await openOnce(browser, turns, options));
    }
  } finally {
    await browser.close();
  }
  const first = sides[0];
  const last = sides.at(-1);
  return { sides, growth: first !== undefined && last !== undefined ? last.openCpuMs / first.openCpuMs : Number.NaN };
}
