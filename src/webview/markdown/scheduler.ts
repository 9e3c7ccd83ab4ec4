import { domWindow } from '../dom';

/**
 * Timers and a monotonic clock (tests drive fake ones). The window's clock counts from the epoch
 * (`timeOrigin + now()`), which every document shares: chats side by side beat together (ticker.ts).
 */
export interface MarkdownScheduler {
  now(): number;
  setTimeout(callback: () => void, ms: number): number;
  clearTimeout(handle: number): void;
}

export const defaultScheduler = (): MarkdownScheduler => {
  const win = domWindow();
  const clock = win.performance;
  return {
    now: () => clock.timeOrigin + clock.now(),
    setTimeout: (cb, ms) => win.setTimeout(cb, ms),
    clearTimeout: (h) => win.clearTimeout(h),
  };
};
