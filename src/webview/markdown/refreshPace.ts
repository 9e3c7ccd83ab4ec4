import type { StreamSource } from './streamSource';
import { maxRefreshMs, maxTailWaitMs, minRefreshMs, pagedRefreshMs, refreshMsPerChar, smallTailChars } from './viewLimits';

/**
 * When a streaming Markdown view may render its tail again (the limits: viewLimits.ts). The
 * interval follows the rate the text arrived at since the last render; a big tail also waits
 * until it grew by a quarter, so re-rendering it costs a bounded multiple of its size.
 */
export class RefreshPace {
  #tailSizeAtRender = 0;
  #sourceLenAtRender = 0;
  #lastTailAt = -Infinity;
  #refreshMs = minRefreshMs;

  /**
   * Milliseconds until the next streaming render may touch the DOM (0: now), `share` of the
   * interval after the last; `fenceOpen`: the tail is an open fence, which grows by its new text.
   */
  dueIn(now: number, text: StreamSource, fenceOpen: boolean, share: number): number {
    const since = now - this.#lastTailAt;
    const interval = pagedRefreshMs(this.#refreshMs);
    if (since < interval * share) {
      return interval - since;
    }
    // Appending to an open fence costs only the new text; re-rendering a big tail costs its size.
    if (fenceOpen || text.open.length <= smallTailChars || since >= maxTailWaitMs) {
      return 0;
    }
    return (text.length - this.#sourceLenAtRender) * 4 >= this.#tailSizeAtRender ? 0 : maxTailWaitMs - since;
  }

  /** The view showed `text` at `now`: the rate it arrived at since the last render sets the next interval. */
  rendered(now: number, text: StreamSource): void {
    const charsPerSecond = ((text.length - this.#sourceLenAtRender) * 1000) / Math.max(1, now - this.#lastTailAt);
    this.#refreshMs = Math.min(maxRefreshMs, Math.max(minRefreshMs, Math.round(charsPerSecond * refreshMsPerChar)));
    this.#tailSizeAtRender = text.open.length;
    this.#sourceLenAtRender = text.length;
    this.#lastTailAt = now;
  }
}
