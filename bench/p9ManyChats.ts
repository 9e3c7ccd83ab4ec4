import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { openVsCode, type UiSession } from '../test/ui/support';
import { chatWebviews, composerBox, footerIds, newFooter, openChatBeside, send, waitUntil } from '../test/ui/uiHelpers';
import { HostInspector } from './hostInspector';
import { mostAtOnce } from './intervals';
import { typingProbe } from './interaction';
import { agentAnswer, chunked } from './streamText';
import { percentile } from './webviewPage';

/**
 * P9 — eight chats at once: code-server (the packaged extension, VS Code's workbench and
 * extension host) with eight editor-tab chats side by side, the scripted agent streaming into each
 * (a paced reply, 10 chunks a second for 20 s, then a burst of 20,000 chunks as fast as it goes).
 * Measured: how long after the agent's last chunk (its own clock, `SCRIPTED_AGENT_EVENTS_FILE`) the
 * last chat shows the reply's end (each chat's document notes when the end marker appears); typing
 * in the focused chat meanwhile (key → the frame after the textarea changed, in the chat's
 * document); how long pressing Enter in the eight composers took; the extension host's resident
 * memory before the chats opened and 60 s after they closed.
 */
export interface P9Options {
  readonly chats: number;
  readonly pacedChunks: number;
  readonly pacedRate: number;
  readonly burstChunks: number;
  readonly typingKeys: number;
  readonly settleAfterCloseMs: number;
}

export const defaultP9: P9Options = { chats: 8, pacedChunks: 200, pacedRate: 10, burstChunks: 20_000, typingKeys: 40, settleAfterCloseMs: 60_000 };

export interface P9Round {
  readonly mode: 'paced' | 'burst';
  /** The last chat showed the end this long after the agent's last chunk (ms; the slowest chat). */
  readonly lastEndLagMs: number;
  /** Each chat's lag behind the agent's last chunk of any chat (ms), in screen order. */
  readonly endLagsMs: readonly number[];
  /** The agent: from the first chat's Enter to the last chunk of the last reply (ms). */
  readonly agentMs: number;
  readonly sendAllMs: number;
  /**
   * The most agents streaming at once (their replies' first to last update overlapping). The
   * driver's Enter in the eight composers is slower on a busier page, so how far the bursts overlap
   * differs from run to run, and with it the load the round's end is measured under.
   */
  readonly agentsAtOnce: number;
  readonly typingMs: readonly number[];
  readonly typingP95Ms: number;
  readonly typingMaxMs: number;
  /** Of each key's time, how long it waited before the chat's page dispatched it (ms; the renderer busy, or the browser). */
  readonly typingWaitMs: readonly number[];
}

export interface P9Result {
  readonly chats: number;
  readonly rounds: readonly P9Round[];
  /** Extension host resident memory (MB): with the extension active, before the chats; with them open; 60 s after closing them. */
  readonly memoryBeforeMB: number;
  readonly memoryOpenMB: number;
  readonly memoryAfterMB: number;
  readonly memoryRatio: number;
  /**
   * The extension host's JS heap after a full GC (through its inspector, when port 9229 was free):
   * before, with the chats open, and after; what the heap holds more than before, by constructor.
   */
  readonly heap?: { readonly beforeMB: number; readonly openMB: number; readonly afterMB: number; readonly grownBy: readonly { name: string; count: number; selfMB: number }[] };
}

/** Census rows of `after` that grew over `before` (by self size), largest first. */
function grown(before: readonly { name: string; count: number; selfMB: number }[], after: readonly { name: string; count: number; selfMB: number }[]): { name: string; count: number; selfMB: number }[] {
  const base = new Map(before.map((r) => [r.name, r]));
  return after
    .map((r) => ({ name: r.name, count: r.count - (base.get(r.name)?.count ?? 0), selfMB: r.selfMB - (base.get(r.name)?.selfMB ?? 0) }))
    .filter((r) => r.selfMB > 0.05)
    .sort((a, b) => b.selfMB - a.selfMB)
    .slice(0, 25);
}

/** The extension host of the code-server whose process group is `group` (its pid). */
function extensionHostPid(group: number): number | undefined {
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) {
      continue;
    }
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      const pgrp = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[2]);
      if (pgrp !== group) {
        continue;
      }
      const cmd = fs.readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      if (cmd.includes('--type=extensionHost')) {
        return Number(entry);
      }
    } catch {
      // gone meanwhile
    }
  }
  return undefined;
}

function rssMB(pid: number): number {
  const status = fs.readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? Number.NaN);
  return kb / 1024;
}

interface ProbeWindow {
  /** Settles with the moment (epoch ms) the round's end marker showed. */
  __end?: Promise<number>;
  __typingMs?: number[];
  __typingWaitMs?: number[];
  readonly performance: { now(): number; readonly timeOrigin: number };
  readonly MutationObserver: new (cb: (records: readonly { readonly addedNodes: ArrayLike<{ readonly textContent: string | null }>; readonly target: { readonly textContent: string | null } }[]) => void) => {
    observe(target: unknown, options: Readonly<Record<string, boolean>>): void;
    disconnect(): void;
  };
  readonly document: { readonly body: unknown };
}

/** Notes (epoch ms) when `marker` first shows in the chat's document, as a promise the page keeps. */
async function watchEnd(chat: FrameLocator, marker: string): Promise<void> {
  await chat.locator('body').evaluate((_body, m) => {
    const w = globalThis as unknown as ProbeWindow;
    w.__end = new Promise<number>((resolve) => {
      const observer = new w.MutationObserver((records) => {
        for (const r of records) {
          const nodes = Array.from(r.addedNodes);
          if (nodes.some((n) => (n.textContent ?? '').includes(m)) || (nodes.length === 0 && (r.target.textContent ?? '').includes(m))) {
            resolve(w.performance.timeOrigin + w.performance.now());
            observer.disconnect();
            return;
          }
        }
      });
      observer.observe(w.document.body, { childList: true, subtree: true, characterData: true });
    });
  }, marker);
}

/**
 * When the marker showed (epoch ms), waiting in the chat's page: one evaluation whose promise the
 * page settles, not a poll. Polling eight chats every 100 ms through DevTools cost the renderer's
 * main thread 240–290 ms a second in a trace (bench/README) — as much as the chats' own work, at
 * the moment the ends are measured.
 */
async function endShown(chat: FrameLocator, timeoutMs: number): Promise<number> {
  return chat.locator('body').evaluate(
    (_body, ms) =>
      new Promise<number>((resolve, reject) => {
        const w = globalThis as unknown as ProbeWindow & { setTimeout(cb: () => void, ms: number): unknown };
        if (w.__end === undefined) {
          reject(new Error('no end marker was watched in this page'));
          return;
        }
        w.__end.then(resolve, reject);
        w.setTimeout(() => reject(new Error(`the reply's end did not show within ${ms} ms`)), ms);
      }),
    timeoutMs,
  );
}

function replyFile(chunks: readonly string[], marker: string): string {
  return `${[...chunks, `\n\n${marker}\n`].map((chunk) => JSON.stringify({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: chunk } })).join('\n')}\n`;
}

/**
 * Diagnostics (`BENCH_P9_TRACE=<folder>`): the renderer's trace of each round (categories
 * `devtools.timeline`, `toplevel`, `v8`; with `BENCH_P9_TRACE_PROFILE=1` also V8's sampling
 * profiler), written as `p9-<mode>.json` for a look at where the main thread's time goes; not part
 * of the figures.
 */
async function traced<T>(session: UiSession, mode: string, during: () => Promise<T>): Promise<T> {
  const dir = process.env.BENCH_P9_TRACE;
  if (dir === undefined || dir === '') {
    return during();
  }
  const cdp = await session.page.context().newCDPSession(session.page);
  const events: object[] = [];
  cdp.on('Tracing.dataCollected', (e: { value: object[] }) => {
    events.push(...e.value);
  });
  const complete = new Promise<void>((resolve) => cdp.once('Tracing.tracingComplete', () => resolve()));
  // A buffer for the whole round (the default, ~30 MB, held the first 15 s of the burst round).
  // The sampling profiler (`BENCH_P9_TRACE_PROFILE=1`) names the functions a long task ran; it slows the page.
  const categories = ['devtools.timeline', 'toplevel', 'v8', ...(process.env.BENCH_P9_TRACE_PROFILE === '1' ? ['disabled-by-default-v8.cpu_profiler'] : [])];
  await cdp.send('Tracing.start', { traceConfig: { includedCategories: categories, recordMode: 'recordAsMuchAsPossible', traceBufferSizeInKb: 400_000 } });
  try {
    return await during();
  } finally {
    await cdp.send('Tracing.end');
    await complete;
    await cdp.detach().catch(() => undefined);
    fs.mkdirSync(dir, { recursive: true });
    fs.writeFileSync(path.join(dir, `p9-${mode}.json`), JSON.stringify({ traceEvents: events }));
  }
}

async function round(session: UiSession, chats: readonly FrameLocator[], mode: 'paced' | 'burst', options: P9Options, eventsFile: string): Promise<P9Round> {
  return traced(session, mode, () => measuredRound(session, chats, mode, options, eventsFile));
}

async function measuredRound(session: UiSession, chats: readonly FrameLocator[], mode: 'paced' | 'burst', options: P9Options, eventsFile: string): Promise<P9Round> {
  const marker = `ENDOF${mode.toUpperCase()}${Date.now()}`;
  const chunks = mode === 'paced' ? chunked(agentAnswer(options.pacedChunks * 20), options.pacedChunks) : chunked(agentAnswer(options.burstChunks * 4), options.burstChunks);
  fs.writeFileSync(path.join(session.workspace, `${mode}.ndjson`), replyFile(chunks, marker));
  fs.writeFileSync(eventsFile, '');
  for (const chat of chats) {
    await watchEnd(chat, marker);
  }
  const prompt = `[replay-file path=${mode}.ndjson${mode === 'paced' ? ` rate=${options.pacedRate}` : ''}]`;
  const sendStarted = Date.now();
  for (const chat of chats) {
    await send(chat, prompt);
  }
  const sendAllMs = Date.now() - sendStarted;
  // The last chat has the keyboard: type into it while the replies stream.
  const focused = chats.at(-1);
  if (focused === undefined) {
    throw new Error('no chats');
  }
  await focused.locator('textarea').evaluate(typingProbe);
  await composerBox(focused).focus();
  for (let i = 0; i < options.typingKeys; i++) {
    await session.page.keyboard.press(String.fromCharCode(97 + (i % 26)));
    await session.page.waitForTimeout(mode === 'paced' ? 250 : 60);
  }
  const [typingMs, typingWaitMs] = await focused.locator('body').evaluate(() => {
    const w = globalThis as unknown as ProbeWindow;
    return [w.__typingMs ?? [], w.__typingWaitMs ?? []] as const;
  });
  await composerBox(focused).fill('');
  const shown = await Promise.all(
    chats.map((c, i) =>
      endShown(c, 240_000).catch((e: unknown) => {
        throw new Error(`P9 ${mode}: chat ${i + 1}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }),
    ),
  );
  const done = await waitUntil(
    'the agents said they were done',
    () => {
      const lines = fs.readFileSync(eventsFile, 'utf8').split('\n').filter((l) => l.trim() !== '');
      return Promise.resolve(lines.length >= chats.length ? lines.map((l) => JSON.parse(l) as { startedAt: number; at: number }) : undefined);
    },
    30_000,
    100,
  );
  const agentDone = Math.max(...done.map((d) => d.at));
  return {
    mode,
    lastEndLagMs: Math.max(...shown) - agentDone,
    endLagsMs: shown.map((s) => s - agentDone),
    agentMs: agentDone - sendStarted,
    sendAllMs,
    agentsAtOnce: mostAtOnce(done.map((d) => [d.startedAt, d.at] as const)),
    typingMs,
    typingP95Ms: percentile(typingMs, 95),
    typingMaxMs: Math.max(0, ...typingMs),
    typingWaitMs,
  };
}

export async function runP9(options: P9Options = defaultP9): Promise<P9Result> {
  const eventsDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-p9-'));
  const eventsFile = path.join(eventsDir, 'events.jsonl');
  const session = await openVsCode({ agentEnv: { SCRIPTED_AGENT_EVENTS_FILE: eventsFile }, viewport: { width: 1920, height: 1000 } });
  try {
    // The extension active (a command of its own), then quiet: the baseline.
    await session.command('Hermes: Show Traffic');
    await session.page.waitForTimeout(5_000);
    const host = await waitUntil('the extension host process', () => Promise.resolve(extensionHostPid(session.server.pid)), 30_000);
    const memoryBeforeMB = rssMB(host);
    // Diagnostics: the JS heap after a full GC, through the inspector (skipped when it cannot open).
    let inspector: HostInspector | undefined;
    let census: { name: string; count: number; selfMB: number }[] | undefined;
    let heapBefore = { beforeMB: Number.NaN };
    if (process.env.BENCH_P9_HEAP === '1') {
      try {
        inspector = await HostInspector.attach(host);
        heapBefore = { beforeMB: await inspector.heapAfterGcMB() };
        census = await inspector.census();
      } catch (e) {
        console.error(`P9: no heap figures (${e instanceof Error ? e.message : String(e)})`);
        inspector = undefined;
      }
    }
    for (let i = 1; i <= options.chats; i++) {
      await openChatBeside(session, i);
    }
    const chats = (await chatWebviews(session.page)).slice(-options.chats).map((v) => v.frame);
    for (const chat of chats) {
      // Warm: the first reply loads the highlighter and compiles the chat's code paths.
      await send(chat, '[markdown]');
    }
    await waitUntil('the warm-up replies', async () => ((await Promise.all(chats.map((c) => c.getByRole('note').count()))).every((n) => n > 0) ? true : undefined), 120_000, 250);
    const rounds: P9Round[] = [];
    for (const mode of ['paced', 'burst'] as const) {
      const before = await Promise.all(chats.map((c) => footerIds(c)));
      rounds.push(await round(session, chats, mode, options, eventsFile));
      // Every turn ends before the next round (a footer each chat did not have).
      for (const [i, chat] of chats.entries()) {
        await newFooter(chat, before[i] ?? new Set(), `the ${mode} turn's end in chat ${i + 1}`, 120_000);
      }
    }
    const memoryOpenMB = rssMB(host);
    const heapOpenMB = inspector !== undefined ? await inspector.heapAfterGcMB() : Number.NaN;
    await session.command('View: Close All Editors');
    await session.page.waitForTimeout(options.settleAfterCloseMs);
    const memoryAfterMB = rssMB(host);
    let heap: P9Result['heap'];
    if (inspector !== undefined && census !== undefined) {
      heap = { beforeMB: heapBefore.beforeMB, openMB: heapOpenMB, afterMB: await inspector.heapAfterGcMB(), grownBy: grown(census, await inspector.census()) };
      inspector.close();
    }
    return { chats: options.chats, rounds, memoryBeforeMB, memoryOpenMB, memoryAfterMB, memoryRatio: memoryAfterMB / memoryBeforeMB, ...(heap !== undefined ? { heap } : {}) };
  } finally {
    await session.close();
    fs.rmSync(eventsDir, { recursive: true, force: true });
  }
}
