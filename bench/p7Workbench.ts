import type { CDPSession, Page } from 'playwright-core';
import { openVsCode } from '../test/ui/support';
import { footerIds, footers, newFooter, send, waitUntil } from '../test/ui/uiHelpers';
import { agentAnswer, chunked } from './streamText';
import { longTasksOf, type LongTaskInfo, type TraceEvent } from './traceFrames';

/**
 * P7 — the whole stack: code-server (VS Code's real workbench and extension host) in Chromium,
 * the extension installed from its package, the scripted agent streaming a 20,000-chunk reply at
 * 1,000 chunks a second (`[replay-file … rate=1000]`). Measured in the workbench page: how late its
 * timers fire (a 10 ms interval: the gap between ticks is how long the workbench's thread was
 * held), and, from a Chromium trace of every renderer, the main-thread tasks over 50 ms and what
 * ran in them (script URL, function, or rendering step). The webview is an iframe of the
 * workbench: where they share a renderer, whatever the chat does holds the workbench too.
 */
export interface P7Options {
  readonly chunks: number;
  readonly rate: number;
  /**
   * Once the prompt is sent, the keyboard goes to a new editor beside the chat (which stays in
   * view): what a user typing in a file while an agent streams shares the workbench's thread with.
   */
  readonly editorFocused: boolean;
}

export const defaultP7: P7Options = { chunks: 20_000, rate: 1_000, editorFocused: false };


export interface P7Result {
  readonly chunks: number;
  readonly editorFocused: boolean;
  readonly streamWallMs: number;
  /** Workbench timer: the longest gap between 10 ms ticks while the reply streamed, and gaps over 50 ms. */
  readonly timerMaxGapMs: number;
  readonly timerGapsOver50: number;
  readonly timerTicks: number;
  /**
   * Renderer main-thread tasks over 50 ms of wall time while it streamed (on a busy machine most
   * are preemption: see their CPU time), and those over 50 ms of CPU time; the longest 10 by CPU.
   */
  readonly longTasks: readonly LongTaskInfo[];
  readonly longTaskCount: number;
  readonly longTaskCpuCount: number;
}

interface TimerWindow {
  __gaps?: number[];
  __timer?: number;
  setInterval(callback: () => void, ms: number): number;
  clearInterval(handle: number): void;
  readonly performance: { now(): number };
}

interface FocusWindow {
  readonly document: { readonly activeElement: { closest(selector: string): unknown } | null };
}

async function startTrace(cdp: CDPSession): Promise<void> {
  await cdp.send('Tracing.start', {
    transferMode: 'ReturnAsStream',
    traceConfig: { includedCategories: ['toplevel', 'devtools.timeline', 'v8', 'disabled-by-default-devtools.timeline'], recordMode: 'recordAsMuchAsPossible' },
  });
}

async function stopTrace(cdp: CDPSession): Promise<TraceEvent[]> {
  const complete = new Promise<string>((resolve) => cdp.once('Tracing.tracingComplete', (e: { stream?: string }) => resolve(e.stream ?? '')));
  await cdp.send('Tracing.end');
  const handle = await complete;
  let text = '';
  for (;;) {
    const chunk = await cdp.send('IO.read', { handle, size: 8 * 1024 * 1024 });
    text += chunk.base64Encoded === true ? Buffer.from(chunk.data, 'base64').toString('utf8') : chunk.data;
    if (chunk.eof) {
      break;
    }
  }
  await cdp.send('IO.close', { handle });
  const parsed = JSON.parse(text) as { traceEvents?: TraceEvent[] } | TraceEvent[];
  return Array.isArray(parsed) ? parsed : (parsed.traceEvents ?? []);
}

async function startTimer(page: Page): Promise<void> {
  await page.evaluate(() => {
    const w = globalThis as unknown as TimerWindow;
    w.__gaps = [];
    let last = w.performance.now();
    w.__timer = w.setInterval(() => {
      const now = w.performance.now();
      w.__gaps?.push(now - last);
      last = now;
    }, 10);
  });
}

async function stopTimer(page: Page): Promise<number[]> {
  return page.evaluate(() => {
    const w = globalThis as unknown as TimerWindow;
    if (w.__timer !== undefined) {
      w.clearInterval(w.__timer);
    }
    return w.__gaps ?? [];
  });
}

export async function runP7(options: P7Options = defaultP7): Promise<P7Result> {
  const text = agentAnswer(options.chunks * 4);
  const lines = chunked(text, options.chunks).map((chunk) => JSON.stringify({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: chunk } }));
  const session = await openVsCode({ files: { 'stream.ndjson': `${lines.join('\n')}\n` } });
  try {
    await session.command('Hermes: New Session');
    const chat = await session.chat();
    await chat.getByRole('textbox', { name: 'Message', exact: true }).waitFor({ timeout: 60_000 });
    // Warm: the first reply loads the highlighter and compiles the chat's code paths.
    await send(chat, '[markdown]');
    await waitUntil('the warm-up reply', async () => (await footers(chat).count()) > 0, 60_000, 200);
    if (options.editorFocused) {
      // Opened before the clock starts (the command palette's own work is not the chat's).
      await session.command('File: New Untitled Text File');
    }
    const cdp = await session.page.context().newCDPSession(session.page);
    await startTrace(cdp);
    await startTimer(session.page);
    const before = await footerIds(chat);
    const started = Date.now();
    await send(chat, `[replay-file path=stream.ndjson rate=${options.rate}]`);
    if (options.editorFocused) {
      await session.page.keyboard.press('Control+1'); // View: Focus First Editor Group
      const inEditor = (): boolean => ((globalThis as unknown as FocusWindow).document.activeElement?.closest('.monaco-editor') ?? null) !== null;
      await waitUntil('the keyboard in the editor', () => session.page.evaluate(inEditor), 10_000, 50);
    }
    await newFooter(chat, before, 'the streamed reply', 180_000);
    const streamWallMs = Date.now() - started;
    const gaps = await stopTimer(session.page);
    const events = await stopTrace(cdp);
    const long = longTasksOf(events);
    return {
      chunks: options.chunks,
      editorFocused: options.editorFocused,
      streamWallMs,
      timerMaxGapMs: Math.max(0, ...gaps),
      timerGapsOver50: gaps.filter((g) => g > 50).length,
      timerTicks: gaps.length,
      longTasks: long.slice(0, 10),
      longTaskCount: long.length,
      longTaskCpuCount: long.filter((t) => t.cpuMs > 50).length,
    };
  } finally {
    await session.close();
  }
}
