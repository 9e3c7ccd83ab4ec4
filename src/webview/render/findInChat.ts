import type { OutputBox } from './contentItem';
import type { FindResult } from '../../protocol/webviewProtocol';
import { t } from '../strings';
import { FindBar } from './findBar';

/** Typing pauses this long before the host is asked. */
const queryDelayMs = 150;
const highlightName = 'hermes-find';
/**
 * What a row shows that the host's search does not count (`searchableText`, src/session/viewSearch.ts):
 * a card's status, duration, command and raw input/output, notes and badges, a thought's label, a
 * turn's footer, words for screen readers. The matches find walks are the host's: the n-th one in
 * the row is the n-th the host counted only when this text is left out ("Failed" on a failed card
 * was the first match of "failed", and the output's last match was never reached).
 */
const unsearched = [
  '.status-text', '.tool-duration', '.tool-command', '.tool-raw', '.truncated', '.diff-stats', '.badge',
  '.thought-label', '.turn-end-line', '.failure-hint', '.turn-actions', '.turn-changes', '.notice-log',
  '.notice-actions', '.notice-suggestions', '.permission', '.visually-hidden',
].join(', ');

interface CssHighlights {
  readonly highlights?: { set(name: string, value: unknown): void; delete(name: string): void };
}

/** What find needs of the transcript (the cards chunk gets it from the bundle: only types here). */
export interface FindTarget {
  readonly log: HTMLElement;
  readonly extentOf: { readonly start: number };
  reveal(id: string): Promise<HTMLElement | undefined>;
}

/** Puts in the text of the row's long outputs not put in yet (toolContent.ts): the host counted their matches too. */
function completeOutputs(row: HTMLElement): void {
  row.querySelectorAll<OutputBox>('.tool-output').forEach((box) => box.rest?.());
}

/**
 * Find in the chat (Ctrl+F). The virtualized transcript has only the entries near the view in its
 * DOM, so the host searches the whole conversation (`transcript/find`, over the view model it
 * last sent) and this walks its matches: each one brings its entry into view (fetched if need be),
 * marks the match with a CSS highlight (no DOM change) and scrolls it to the middle. A match the
 * card does not show (a collapsed section) opens it; one that is still not in the text marks its entry.
 */
export class FindInChat {
  readonly #bar: FindBar;
  #result: FindResult | undefined;
  #query = '';
  #current = -1;
  #timer: ReturnType<typeof setTimeout> | undefined;
  #asked = 0;
  #marked: HTMLElement | undefined;
  /** The marked match, and what puts the mark back when the row's text is rendered anew (see `keep`). */
  #held: Range | undefined;
  #keeper: MutationObserver | undefined;

  readonly #doc: Document;
  readonly #transcript: FindTarget;
  readonly #search: (query: string) => Promise<FindResult>;

  constructor(doc: Document, transcript: FindTarget, search: (query: string) => Promise<FindResult>, mount: HTMLElement) {
    this.#doc = doc;
    this.#transcript = transcript;
    this.#search = search;
    this.#bar = new FindBar({ query: (q) => this.#typed(q), step: (d) => void this.#step(d), close: () => this.close() });
    mount.replaceChildren(this.#bar.element);
  }

  open(): void {
    this.#bar.show();
  }

  close(): void {
    this.#bar.hide();
    this.#clearMark();
    this.#result = undefined;
    this.#current = -1;
    this.#bar.setStatus(''); // not "1 of 2" from before when it opens again, until its query is answered
    this.#transcript.log.focus({ preventScroll: true });
  }

  #typed(query: string): void {
    this.#query = query;
    clearTimeout(this.#timer);
    this.#timer = setTimeout(() => void this.#ask(), queryDelayMs);
  }

  async #ask(): Promise<void> {
    const query = this.#query;
    const ask = ++this.#asked;
    this.#clearMark();
    if (query.trim() === '') {
      this.#result = undefined;
      this.#bar.setStatus('');
      return;
    }
    let result: FindResult;
    try {
      result = await this.#search(query);
    } catch (e) {
      this.#bar.setStatus(t('Find failed: {0}', e instanceof Error ? e.message : String(e)));
      return;
    }
    if (ask !== this.#asked) {
      return; // a newer query is on its way
    }
    this.#result = result;
    if (result.total === 0) {
      this.#current = -1;
      this.#bar.setStatus(t('No results'));
      return;
    }
    // The first match from the top of the view down (wrapping around).
    const first = this.#transcript.extentOf.start;
    let n = 0;
    let chosen = -1;
    for (const m of result.matches) {
      if (m.index >= first) {
        chosen = n;
        break;
      }
      n += m.count;
    }
    await this.#go(chosen < 0 ? 0 : chosen);
  }

  async #step(direction: 1 | -1): Promise<void> {
    const total = this.#result?.total ?? 0;
    if (total === 0) {
      if (this.#query.trim() !== '' && this.#result === undefined) {
        await this.#ask();
      }
      return;
    }
    await this.#go((this.#current + direction + total) % total);
  }

  /** Match `n` (0-based, over the whole transcript): its entry in view, the match marked. */
  async #go(n: number): Promise<void> {
    const result = this.#result;
    if (result === undefined) {
      return;
    }
    let k = n;
    const match = result.matches.find((m) => {
      if (k < m.count) {
        return true;
      }
      k -= m.count;
      return false;
    });
    this.#current = n;
    this.#bar.setStatus(t('{0} of {1}', n + 1, result.total));
    if (match === undefined) {
      return;
    }
    const ask = this.#asked;
    const row = await this.#transcript.reveal(match.id);
    const stale = (): boolean => ask !== this.#asked || this.#current !== n;
    if (row === undefined || stale()) {
      return;
    }
    // A long message renders its text a piece per task: give it a few frames to show the match.
    await this.#rangeWithin(row, k, 30, stale);
    if (!stale()) {
      await this.#mark(row, k, stale);
    }
  }

  /** The match's range as soon as the row shows it, looked for each frame up to `frames` frames. */
  async #rangeWithin(row: HTMLElement, occurrence: number, frames: number, stale: () => boolean): Promise<Range | undefined> {
    for (let frame = 0; ; frame++) {
      const range = this.#findRange(row, occurrence);
      if (range !== undefined || frame === frames || !(await this.#frame()) || stale()) {
        return range;
      }
    }
  }

  /** The next frame; false when the page has no window (nothing to wait for). */
  #frame(): Promise<boolean> {
    const win = this.#doc.defaultView;
    return win === null ? Promise.resolve(false) : new Promise((resolve) => win.requestAnimationFrame(() => resolve(true)));
  }

  async #mark(row: HTMLElement, occurrence: number, stale: () => boolean): Promise<void> {
    this.#clearMark();
    completeOutputs(row);
    let range = this.#findRange(row, occurrence);
    if (range === undefined) {
      // In a collapsed section: open thoughts and tool cards, then look again. A thought's text is
      // put in on its `toggle` event, after this task: a few frames.
      for (const d of Array.from(row.querySelectorAll('details.thought:not([open])'))) {
        (d as HTMLDetailsElement).open = true;
      }
      for (const toggle of Array.from(row.querySelectorAll<HTMLElement>('.tool-toggle[aria-expanded="false"]'))) {
        toggle.click();
      }
      completeOutputs(row);
      range = await this.#rangeWithin(row, occurrence, 10, stale);
      if (stale()) {
        return;
      }
    }
    const css = (this.#doc.defaultView as unknown as { CSS?: CssHighlights; Highlight?: new (r: Range) => unknown } | null) ?? undefined;
    if (range !== undefined && css?.CSS?.highlights !== undefined && css.Highlight !== undefined) {
      const { highlights } = css.CSS;
      const Highlight = css.Highlight;
      highlights.set(highlightName, new Highlight(range));
      this.#keep(row, occurrence, range, (r) => highlights.set(highlightName, new Highlight(r)));
      // A Markdown group out of view keeps a 600 px stand-in height until it is shown (content-
      // visibility), and rows near it are still being measured: the first scroll can land short of
      // the match. Scroll again until it has stayed in view for three frames (twenty at most).
      for (let frame = 0, still = 0; frame < 20 && still < 3; frame++) {
        const held = this.#held ?? range;
        this.#scrollBoxesTo(held);
        still = this.#scrollTo(held.getBoundingClientRect()) ? 0 : still + 1;
        if (!(await this.#frame()) || stale()) {
          return;
        }
      }
    } else {
      row.classList.add('find-current');
      this.#marked = row;
      this.#scrollTo(row.getBoundingClientRect());
    }
  }

  /**
   * Keeps the mark on its words while the row changes: a reply that streams on renders its open end
   * anew (an unfinished line of a code fence joins the finished ones, a fence closes and is
   * highlighted), and a range in text that is replaced or removed collapses. Looked at after each
   * batch of changes (before the frame is painted), found again only when it no longer holds them.
   */
  #keep(row: HTMLElement, occurrence: number, range: Range, show: (range: Range) => void): void {
    const win = this.#doc.defaultView;
    if (win === null) {
      return;
    }
    const needle = this.#query.toLowerCase();
    this.#held = range;
    this.#keeper = new win.MutationObserver(() => {
      // (A query being typed is not asked yet: the mark it replaces stays as it is until then.)
      if (this.#held === undefined || this.#held.toString().toLowerCase() === needle || this.#query.toLowerCase() !== needle) {
        return;
      }
      const again = this.#findRange(row, occurrence);
      if (again !== undefined) {
        this.#held = again;
        show(again);
      }
    });
    this.#keeper.observe(row, { subtree: true, childList: true, characterData: true });
  }

  /**
   * Scrolls the boxes between the match and the log (a tool output capped at 320 px scrolls in its
   * own box) to the match: otherwise its place in the box's text, thousands of pixels below the
   * box, scrolled the log past the entry and the virtualized transcript took the entry out.
   */
  #scrollBoxesTo(range: Range): void {
    const log = this.#transcript.log;
    for (let box = range.startContainer.parentElement; box !== null && box !== log; box = box.parentElement) {
      if (box.scrollHeight <= box.clientHeight && box.scrollWidth <= box.clientWidth) {
        continue;
      }
      const rect = range.getBoundingClientRect();
      const view = box.getBoundingClientRect();
      if (rect.top < view.top || rect.bottom > view.bottom) {
        box.scrollTop += rect.top - view.top - box.clientHeight / 3;
      }
      if (rect.left < view.left || rect.right > view.right) {
        box.scrollLeft += rect.left - view.left - box.clientWidth / 3;
      }
    }
  }

  /** Scrolls the log to put `rect` a third of the way down when it is not in view; true if it scrolled. */
  #scrollTo(rect: DOMRect): boolean {
    const log = this.#transcript.log;
    const view = log.getBoundingClientRect();
    if (rect.top >= view.top && rect.bottom <= view.bottom) {
      return false;
    }
    log.scrollTop += rect.top - view.top - view.height / 3;
    return true;
  }

  /**
   * The `occurrence`-th match of the query in the row's text; undefined while the row has fewer (a
   * folded card shows its title, not its output: the title's match is not the output's).
   */
  #findRange(row: HTMLElement, occurrence: number): Range | undefined {
    const needle = this.#query.toLowerCase();
    const win = this.#doc.defaultView;
    if (needle === '' || win === null) {
      return undefined;
    }
    const nodes: { node: Text; start: number }[] = [];
    let text = '';
    const { FILTER_ACCEPT, FILTER_REJECT } = win.NodeFilter;
    const walker = this.#doc.createTreeWalker(row, win.NodeFilter.SHOW_TEXT, {
      acceptNode: (node) => (node.parentElement?.closest(unsearched) ? FILTER_REJECT : FILTER_ACCEPT),
    });
    for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
      nodes.push({ node: node as Text, start: text.length });
      text += (node.textContent ?? '').toLowerCase();
    }
    const found: number[] = [];
    for (let i = text.indexOf(needle); i >= 0 && found.length <= occurrence; i = text.indexOf(needle, i + needle.length)) {
      found.push(i);
    }
    const at = found[occurrence];
    if (at === undefined) {
      return undefined;
    }
    const locate = (offset: number): { node: Text; offset: number } | undefined => {
      let hit: { node: Text; start: number } | undefined;
      for (const n of nodes) {
        if (n.start <= offset) {
          hit = n;
        } else {
          break;
        }
      }
      return hit === undefined ? undefined : { node: hit.node, offset: offset - hit.start };
    };
    const start = locate(at);
    const end = locate(at + needle.length - 1);
    if (start === undefined || end === undefined) {
      return undefined;
    }
    const range = this.#doc.createRange();
    range.setStart(start.node, start.offset);
    range.setEnd(end.node, end.offset + 1);
    return range;
  }

  #clearMark(): void {
    const css = this.#doc.defaultView as unknown as { CSS?: CssHighlights } | null;
    css?.CSS?.highlights?.delete(highlightName);
    this.#keeper?.disconnect();
    this.#keeper = undefined;
    this.#held = undefined;
    this.#marked?.classList.remove('find-current');
    this.#marked = undefined;
  }
}
