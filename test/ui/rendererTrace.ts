/**
 * How long the chat's own work holds the renderer's main thread, from a Chromium trace.
 *
 * In code-server the chat's webview frames share one renderer thread with the workbench. The
 * browser's long-task API cannot tell them apart: a frame update in which only the chat ran a
 * callback is attributed to the chat ("self") even when the workbench's layout of a 50 MB editor,
 * or a garbage collection its allocations caused, filled the task. A trace can: every script entry
 * (event handler, timer, animation frame, idle callback), style recalculation and layout names the
 * frame it is for, and GC pauses are events of their own. A user-timing mark set in the chat's
 * document lines the trace's clock up with the document's, so a slow keystroke can be laid over
 * what the thread did meanwhile (`blameSlowKey`).
 */
import type { FrameLocator, Page } from 'playwright-core';
import { rendererMainThreads, type TraceEvent } from '../../bench/traceFrames';

/**
 * The chat's own work within one task of the renderer's main thread: its script, and the style
 * and layout of its frames. Times are the thread's CPU time (a trace's `tdur`): on a contended
 * machine the wall clock also counts the time the renderer sat preempted by other processes,
 * which nothing of the chat's decides.
 */
export interface ChatWorkTask {
  /** CPU time of the chat's work, GC pauses inside it excluded. */
  readonly ms: number;
  /** The same by the wall clock (GC excluded too). */
  readonly wallMs: number;
  /** GC pauses (CPU time) that happened to fall inside the chat's work. */
  readonly gcMs: number;
}

/** A stretch of the renderer's main thread, in the trace's clock (ms). */
export interface ThreadSpan {
  readonly start: number;
  readonly end: number;
  /** CPU time (ms), GC excluded for the chat's spans. */
  readonly cpuMs: number;
}

export interface ChatWorkTrace {
  /** One entry per renderer task in which the chat's work ran. */
  readonly tasks: readonly ChatWorkTask[];
  /** Frames recognised as the chat's (VS Code's inner webview document, running the chat's bundle). */
  readonly chatFrames: number;
  /** The renderer's longest task of any origin, in ms. */
  readonly longestTaskMs: number;
  /** Each stretch of the chat's own work (script, style, layout), in order. */
  readonly chatWork: readonly ThreadSpan[];
  /** Every task of the thread(s) the chat ran on, in order. */
  readonly threadTasks: readonly ThreadSpan[];
  /**
   * The trace's clock minus the chat document's (ms), from the `chatClockMark` the document set
   * during the trace (`markChatClock`); undefined when none was seen.
   */
  readonly clockMs: number | undefined;
}

/** The user-timing mark that ties the chat document's clock to the trace's. */
export const chatClockMark = 'r8-chat-clock';

/** Events in which a frame's script starts running. */
const scriptEntries = new Set(['FunctionCall', 'EventDispatch', 'TimerFire', 'FireAnimationFrame', 'FireIdleCallback', 'EvaluateScript']);
/** Rendering work that names the frame it is for (`args.beginData.frame`). */
const frameRendering = new Set(['UpdateLayoutTree', 'Layout']);
const gcEvents = new Set(['MajorGC', 'MinorGC']);
const taskEvents = new Set(['ThreadControllerImpl::RunTask', 'RunTask']);
/**
 * A frame is the chat's when it is VS Code's inner webview document or runs the chat's bundle
 * (a function call's script URL).
 */
const chatDocument = /\/webview\/browser\/pre\/fake\.html|\/dist\/webview\/[\w.-]+\.js(?:$|[?#])/;

/** Runs `during` under a trace of the page's renderer and measures the chat's own work in it. */
export async function traceChatWork<T>(page: Page, during: () => Promise<T>): Promise<{ result: T; trace: ChatWorkTrace }> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e: { value: object[] }) => {
    // Chromium's trace event format, as the bench reads it from a trace file (traceEvents()).
    for (const v of e.value as TraceEvent[]) {
      events.push(v);
    }
  });
  const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline', 'v8', 'toplevel', 'blink.user_timing'] } });
  let result: T;
  try {
    result = await during();
  } finally {
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach().catch(() => undefined);
  }
  return { result, trace: chatWorkOf(events) };
}

/** Sets the mark that ties the chat document's clock to a trace running now (see `ChatWorkTrace.clockMs`). */
export async function markChatClock(chat: FrameLocator): Promise<void> {
  await chat.locator('textarea').first().evaluate((_box, name) => {
    (globalThis as unknown as { performance: { mark(n: string): unknown } }).performance.mark(name);
  }, chatClockMark);
}

interface Span {
  readonly start: number;
  readonly end: number;
  /** CPU time (µs); the wall-clock length when the trace has no thread times. */
  readonly cpu: number;
}

/** The outermost events `pick` selects, in order and without overlaps (`list` is sorted by start). */
function outermost(list: readonly TraceEvent[], pick: (e: TraceEvent) => boolean): Span[] {
  const spans: Span[] = [];
  for (const e of list) {
    const start = e.ts;
    const end = start + (e.dur ?? 0);
    if (pick(e) && start >= (spans[spans.length - 1]?.end ?? -Infinity)) {
      spans.push({ start, end, cpu: e.tdur ?? e.dur ?? 0 });
    }
  }
  return spans;
}

/** The frame an event is for: `args.data.frame`, or `args.beginData.frame` for style and layout. */
function frameOf(e: TraceEvent): string {
  return e.args?.data?.frame ?? e.args?.beginData?.frame ?? '';
}

/** The chat's work per renderer task, from the events of a trace. */
export function chatWorkOf(events: readonly TraceEvent[]): ChatWorkTrace {
  const chatFrames = new Set<string>();
  const noteFrame = (frame: string | undefined, url: string | undefined): void => {
    if (frame !== undefined && url !== undefined && chatDocument.test(url)) {
      chatFrames.add(frame);
    }
  };
  let clockMs: number | undefined;
  for (const e of events) {
    for (const f of e.args?.data?.frames ?? []) {
      noteFrame(f.frame, f.url);
    }
    noteFrame(e.args?.data?.frame, e.args?.data?.url);
    const markedAt = e.args?.data?.startTime;
    if (clockMs === undefined && e.name === chatClockMark && e.cat === 'blink.user_timing' && typeof markedAt === 'number') {
      clockMs = e.ts / 1000 - markedAt;
    }
  }
  const isChatWork = (e: TraceEvent): boolean => (scriptEntries.has(e.name) || frameRendering.has(e.name)) && chatFrames.has(frameOf(e));
  const tasks: ChatWorkTask[] = [];
  const chatWork: ThreadSpan[] = [];
  const threadTasks: ThreadSpan[] = [];
  let longestTaskMs = 0;
  for (const list of rendererMainThreads(events).values()) {
    const runTasks = outermost(list, (e) => taskEvents.has(e.name));
    const chatSpans = outermost(list, isChatWork);
    const gcs = outermost(list, (e) => gcEvents.has(e.name));
    for (const t of runTasks) {
      longestTaskMs = Math.max(longestTaskMs, (t.end - t.start) / 1000);
    }
    if (chatSpans.length > 0) {
      threadTasks.push(...runTasks.map((t) => ({ start: t.start / 1000, end: t.end / 1000, cpuMs: t.cpu / 1000 })));
    }
    // All three lists are sorted and non-overlapping: walk them together.
    const perTask = new Map<number, { us: number; wallUs: number; gcUs: number }>();
    let t = 0;
    let g = 0;
    chatSpans.forEach((s, i) => {
      while (t < runTasks.length && (runTasks[t]?.end ?? 0) <= s.start) {
        t++;
      }
      const inTask = runTasks[t] !== undefined && (runTasks[t]?.start ?? Infinity) <= s.start;
      while (g < gcs.length && (gcs[g]?.start ?? 0) < s.start) {
        g++;
      }
      let gcUs = 0;
      let gcWallUs = 0;
      for (let k = g; k < gcs.length && (gcs[k]?.start ?? Infinity) < s.end; k++) {
        const gc = gcs[k];
        if (gc !== undefined) {
          const inside = Math.min(gc.end, s.end) - gc.start;
          gcWallUs += inside;
          gcUs += gc.end > gc.start ? (gc.cpu * inside) / (gc.end - gc.start) : 0;
        }
      }
      const cpuUs = Math.max(0, s.cpu - gcUs);
      chatWork.push({ start: s.start / 1000, end: s.end / 1000, cpuMs: cpuUs / 1000 });
      const key = inTask ? t : -1 - i; // work outside any task event stands alone
      const at = perTask.get(key) ?? { us: 0, wallUs: 0, gcUs: 0 };
      perTask.set(key, { us: at.us + cpuUs, wallUs: at.wallUs + (s.end - s.start) - gcWallUs, gcUs: at.gcUs + gcUs });
    });
    for (const v of perTask.values()) {
      tasks.push({ ms: v.us / 1000, wallMs: v.wallUs / 1000, gcMs: v.gcUs / 1000 });
    }
  }
  return { tasks, chatFrames: chatFrames.size, longestTaskMs, chatWork, threadTasks, clockMs };
}

// ── the long-task API, as the chat document sees it ─────────────────────────────────────────

/** A long task seen from the chat document, with its attribution ('self' = the chat's own script) and start (the document's clock). */
export interface LongTask {
  ms: number;
  from: string;
  start: number;
}

/** A keystroke in the composer: its keydown (the chat document's clock) and the time to the frame after the input. */
export interface Keystroke {
  at: number;
  ms: number;
}

/** R8's bound on a keystroke's latency. */
export const slowKeyMs = 100;

/**
 * The most of its own work the chat may do in a slow keystroke's window before the keystroke is
 * its fault: half the bound (the RAIL model's budget for handling input). Under it, the chat alone
 * cannot have made the keystroke miss the bound; the shared thread or the machine did.
 */
export const chatShareMs = slowKeyMs / 2;

/** How much of `spans` falls in [from, to): the wall clock, and the CPU time pro rata. */
function within(spans: readonly ThreadSpan[], from: number, to: number): { wallMs: number; cpuMs: number; longestMs: number } {
  let wallMs = 0;
  let cpuMs = 0;
  let longestMs = 0;
  for (const s of spans) {
    const overlap = Math.min(to, s.end) - Math.max(from, s.start);
    if (overlap > 0 || (s.start >= from && s.end <= to)) {
      wallMs += Math.max(0, overlap);
      cpuMs += s.end > s.start ? (s.cpuMs * Math.max(0, overlap)) / (s.end - s.start) : s.cpuMs;
      longestMs = Math.max(longestMs, s.end - s.start);
    }
  }
  return { wallMs, cpuMs, longestMs };
}

/**
 * Whose a slow keystroke is, from the trace it happened under. code-server serves webviews from
 * the workbench's origin, so the chat shares the workbench's renderer thread, and on a busy
 * machine other processes preempt that thread too. The trace measures the chat's own work in the
 * keystroke's window (keydown → the frame after the input): the keystroke is the chat's when that
 * work reaches `chatShareMs`, or when the trace cannot be lined up with the chat's clock.
 */
export function blameSlowKey(key: Keystroke, trace: ChatWorkTrace): { chat: boolean; why: string } {
  if (trace.clockMs === undefined) {
    return { chat: true, why: 'the trace has no clock mark to place it by' };
  }
  const from = key.at + trace.clockMs;
  const to = from + key.ms;
  const own = within(trace.chatWork, from, to);
  const thread = within(trace.threadTasks, from, to);
  const why =
    `the chat's own work ${own.cpuMs.toFixed(0)} ms of CPU; the renderer thread's tasks over ${thread.wallMs.toFixed(0)} ms of it ` +
    `(${thread.cpuMs.toFixed(0)} ms of CPU, longest ${thread.longestMs.toFixed(0)} ms)`;
  return { chat: own.cpuMs >= chatShareMs, why };
}
