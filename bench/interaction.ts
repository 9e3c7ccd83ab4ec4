import { percentile, type WebviewPage } from './webviewPage';

/**
 * Is the webview still interactive while it works? Two probes, driven through Chromium's input
 * pipeline (CDP key and wheel events, as a user's would arrive):
 * - typing: a key pressed in the composer, from the event's timestamp to the end of the first
 *   frame after the textarea changed (an animation frame, then the next task);
 * - scrolling: the transcript scrolled up by wheel steps and back to the bottom, with the time
 *   between consecutive frames meanwhile.
 * Both are wall-clock times: on a busy machine they include time the renderer sat preempted.
 */

interface ProbeWindow {
  __typingMs?: number[];
  __typingWaitMs?: number[];
  __frameGaps?: number[];
  __framesOn?: boolean;
  readonly performance: { now(): number };
  requestAnimationFrame(callback: (time: number) => void): number;
  setTimeout(callback: () => void, ms: number): number;
  readonly document: {
    querySelector(selector: string): ProbeElement | null;
  };
}

interface ProbeElement {
  addEventListener(type: string, listener: (event: { readonly timeStamp: number }) => void, options?: boolean | { once?: boolean; capture?: boolean }): void;
  focus(): void;
  value: string;
  getBoundingClientRect(): { x: number; y: number; width: number; height: number };
}

export interface InteractionFigures {
  /** Key press → first frame after the textarea changed (ms), one per key. */
  readonly typingMs: readonly number[];
  /** Time between consecutive frames while the transcript scrolls (ms). */
  readonly scrollFrameGapsMs: readonly number[];
}

/**
 * In the page (passed to `evaluate`, so it uses nothing from this module): times each key typed
 * into `textarea`, from the key event's time stamp (when the browser took the key) to the end of
 * the first frame after the text changed (an animation frame, then the next task), and how much of
 * that the key waited before the page dispatched it. One key is pending at a time: a key that
 * changes no text (Enter that sends, Control, Ctrl+A) is replaced by the next one, never timed
 * against a later key's change. The listeners go on once per textarea; each call resets the figures.
 */
export function typingProbe(textarea: unknown): void {
  const w = globalThis as unknown as ProbeWindow;
  w.__typingMs = [];
  w.__typingWaitMs = [];
  const box = textarea as ProbeElement & { __typingProbe?: true };
  if (box.__typingProbe === true) {
    return;
  }
  box.__typingProbe = true;
  let pending: { readonly at: number; readonly waitMs: number } | undefined;
  box.addEventListener(
    'keydown',
    (e) => {
      pending = { at: e.timeStamp, waitMs: w.performance.now() - e.timeStamp };
    },
    true,
  );
  box.addEventListener('input', () => {
    const key = pending;
    pending = undefined;
    if (key !== undefined) {
      w.requestAnimationFrame(() =>
        w.setTimeout(() => {
          w.__typingMs?.push(w.performance.now() - key.at);
          w.__typingWaitMs?.push(key.waitMs);
        }, 0),
      );
    }
  });
}

/** Installs the in-page listeners (once per page). */
export async function installProbes(page: WebviewPage): Promise<void> {
  await page.page.locator('textarea').evaluate(typingProbe);
  await page.page.evaluate(() => {
    (globalThis as unknown as ProbeWindow).__frameGaps = [];
  });
}

/** Types `keys` characters into the composer (a pause between keys), then clears it. */
export async function probeTyping(page: WebviewPage, keys = 5): Promise<void> {
  const p = page.page;
  await p.focus('textarea');
  for (let i = 0; i < keys; i++) {
    await p.keyboard.press(String.fromCharCode(97 + (i % 26)));
    await p.waitForTimeout(60);
  }
  await p.keyboard.press('Control+A');
  await p.keyboard.press('Backspace');
  // The last keys' frames come before the next probe: its first step (Playwright finding the
  // transcript: 60–110 ms in the page at 5,000 entries) would otherwise hold them, and be timed as
  // the page's typing latency.
  await p.waitForTimeout(150);
}

/** Scrolls the transcript up in wheel steps and back down to the bottom, recording frame gaps. */
export async function probeScrolling(page: WebviewPage, steps = 6): Promise<void> {
  const p = page.page;
  const box = await p.locator('.transcript').boundingBox();
  if (box === null) {
    return;
  }
  await p.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
  await p.evaluate(() => {
    const w = globalThis as unknown as ProbeWindow;
    w.__framesOn = true;
    let last = w.performance.now();
    const frame = (t: number): void => {
      w.__frameGaps?.push(t - last);
      last = t;
      if (w.__framesOn === true) {
        w.requestAnimationFrame(frame);
      }
    };
    w.requestAnimationFrame((t) => {
      last = t;
      w.requestAnimationFrame(frame);
    });
  });
  for (let i = 0; i < steps; i++) {
    await p.mouse.wheel(0, -300);
    await p.waitForTimeout(80);
  }
  await p.mouse.wheel(0, 1_000_000); // back to the bottom: the transcript sticks to it again
  await p.waitForTimeout(200);
  await p.evaluate(() => {
    (globalThis as unknown as ProbeWindow).__framesOn = false;
  });
}

export async function interactionFigures(page: WebviewPage): Promise<InteractionFigures> {
  return page.page.evaluate(() => {
    const w = globalThis as unknown as ProbeWindow;
    return { typingMs: w.__typingMs ?? [], scrollFrameGapsMs: w.__frameGaps ?? [] };
  });
}

/** Typing latency and scrolling frame gaps: p95 and max (ms). */
export interface InteractionSummary {
  readonly typingP95Ms: number;
  readonly typingMaxMs: number;
  readonly scrollGapP95Ms: number;
  readonly scrollGapMaxMs: number;
}

export function summarize(figures: InteractionFigures): InteractionSummary {
  return {
    typingP95Ms: percentile(figures.typingMs, 95),
    typingMaxMs: Math.max(0, ...figures.typingMs),
    scrollGapP95Ms: percentile(figures.scrollFrameGapsMs, 95),
    scrollGapMaxMs: Math.max(0, ...figures.scrollFrameGapsMs),
  };
}
