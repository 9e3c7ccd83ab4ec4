/**
 * Frame times and long tasks from a Chromium trace (categories `toplevel`, `cc`,
 * `devtools.timeline`): every `ProxyMain::BeginMainFrame` on the renderer's main thread is one
 * frame's main-thread work (animation-frame callbacks, style, layout, paint, commit), every
 * `ThreadControllerImpl::RunTask` one task.
 */
export const frameTraceCategories = ['toplevel', 'cc', 'devtools.timeline'];

export interface TraceEvent {
  readonly name: string;
  readonly cat?: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly ts: number;
  readonly dur?: number;
  /** Thread (CPU) time of a complete event, µs. */
  readonly tdur?: number;
  readonly args?: {
    readonly name?: string;
    readonly data?: {
      readonly url?: string;
      readonly functionName?: string;
      readonly frame?: string;
      readonly frames?: readonly { readonly frame?: string; readonly url?: string }[];
      /** A user-timing mark's time in its document's clock (ms). */
      readonly startTime?: number;
    };
    /** Style and layout name their frame here. */
    readonly beginData?: { readonly frame?: string };
  };
}

export interface FrameTimes {
  /** Frames with main-thread work, in order. */
  readonly count: number;
  /** Per frame, wall clock (ms). */
  readonly wallMs: readonly number[];
  /** Per frame, main-thread CPU time (ms). */
  readonly cpuMs: readonly number[];
}

/** The events of a trace file. */
export function traceEvents(trace: Buffer): TraceEvent[] {
  const parsed = JSON.parse(trace.toString('utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  return Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
}

/**
 * The complete events of each renderer main thread (`CrRendererMain`), keyed `pid:tid`, in order
 * of start; an event starting with its parent comes after it (longer first).
 */
export function rendererMainThreads(events: readonly TraceEvent[]): Map<string, TraceEvent[]> {
  const mainThreads = new Set<string>();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain') {
      mainThreads.add(`${e.pid}:${e.tid}`);
    }
  }
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (e.ph === 'X' && mainThreads.has(key)) {
      const list = byThread.get(key) ?? [];
      list.push(e);
      byThread.set(key, list);
    }
  }
  for (const list of byThread.values()) {
    list.sort((a, b) => a.ts - b.ts || (b.dur ?? 0) - (a.dur ?? 0));
  }
  return byThread;
}

/** Complete events named `name` on the page's renderer main thread (the one with the most of them), in order. */
function mainThreadEvents(trace: Buffer, name: string): TraceEvent[] {
  // The page's renderer is the busy one (a spare renderer has next to nothing).
  const named = [...rendererMainThreads(traceEvents(trace)).values()].map((list) => list.filter((e) => e.name === name));
  return named.sort((a, b) => b.length - a.length)[0] ?? [];
}

export function frameTimes(trace: Buffer): FrameTimes {
  const frames = mainThreadEvents(trace, 'ProxyMain::BeginMainFrame');
  return {
    count: frames.length,
    wallMs: frames.map((f) => (f.dur ?? 0) / 1000),
    cpuMs: frames.map((f) => (f.tdur ?? f.dur ?? 0) / 1000),
  };
}

export interface LongTasks {
  /** Tasks on the renderer main thread. */
  readonly tasks: number;
  /** Tasks over the threshold by main-thread CPU time, and their CPU times (ms). */
  readonly overCpuMs: readonly number[];
  /** Tasks over the threshold by wall-clock time (what the long-task API counts; a busy machine inflates it). */
  readonly overWallMs: readonly number[];
  readonly maxCpuMs: number;
  readonly maxWallMs: number;
}

/** Every task of the renderer main thread (`toplevel` category): those over `thresholdMs`. */
export function longTasks(trace: Buffer, thresholdMs = 50): LongTasks {
  const tasks = mainThreadEvents(trace, 'ThreadControllerImpl::RunTask');
  const cpu = tasks.map((t) => (t.tdur ?? t.dur ?? 0) / 1000);
  const wall = tasks.map((t) => (t.dur ?? 0) / 1000);
  return {
    tasks: tasks.length,
    overCpuMs: cpu.filter((ms) => ms > thresholdMs),
    overWallMs: wall.filter((ms) => ms > thresholdMs),
    maxCpuMs: Math.max(0, ...cpu),
    maxWallMs: Math.max(0, ...wall),
  };
}

export interface LongTaskInfo {
  readonly thread: string;
  readonly ms: number;
  readonly cpuMs: number;
  /** The task's biggest parts: script URLs and functions, or rendering / GC steps, with their time. */
  readonly parts: readonly string[];
}

/**
 * Tasks over 50 ms on renderer main threads (by wall-clock time, or by `cpu` time), each with what
 * took its time; the longest by CPU time first.
 */
export function longTasksOf(events: readonly TraceEvent[], by: 'wall' | 'cpu' = 'wall'): LongTaskInfo[] {
  const out: LongTaskInfo[] = [];
  for (const [key, list] of rendererMainThreads(events)) {
    const urls = new Set(list.flatMap((e) => (e.args?.data?.url !== undefined && e.args.data.url !== '' ? [e.args.data.url] : [])));
    const thread = [...urls].some((u) => u.includes('/webview/') || u.includes('main.js')) ? `renderer ${key} (webview)` : `renderer ${key}`;
    for (const task of list.filter((e) => e.name === 'ThreadControllerImpl::RunTask' && (by === 'wall' ? (e.dur ?? 0) : (e.tdur ?? e.dur ?? 0)) > 50_000)) {
      const end = task.ts + (task.dur ?? 0);
      const parts = new Map<string, number>();
      for (const e of list) {
        if (e.ts < task.ts || e.ts + (e.dur ?? 0) > end || e === task) {
          continue;
        }
        const what =
          e.name === 'FunctionCall' || e.name === 'EvaluateScript' || e.name === 'v8.compile'
            ? `${e.args?.data?.functionName ?? e.name} ${(e.args?.data?.url ?? '').replace(/^.*\//, '')}`
            : ['Layout', 'UpdateLayoutTree', 'Paint', 'MajorGC', 'MinorGC', 'ParseHTML', 'HandlePostMessage', 'EventDispatch', 'TimerFire'].includes(e.name)
              ? e.name
              : undefined;
        if (what !== undefined) {
          parts.set(what, (parts.get(what) ?? 0) + (e.dur ?? 0) / 1000);
        }
      }
      out.push({
        thread,
        ms: (task.dur ?? 0) / 1000,
        cpuMs: (task.tdur ?? task.dur ?? 0) / 1000,
        parts: [...parts.entries()].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([what, ms]) => `${what}: ${ms.toFixed(0)} ms`),
      });
    }
  }
  return out.sort((a, b) => b.cpuMs - a.cpuMs);
}
