import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { chromium, type Browser, type CDPSession, type Page } from 'playwright-core';
import type { EntryOutline, EntryView, SessionHeaderView } from '../src/protocol/sessionView';
import type { EntryOp, HostMessage } from '../src/protocol/webviewProtocol';
import { textPatchInterval } from '../src/views/chat/webviewChannel';
import { repoRoot } from '../test/support/paths';
import { header } from '../test/unit/webview/fixtures';
import { agentAnswer } from './streamText';

/**
 * The real webview bundle (dist/webview/main.js) in Debian's headless Chromium, served by the fake
 * host (test/webview-host/fakeHost.mjs), with main-thread metrics from the Chrome DevTools Protocol.
 */

interface FakeHost {
  readonly url: string;
  close(): Promise<void>;
}

interface FakeHostModule {
  startFakeHost(this: void, options?: { port?: number }): Promise<FakeHost>;
}

/** Debian's Chromium, as the test harness uses (HARNESS_CHROMIUM overrides it there and here). */
const chromiumPath = process.env.HARNESS_CHROMIUM ?? '/usr/bin/chromium';

const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
  // Extra switches for experiments (space-separated), e.g. BENCH_CHROMIUM_ARGS=--enable-prefer-compositing-to-lcd-text
  ...(process.env.BENCH_CHROMIUM_ARGS ?? '').split(' ').filter((a) => a !== ''),
];

/** Main-thread time: CDP `Performance.getMetrics` durations (wall clock) and the thread's CPU time, in ms. */
export interface MainThread {
  /**
   * ThreadTime: CPU time of the renderer's main thread, i.e. what its work cost without the time it
   * sat preempted on a busy machine. The figure the ratios use.
   */
  readonly cpuMs: number;
  /** TaskDuration: wall-clock time of all tasks of the renderer's main thread. */
  readonly taskMs: number;
  readonly scriptMs: number;
  readonly layoutMs: number;
  readonly styleMs: number;
  readonly layouts: number;
  readonly styles: number;
}

export function mainThreadDelta(a: MainThread, b: MainThread): MainThread {
  return {
    cpuMs: b.cpuMs - a.cpuMs,
    taskMs: b.taskMs - a.taskMs,
    scriptMs: b.scriptMs - a.scriptMs,
    layoutMs: b.layoutMs - a.layoutMs,
    styleMs: b.styleMs - a.styleMs,
    layouts: b.layouts - a.layouts,
    styles: b.styles - a.styles,
  };
}

/**
 * The page's globals as seen from `page.evaluate` callbacks (which run in the page, so they may use
 * nothing from this module). The root tsconfig has no DOM library: only what the callbacks use.
 */
export interface BenchWindow {
  /** The chunks of the next stream ({@link WebviewPage.prepareStream}). */
  __benchChunks?: readonly string[] | undefined;
  /** The message the next delivery posts ({@link WebviewPage.prepareSnapshot}). */
  __benchMessage?: HostMessage | undefined;
  __deliver(message: HostMessage): void;
  __deliverAsync(message: HostMessage): void;
  readonly __posted: readonly { readonly type: string }[];
  requestAnimationFrame(callback: (time: number) => void): number;
  setTimeout(callback: () => void, ms: number): number;
  readonly performance: { now(): number };
  readonly document: {
    querySelector(selector: string): { readonly textContent: string | null } | null;
  };
}

export function benchHeader(phase: SessionHeaderView['phase'], turnStartedAt?: number): SessionHeaderView {
  return header({ sessionId: 'bench', phase, ...(turnStartedAt !== undefined ? { turnStartedAt } : {}) });
}

export class WebviewBrowser {
  private constructor(
    private readonly browser: Browser,
    private readonly host: FakeHost,
    private readonly home: string,
  ) {}

  static async launch(): Promise<WebviewBrowser> {
    const main = path.join(repoRoot, 'dist', 'webview', 'main.js');
    if (!fs.existsSync(main)) {
      throw new Error(`${main} is missing: run node scripts/build.mjs first`);
    }
    const hostModule = pathToFileURL(path.join(repoRoot, 'test', 'webview-host', 'fakeHost.mjs')).href;
    const { startFakeHost } = (await import(hostModule)) as FakeHostModule;
    const home = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-bench-chromium-'));
    const host = await startFakeHost();
    try {
      const browser = await chromium.launch({
        executablePath: chromiumPath,
        headless: true,
        args: chromiumArgs,
        env: { ...process.env, HOME: home, XDG_CONFIG_HOME: path.join(home, '.config'), XDG_CACHE_HOME: path.join(home, '.cache') },
      });
      return new WebviewBrowser(browser, host, home);
    } catch (e) {
      await host.close();
      fs.rmSync(home, { recursive: true, force: true });
      throw e;
    }
  }

  /** A fresh page with the webview loaded and ready (it said `webview/ready`). */
  async open(viewport = { width: 480, height: 900 }): Promise<WebviewPage> {
    const page = await this.browser.newPage({ viewport });
    const errors: string[] = [];
    page.on('pageerror', (e) => errors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') {
        errors.push(m.text());
      }
    });
    await page.goto(this.host.url);
    await page.waitForFunction(() => (globalThis as unknown as BenchWindow).__posted.some((m) => m.type === 'webview/ready'));
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    return new WebviewPage(page, cdp, errors);
  }

  /** Runs `fn` with Chromium tracing on for `page`; returns the trace (JSON). */
  async traced(page: WebviewPage, categories: readonly string[], fn: () => Promise<void>): Promise<Buffer> {
    await this.browser.startTracing(page.page, { categories: [...categories] });
    let trace: Buffer;
    try {
      await fn();
    } finally {
      trace = await this.browser.stopTracing();
    }
    return trace;
  }

  async close(): Promise<void> {
    await this.browser.close();
    await this.host.close();
    fs.rmSync(this.home, { recursive: true, force: true });
  }
}

export class WebviewPage {
  private seq = 0;

  constructor(
    readonly page: Page,
    private readonly cdp: CDPSession,
    /** Page errors and console errors seen so far. */
    readonly errors: string[],
  ) {}

  /** The next patch's `seq` (one more than the last delivered). */
  nextSeq(): number {
    return ++this.seq;
  }

  async metrics(): Promise<MainThread & { readonly heapBytes: number; readonly nodes: number }> {
    const { metrics } = await this.cdp.send('Performance.getMetrics');
    const m = new Map(metrics.map((x) => [x.name, x.value]));
    const ms = (name: string): number => (m.get(name) ?? 0) * 1000;
    return {
      cpuMs: ms('ThreadTime'),
      taskMs: ms('TaskDuration'),
      scriptMs: ms('ScriptDuration'),
      layoutMs: ms('LayoutDuration'),
      styleMs: ms('RecalcStyleDuration'),
      layouts: m.get('LayoutCount') ?? 0,
      styles: m.get('RecalcStyleCount') ?? 0,
      heapBytes: m.get('JSHeapUsedSize') ?? 0,
      nodes: m.get('Nodes') ?? 0,
    };
  }

  /** A full garbage collection (so a measurement does not pay for garbage made before it). */
  async collectGarbage(): Promise<void> {
    await this.cdp.send('HeapProfiler.collectGarbage');
  }

  /** Posts a snapshot as its own task (as the real host's postMessage arrives); `earlier`: the entries it only outlines. */
  async snapshot(header: SessionHeaderView, entries: readonly EntryView[], earlier?: readonly EntryOutline[]): Promise<void> {
    await (await this.prepareSnapshot(header, entries, earlier))();
  }

  /**
   * Hands the page a snapshot to post later and returns what posts it (as its own task, as
   * {@link snapshot} does). Call it before taking the metrics a measurement starts from: moving a
   * 1.3 MB argument into the page through the DevTools protocol costs the renderer 400–800 ms of
   * CPU (20,001 entries), the harness's work; a real webview receives it by `postMessage` (a
   * structured clone, which the delivery still pays).
   */
  async prepareSnapshot(header: SessionHeaderView, entries: readonly EntryView[], earlier?: readonly EntryOutline[]): Promise<() => Promise<void>> {
    const message: HostMessage = { type: 'session/snapshot', seq: this.nextSeq(), view: { header, entries, ...(earlier !== undefined ? { earlier } : {}) } };
    await this.page.evaluate((m) => {
      (globalThis as unknown as BenchWindow).__benchMessage = m;
    }, message);
    return async () => {
      await this.page.evaluate(() => {
        const w = globalThis as unknown as BenchWindow;
        const m = w.__benchMessage;
        w.__benchMessage = undefined;
        if (m !== undefined) {
          w.__deliverAsync(m);
        }
      });
    };
  }

  async patch(ops: readonly EntryOp[], header?: SessionHeaderView): Promise<void> {
    const message: HostMessage = { type: 'session/patch', seq: this.nextSeq(), ops, ...(header !== undefined ? { header } : {}) };
    await this.page.evaluate((m) => (globalThis as unknown as BenchWindow).__deliverAsync(m), message);
  }

  /** Waits `ms` of wall time, then two animation frames: paced renders and timers have run. */
  async settle(ms = 600): Promise<void> {
    await this.page.evaluate(
      (wait) =>
        new Promise<void>((resolve) => {
          const w = globalThis as unknown as BenchWindow;
          w.setTimeout(() => w.requestAnimationFrame(() => w.requestAnimationFrame(() => resolve())), wait);
        }),
      ms,
    );
  }

  /**
   * Renders and drops an 8 KB message (JIT; DOMPurify; highlight.js, whose engine and grammars
   * load as scripts of their own: waited for, so no measurement pays for them), then collects
   * garbage. `keep`: the message stays (the header says `idle`).
   */
  async warmUp(keep = false): Promise<void> {
    const highlighted = (): Promise<unknown> =>
      this.page.waitForFunction(() => (globalThis as unknown as BenchWindow).document.querySelector('pre code span') !== null, undefined, { timeout: 20_000 });
    await this.snapshot(benchHeader('idle'), [{ kind: 'assistant', id: 'warm', parts: [{ kind: 'text', text: agentAnswer(8_000) }] }]);
    try {
      await highlighted();
    } catch {
      // A highlight script failed to load (seen once under heavy load): the next fence tries again.
      await this.snapshot(benchHeader('idle'), [{ kind: 'assistant', id: 'warm2', parts: [{ kind: 'text', text: agentAnswer(8_000) }] }]);
      await highlighted();
    }
    await this.settle(300);
    if (!keep) {
      await this.snapshot(benchHeader('running', Date.now()), []);
      await this.settle(300);
    }
    await this.collectGarbage();
  }

  /**
   * Renders a session from its snapshot (the turn running) and collects garbage: the render's
   * main-thread CPU time, then the page as loaded (heap, nodes, the CPU clock to measure from).
   */
  async loadSession(entries: readonly EntryView[], earlier?: readonly EntryOutline[]): Promise<{ readonly renderCpuMs: number; readonly loaded: MainThread & { readonly heapBytes: number; readonly nodes: number } }> {
    const deliver = await this.prepareSnapshot(benchHeader('running', Date.now()), entries, earlier);
    const before = await this.metrics();
    await deliver();
    await this.settle();
    const rendered = await this.metrics();
    await this.collectGarbage();
    return { renderCpuMs: rendered.cpuMs - before.cpuMs, loaded: await this.metrics() };
  }

  /**
   * Hands the page the chunks of a stream and returns what plays it ({@link streamInPage}). Call it
   * before taking the metrics a measurement starts from: a real webview never receives a reply as
   * one array of chunks, and deserializing 20,000 strings is the harness's work, not the view's
   * (~16 ms of P2's stream).
   */
  async prepareStream(chunks: readonly string[], plan: Omit<StreamPlan, 'firstSeq'>): Promise<() => Promise<StreamOutcome>> {
    await this.page.evaluate((staged) => {
      (globalThis as unknown as BenchWindow).__benchChunks = staged;
    }, chunks);
    return async () => {
      const outcome = await this.page.evaluate(streamInPage, { ...plan, firstSeq: this.seq + 1 });
      this.seq = outcome.lastSeq;
      return outcome;
    };
  }

  /**
   * Settles until entry `entryId` shows all it will: a long text shown at once is rendered a budget
   * of blocks per task (markdownView.ts), so a 400 KB reply takes more tasks than one settle waits.
   * Returns its text length.
   */
  async settleShown(entryId: string, timeoutMs = 60_000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    await this.settle();
    let shown = await this.shownChars(entryId);
    for (;;) {
      await this.settle(300);
      const now = await this.shownChars(entryId);
      if (now === shown || Date.now() > deadline) {
        return now;
      }
      shown = now;
    }
  }

  /** Text length of the rendered entry (a check that every variant shows the same thing). */
  async shownChars(entryId: string): Promise<number> {
    return this.page.evaluate((id) => (globalThis as unknown as BenchWindow).document.querySelector(`[data-entry-id="${id}"]`)?.textContent?.length ?? -1, entryId);
  }

  async close(): Promise<void> {
    await this.page.close();
  }
}

/**
 * How long the channel holds text-only patches for these chunks arriving at this rate
 * (`WebviewChannel` measures the rate of the text it holds: `textPatchInterval`).
 */
export function channelTextIntervalMs(chunks: readonly string[], chunksPerSecond: number): number {
  const chars = chunks.reduce((n, c) => n + c.length, 0);
  return textPatchInterval((chars / Math.max(1, chunks.length)) * chunksPerSecond);
}

/** What {@link streamInPage} is given. */
export interface StreamPlan {
  /** Chunks the agent produces per second (the chunks themselves are staged: `WebviewPage.prepareStream`). */
  readonly chunksPerSecond: number;
  /** The host's coalescing window: at most one patch per window, carrying every chunk since the last. */
  readonly windowMs: number;
  /**
   * After the first patch, text-only patches wait until this long after the previous one
   * (`channelTextIntervalMs`: the channel's wait at the stream's rate); undefined: every window.
   */
  readonly textIntervalMs?: number;
  /** The message's entry index; the first patch inserts it, the others append to its text part. */
  readonly index: number;
  readonly entryId: string;
  readonly firstSeq: number;
}

export interface StreamOutcome {
  readonly patches: number;
  readonly lastSeq: number;
  readonly wallMs: number;
}

/**
 * Runs IN THE PAGE (passed to `page.evaluate`; self-contained). Plays an agent producing the
 * staged chunks (`__benchChunks`), `chunksPerSecond` of them a second, through a host that looks
 * every `windowMs` and posts every chunk since the last patch as one `session/patch` (an `insert`,
 * then one `appendText` op each) — the first at once, later ones only `textIntervalMs` after the
 * previous (as `WebviewChannel` holds text-only patches). Each patch arrives in a task of its own,
 * as a posted message does: a timer task that dispatches the `message` event (so the fake host adds
 * no second task per patch).
 */
export function streamInPage(plan: StreamPlan): Promise<StreamOutcome> {
  const w = globalThis as unknown as BenchWindow;
  const chunks = w.__benchChunks ?? [];
  w.__benchChunks = undefined;
  let seq = plan.firstSeq - 1;
  let sent = 0;
  let patches = 0;
  const total = chunks.length;
  const t0 = w.performance.now();
  let postedAt = -Infinity;
  return new Promise<StreamOutcome>((resolve) => {
    const tick = (): void => {
      const now = w.performance.now();
      const due = Math.min(total, Math.floor(((now - t0) * plan.chunksPerSecond) / 1000));
      const held = sent > 0 && due < total && now - postedAt < (plan.textIntervalMs ?? 0);
      if (due > sent && !held) {
        postedAt = now;
        const text = chunks.slice(sent, due).join('');
        const op: EntryOp =
          sent === 0
            ? { op: 'insert', index: plan.index, entry: { kind: 'assistant', id: plan.entryId, parts: [{ kind: 'text', text }] } }
            : { op: 'appendText', index: plan.index, part: 0, kind: 'text', text };
        w.__deliver({ type: 'session/patch', seq: ++seq, ops: [op] });
        patches++;
        sent = due;
      }
      if (sent < total) {
        // The host holds text-only patches in its own process: the page wakes only when one is due.
        // Rounded up: setTimeout truncates a fractional delay, so 99.7 would wake the page a hair
        // early, find the patch still held, and wake it again a window later (a wake-up no real
        // webview has, and patches every ~116 ms instead of 100).
        const nextPost = sent > 0 ? Math.ceil(postedAt + (plan.textIntervalMs ?? 0) - w.performance.now()) : 0;
        w.setTimeout(tick, Math.max(plan.windowMs, nextPost));
        return;
      }
      resolve({ patches, lastSeq: seq, wallMs: w.performance.now() - t0 });
    };
    w.setTimeout(tick, plan.windowMs);
  });
}

export function percentile(values: readonly number[], p: number): number {
  if (values.length === 0) {
    return Number.NaN;
  }
  const sorted = [...values].sort((a, b) => a - b);
  const i = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[i] ?? Number.NaN;
}

export function median(values: readonly number[]): number {
  return percentile(values, 50);
}
