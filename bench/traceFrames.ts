/**
 * Frame times from a Chromium trace (categories `toplevel`, `cc`, `devtools.timeline`): every
 * `ProxyMain::BeginMainFrame` on the renderer's main thread is one frame's main-thread work
 * (animation-frame callbacks, style, layout, paint, commit).
 */
export const frameTraceCategories = ['toplevel', 'cc', 'devtools.timeline'];

interface TraceEvent {
  readonly name: string;
  readonly ph: string;
  readonly pid: number;
  readonly tid: number;
  readonly ts: number;
  readonly dur?: number;
  /** Thread (CPU) time of a complete event, µs. */
  readonly tdur?: number;
  readonly args?: { readonly name?: string };
}

export interface FrameTimes {
  /** Frames with main-thread work, in order. */
  readonly count: number;
  /** Per frame, wall clock (ms). */
  readonly wallMs: readonly number[];
  /** Per frame, main-thread CPU time (ms). */
  readonly cpuMs: readonly number[];
}

export function frameTimes(trace: Buffer): FrameTimes {
  const parsed = JSON.parse(trace.toString('utf8')) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  const events = Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
  const mainThreads = new Set<string>();
  for (const e of events) {
    if (e.ph === 'M' && e.name === 'thread_name' && e.args?.name === 'CrRendererMain') {
      mainThreads.add(`${e.pid}:${e.tid}`);
    }
  }
  // The page's renderer is the one with frames (a spare renderer has none).
  const byThread = new Map<string, TraceEvent[]>();
  for (const e of events) {
    const key = `${e.pid}:${e.tid}`;
    if (e.ph === 'X' && e.name === 'ProxyMain::BeginMainFrame' && mainThreads.has(key)) {
      const list = byThread.get(key) ?? [];
      list.push(e);
      byThread.set(key, list);
    }
  }
  const frames = [...byThread.values()].sort((a, b) => b.length - a.length)[0] ?? [];
  frames.sort((a, b) => a.ts - b.ts);
  return {
    count: frames.length,
    wallMs: frames.map((f) => (f.dur ?? 0) / 1000),
    cpuMs: frames.map((f) => (f.tdur ?? f.dur ?? 0) / 1000),
  };
}
