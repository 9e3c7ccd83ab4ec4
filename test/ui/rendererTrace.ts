/**
 * How long the chat's own script holds the renderer's main thread, from a Chromium trace.
 *
 * In code-server the chat's webview frames share one renderer thread with the workbench. The
 * browser's long-task API cannot tell them apart: a frame update in which only the chat ran a
 * callback is attributed to the chat ("self") even when the workbench's layout of a 50 MB editor,
 * or a garbage collection its allocations caused, filled the task. A trace can: every script entry
 * (event handler, timer, animation frame, idle callback) names the frame whose script ran, and GC
 * pauses are events of their own.
 */
import type { Page } from 'playwright-core';
import { rendererMainThreads, type TraceEvent } from '../../bench/traceFrames';

/**
 * The chat's script within one task of the renderer's main thread. Times are the thread's CPU
 * time (a trace's `tdur`): on a contended machine the wall clock also counts the time the renderer
 * sat preempted by other processes, which no script of the chat's decides.
 */
export interface ChatScriptTask {
  /** CPU time of script in the chat's frames, GC pauses inside it excluded. */
  readonly ms: number;
  /** The same by the wall clock (GC excluded too). */
  readonly wallMs: number;
  /** GC pauses (CPU time) that happened to fall inside the chat's script. */
  readonly gcMs: number;
}

export interface ChatScriptTrace {
  /** One entry per renderer task in which the chat's script ran. */
  readonly tasks: readonly ChatScriptTask[];
  /** Frames recognised as the chat's (VS Code's inner webview document, running the chat's bundle). */
  readonly chatFrames: number;
  /** The renderer's longest task of any origin, in ms. */
  readonly longestTaskMs: number;
}

interface Span {
  readonly start: number;
  readonly end: number;
  /** CPU time (µs); the wall-clock length when the trace has no thread times. */
  readonly cpu: number;
}

/** Events in which a frame's script starts running. */
const scriptEntries = new Set(['FunctionCall', 'EventDispatch', 'TimerFire', 'FireAnimationFrame', 'FireIdleCallback', 'EvaluateScript']);
const gcEvents = new Set(['MajorGC', 'MinorGC']);
const taskEvents = new Set(['ThreadControllerImpl::RunTask', 'RunTask']);
/**
 * A frame is the chat's when it is VS Code's inner webview document or runs the chat's bundle
 * (a function call's script URL).
 */
const chatDocument = /\/webview\/browser\/pre\/fake\.html|\/dist\/webview\/[\w.-]+\.js(?:$|[?#])/;

/** Runs `during` under a trace of the page's renderer and measures the chat's own script in it. */
export async function traceChatScript<T>(page: Page, during: () => Promise<T>): Promise<{ result: T; trace: ChatScriptTrace }> {
  const cdp = await page.context().newCDPSession(page);
  const events: TraceEvent[] = [];
  cdp.on('Tracing.dataCollected', (e: { value: object[] }) => {
    // Chromium's trace event format, as the bench reads it from a trace file (traceEvents()).
    for (const v of e.value as TraceEvent[]) {
      events.push(v);
    }
  });
  const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: ['devtools.timeline', 'v8', 'toplevel'] } });
  let result: T;
  try {
    result = await during();
  } finally {
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach().catch(() => undefined);
  }
  return { result, trace: chatScriptOf(events) };
}

/** The chat's script per renderer task, from the events of a trace. */
export function chatScriptOf(events: readonly TraceEvent[]): ChatScriptTrace {
  const chatFrames = new Set<string>();
  const noteFrame = (frame: string | undefined, url: string | undefined): void => {
    if (frame !== undefined && url !== undefined && chatDocument.test(url)) {
      chatFrames.add(frame);
    }
  };
  for (const e of events) {
    for (const f of e.args?.data?.frames ?? []) {
      noteFrame(f.frame, f.url);
    }
    noteFrame(e.args?.data?.frame, e.args?.data?.url);
  }
  const tasks: ChatScriptTask[] = [];
  let longestTaskMs = 0;
  for (const list of rendererMainThreads(events).values()) {
    const outermost = (pick: (e: TraceEvent) => boolean): Span[] => {
      const spans: Span[] = [];
      for (const e of list) {
        const start = e.ts;
        const end = start + (e.dur ?? 0);
        if (pick(e) && start >= (spans[spans.length - 1]?.end ?? -Infinity)) {
          spans.push({ start, end, cpu: e.tdur ?? e.dur ?? 0 });
        }
      }
      return spans;
    };
    const runTasks = outermost((e) => taskEvents.has(e.name));
    const chatScript = outermost((e) => scriptEntries.has(e.name) && chatFrames.has(e.args?.data?.frame ?? ''));
    const gcs = outermost((e) => gcEvents.has(e.name));
    for (const t of runTasks) {
      longestTaskMs = Math.max(longestTaskMs, (t.end - t.start) / 1000);
    }
    // All three lists are sorted and non-overlapping: walk them together.
    const perTask = new Map<number, { us: number; wallUs: number; gcUs: number }>();
    let t = 0;
    let g = 0;
    chatScript.forEach((s, i) => {
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
      const key = inTask ? t : -1 - i; // script outside any task event stands alone
      const at = perTask.get(key) ?? { us: 0, wallUs: 0, gcUs: 0 };
      perTask.set(key, { us: at.us + Math.max(0, s.cpu - gcUs), wallUs: at.wallUs + (s.end - s.start) - gcWallUs, gcUs: at.gcUs + gcUs });
    });
    for (const v of perTask.values()) {
      tasks.push({ ms: v.us / 1000, wallMs: v.wallUs / 1000, gcMs: v.gcUs / 1000 });
    }
  }
  return { tasks, chatFrames: chatFrames.size, longestTaskMs };
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
 * Whose a slow keystroke is, from the long tasks the chat document saw: the chat's when one of its
 * own ('self') overlaps it, or when nothing else explains the delay; the workbench's (code-server
 * serves webviews from its own origin, so they share its renderer thread) when other contexts'
 * long tasks cover all of it beyond the bound.
 */
export function blameSlowKey(key: Keystroke, tasks: readonly LongTask[]): { chat: boolean; why: string } {
  const end = key.at + key.ms;
  const overlapping = tasks.filter((t) => t.start < end && t.start + t.ms > key.at);
  const own = overlapping.find((t) => t.from === 'self');
  if (own !== undefined) {
    return { chat: true, why: `the chat's own ${Math.round(own.ms)} ms task` };
  }
  const covered = overlapping.reduce((n, t) => n + Math.min(end, t.start + t.ms) - Math.max(key.at, t.start), 0);
  const others = overlapping.map((t) => `${Math.round(t.ms)} ms ${t.from}`).join(' + ');
  return covered >= key.ms - slowKeyMs ? { chat: false, why: others } : { chat: true, why: others === '' ? 'no long task explains it' : `only ${Math.round(covered)} ms of it under ${others}` };
}
