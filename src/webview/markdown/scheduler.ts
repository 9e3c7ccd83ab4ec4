import { domWindow } from '../dom';

/** Timers and a monotonic clock (the window's; tests drive fake ones). */
export interface MarkdownScheduler {
  now(): number;
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(handle: number): void;
  /** A key or click waits for this page (Chromium's `isInputPending`; false where there is none). */
  inputPending(): boolean;
  /** Runs `callback` once the page is idle, `timeoutMs` at the latest (`requestIdleCallback`). */
  whenIdle(callback: () => void, timeoutMs: number): number;
  cancelIdle(handle: number): void;
}

/** Chromium's `navigator.scheduling` (not in TypeScript's DOM types). */
interface Scheduling {
  readonly scheduling?: { isInputPending?(): boolean };
}

export const defaultScheduler = (): MarkdownScheduler => {
  const win = domWindow();
  const idle: Partial<Pick<Window, 'requestIdleCallback' | 'cancelIdleCallback'>> = win;
  return {
    now: () => win.performance.now(),
    setTimeout: (cb, ms) => win.setTimeout(cb, ms),
    clearTimeout: (h) => win.clearTimeout(h),
    inputPending: () => !!(win.navigator as Navigator & Scheduling).scheduling?.isInputPending?.(),
    // A timer where the page has no idle callbacks (jsdom).
    whenIdle: (cb, ms) => idle.requestIdleCallback?.(cb, { timeout: ms }) ?? win.setTimeout(cb, 0),
    cancelIdle: (h) => (idle.cancelIdleCallback === undefined ? win.clearTimeout(h) : idle.cancelIdleCallback(h)),
  };
};
