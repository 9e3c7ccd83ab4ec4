/**
 * Frame times and long tasks from a Chromium trace (categories `toplevel`, `cc`,
 * `devtools.timeline`): every `ProxyMain::BeginMainFrame` on the renderer's main thread is one
 * frame's main-thread work (animation-frame callbacks, style, layout, paint, commit), every
 * `ThreadControllerImpl::RunTask` one task.
 */
export const frameTraceCategories = ['toplevel', 'cc', 'devtools.timeline'];

export interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly ts: number;
  readonly dur?: number;
  /** Thread (CPU) time of a complete event, µs. */
  readonly tdur?: number;
  readonly args?: { readonly name?: string; readonly data?: { readonly url?: string; readonly functionName?: string } };
}

export interface FrameTimes {
  /** Frames with main-thread work, in order. */
  readonly count: number;
  /** Per frame, wall clock (ms). */
  readonly wallMs: readonly number[];
  /** Per frame, main-thread CPU time (ms). */
  readonly cpuMs: readonly number[];
}

/** Complete events named `name` on the page's renderer main thread (the one with the most of them), in order. */
function mainThreadEvents(trace: Buffer, name: string): TraceEvent[] {
  const parsed = JSON.parse(trace.toString('utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const mainThreads = new Set<string>();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain') {
      mainThreads.add(`${e.pid}:${e.tid}`);
    }
  }
  // The page's renderer is the busy one (a spare renderer has next to nothing).
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (e.ph === 'X' && e.name === name && mainThreads.has(key)) {
      const list = byThread.get(key) ?? [];
      list.push(e);
      byThread.set(key, list);
    }
  }
  const found = [...byThread.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  return found.sort((a, b) => a.ts - b.ts);
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
