import { domWindow } from '../dom';

/** Timers and a monotonic clock (the window's; tests drive fake ones). */
export interface MarkdownScheduler {
  now(): number;
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(handle: number): void;
  /** A key or click waits for this page (Chromium's `isInputPending`; false where there is none). */
  inputPending(): boolean;
}

/** Chromium's `navigator.scheduling` (not in TypeScript's DOM types). */
interface Scheduling {
  readonly scheduling?: { isInputPending?(): boolean };
}

export const defaultScheduler = (): MarkdownScheduler => {
  const win = domWindow();
  return {
    now: () => win.performance.now(),
    setTimeout: (cb, ms) => win.setTimeout(cb, ms),
    clearTimeout: (h) => win.clearTimeout(h),
    inputPending: () => !!(win.navigator as Navigator & Scheduling).scheduling?.isInputPending?.(),
  };
};
