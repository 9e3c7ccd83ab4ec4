import { domWindow } from '../dom';

/** Timers and a monotonic clock (the window's; tests drive fake ones). */
export interface MarkdownScheduler {
  now(): number;
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(handle: number): void;
}

export const defaultScheduler = (): MarkdownScheduler => {
  const win = domWindow();
  return {
    now: () => win.performance.now(),
    setTimeout: (cb, ms) => win.setTimeout(cb, ms),
    clearTimeout: (h) => win.clearTimeout(h),
  };
};
