import type { Links, Tokens } from 'marked';
import { doc, domWindow } from '../dom';
import { firstBlocksWithin, isRendered, lex, type Lexed, linksChanged, looksHostile, splitTail } from './blockLexer';
import { OpenFence } from './openFence';
import { renderBlocks, sameShell } from './renderBlocks';
import type { MarkdownScheduler } from './scheduler';

/** Past these sizes (or a slow lex), the rest of a message is shown as plain text. */
const maxSourceChars = 1_000_000;
const maxLexMs = 250;
/** Unrendered text past this is lexed in pieces of this size (see renderTail). */
const pieceChars = 32_768;
/** Finished blocks one streaming task renders at most (source characters; at least one block). */
const finishedCharsPerTask = 8_192;
/**
 * Pacing of the tail while text streams: patches only append to the source, and the tail is
 * rendered on a timer, at most once per refresh interval. A refresh costs little script (the
 * tail is one block) but a frame or two (style, layout, paint, compositing, the scroll that keeps
 * the view at the bottom: ~1–2 ms on a fast machine, 10–20 ms in software-rendered Chromium on a
 * loaded 2-core VM). The interval is `minRefreshMs` (10 refreshes a second) while text arrives at
 * up to 400 characters a second — what fast models write — and grows with the rate beyond
 * (`refreshMsPerChar` per character a second: 4 refreshes a second at 1,000, 1 at 4,000 and
 * more): text that arrives faster than anyone reads is shown in larger steps, and a stream at
 * any rate costs a bounded number of frames.
 */
const minRefreshMs = 100;
const maxRefreshMs = 1_000;
const refreshMsPerChar = 0.25;
/**
 * A tail larger than `smallTailChars` also waits until it grew by a quarter (or `maxTailWaitMs`
 * passed), so a huge last block (a long table) costs a bounded multiple of its size, not
 * size × refreshes.
 */
const smallTailChars = 2_000;
const maxTailWaitMs = 1_000;
/**
 * Top-level blocks per group element. A message's blocks sit in groups of this many, so appending
 * to a long message relayouts one group and the list of groups, not every block (layout cost
 * grew with the message length otherwise).
 */
const groupSize = 20;

/**
 * How much a render does. `stream`: a paced streaming update; an open fence stays open.
 * `final`: everything, fences closed and highlighted, link definitions final (the turn ended, or
 * a one-shot render).
 */
type Pass = 'stream' | 'final';

/**
 * A block of Markdown that can grow: a streamed message is a list of finished blocks plus one
 * open tail. `set()` takes the whole text each time; when the old text is a prefix of the new
 * one, only the tail — the text from the start of the last unfinished block — is lexed again.
 * Blocks that a later block proved finished are rendered, sanitized and appended once and never
 * touched again (a late link reference definition is the one exception: it re-renders the
 * message). An open code fence at the tail grows as plain text and is highlighted when it closes.
 */
export class MarkdownView {
  readonly element: HTMLElement;
  private raw = '';
  private source = '';
  private pendingCR = false;
  /** Where the open tail starts in `source`. */
  private stableEnd = 0;
  /** Rendered top-level blocks before `stableEnd`. */
  private placed = 0;
  private groups: HTMLElement[] = [];
  private tail: Node[] = [];
  private fence: OpenFence | undefined;
  private plain: { node: Text; end: number } | undefined;
  private links: Links = {};
  /** Whether the last render was final (nothing left for `flush`). */
  private finalized = true;
  private tailSizeAtRender = 0;
  private sourceLenAtRender = 0;
  private lastTailAt = -Infinity;
  private timer: number | undefined;
  private refreshMs = minRefreshMs;

  constructor(
    private readonly scheduler: MarkdownScheduler,
    className = 'markdown',
  ) {
    this.element = doc().createElement('div');
    this.element.className = className;
  }

  /**
   * Shows `text`. `appendOnly` promises that the previous text is a prefix of it (the streaming
   * case: no comparison needed). `final` renders everything now instead of pacing the tail.
   */
  set(text: string, appendOnly = false, final = false): void {
    if (text === this.raw && !final) {
      return;
    }
    if ((appendOnly && text.length >= this.raw.length) || text.startsWith(this.raw)) {
      this.appendSource(text.slice(this.raw.length));
    } else {
      this.reset();
      this.appendSource(text);
    }
    this.raw = text;
    if (final) {
      this.render('final');
    } else {
      this.pace();
    }
  }

  /** Renders whatever is paced, open or not yet final, for good (the turn ended). */
  flush(): void {
    if (!this.finalized || this.timer !== undefined || this.fence !== undefined) {
      this.render('final');
    }
  }

  dispose(): void {
    this.cancelTimer();
  }

  private appendSource(chunk: string): void {
    if (chunk === '') {
      return;
    }
    let c = chunk;
    if (this.pendingCR && c.startsWith('\n')) {
      c = c.slice(1);
    }
    this.pendingCR = chunk.endsWith('\r');
    this.source += c.includes('\r') ? c.replace(/\r\n?/g, '\n') : c;
  }

  private reset(): void {
    this.cancelTimer();
    this.element.replaceChildren();
    this.raw = '';
    this.source = '';
    this.pendingCR = false;
    this.stableEnd = 0;
    this.placed = 0;
    this.groups = [];
    this.tail = [];
    this.fence = undefined;
    this.plain = undefined;
    this.links = {};
    this.finalized = true;
    this.tailSizeAtRender = 0;
    this.sourceLenAtRender = 0;
    this.lastTailAt = -Infinity;
    this.refreshMs = minRefreshMs;
  }

  /** A streaming update: renders now when due, else when it will be (one timer). */
  private pace(): void {
    const wait = this.dueIn();
    if (wait < 1) {
      this.render('stream');
    } else if (this.timer === undefined) {
      this.timer = this.scheduler.setTimeout(() => {
        this.timer = undefined;
        this.pace();
      }, wait);
    }
  }

  /** Milliseconds until the next streaming render may touch the DOM (pacing; 0: now). */
  private dueIn(): number {
    const since = this.scheduler.now() - this.lastTailAt;
    if (since < this.refreshMs) {
      return this.refreshMs - since;
    }
    // Appending to an open fence costs only the new text; re-rendering a big tail costs its size.
    const tail = this.source.length - this.stableEnd;
    if (this.fence !== undefined || tail <= smallTailChars || since >= maxTailWaitMs) {
      return 0;
    }
    return (this.source.length - this.sourceLenAtRender) * 4 >= this.tailSizeAtRender ? 0 : maxTailWaitMs - since;
  }

  private render(pass: Pass): void {
    this.cancelTimer();
    if (this.plain !== undefined) {
      this.plain.node.appendData(this.source.slice(this.plain.end));
      this.plain.end = this.source.length;
      return;
    }
    if (this.source.length > maxSourceChars) {
      this.enterPlain();
      return;
    }
    this.finalized = pass === 'final';
    if (this.fence !== undefined) {
      if (pass !== 'final' && this.fence.advance(this.source)) {
        this.rendered();
        return;
      }
      this.fence = undefined; // closed (or final): render it as a code block
    }
    this.renderTail(pass);
  }

  private rendered(): void {
    const now = this.scheduler.now();
    const charsPerSecond = ((this.source.length - this.sourceLenAtRender) * 1000) / Math.max(1, now - this.lastTailAt);
    this.refreshMs = Math.min(maxRefreshMs, Math.max(minRefreshMs, Math.round(charsPerSecond * refreshMsPerChar)));
    this.tailSizeAtRender = this.source.length - this.stableEnd;
    this.sourceLenAtRender = this.source.length;
    this.lastTailAt = now;
  }

  private renderTail(pass: Pass): void {
    // A long text shown at once (a snapshot, a turn's end after a paced stream) is lexed a piece
    // at a time: no lex covers more than a piece (plus the block open at its end), so the
    // `maxLexMs` guard keeps meaning "hostile input", not "long message".
    let piece = pieceChars;
    while (this.source.length - this.stableEnd > piece) {
      const before = this.stableEnd;
      if (!this.lexAndPlace(pass, this.stableEnd + piece, false)) {
        return;
      }
      piece = this.stableEnd === before ? piece * 2 : pieceChars;
    }
    this.lexAndPlace(pass, this.source.length, true);
  }

  /**
   * Lexes the source from the start of the open tail to `end`, places the blocks a later one
   * proved finished, and (`withTail`) shows the rest as the open tail. False when it stopped:
   * the text went plain, or a late link definition re-rendered everything.
   */
  private lexAndPlace(pass: Pass, end: number, withTail: boolean): boolean {
    const tailText = this.source.slice(this.stableEnd, end);
    const lexed = this.lexTail(tailText);
    if (lexed === undefined) {
      this.enterPlain();
      return false;
    }
    const split = splitTail(lexed.tokens, tailText);
    // A link reference definition can change blocks rendered before it. The tail resolves its own
    // references; rendered blocks are redone once a definition is final (or the text is).
    const defsFinal = (withTail && pass === 'final') || split.finished.some((tk) => tk.type === 'def');
    if (defsFinal) {
      if (this.stableEnd > 0 && linksChanged(this.links, lexed.links)) {
        this.links = { ...lexed.links };
        this.rebuild();
        return false;
      }
      this.links = { ...lexed.links };
    }
    const open = split.open[0];
    const fenceNext = pass !== 'final' && open?.type === 'code' && (open as Tokens.Code).codeBlockStyle !== 'indented';
    if (withTail && split.finished.length === 0 && !fenceNext && this.patchTail(split.open)) {
      return true;
    }
    if (withTail || split.finished.length > 0) {
      this.removeTail();
    }
    if (split.finished.length > 0) {
      // While streaming, one task renders at most `finishedCharsPerTask` of finished blocks (a
      // refresh after a busy second, a running reply shown from a snapshot); the rest follows in
      // the next task, so none holds the page (or, in code-server, the workbench) for long.
      const finished = pass === 'stream' ? firstBlocksWithin(split.finished, finishedCharsPerTask) : split.finished;
      for (const { node, ordinal } of renderBlocks(finished)) {
        this.place(node, this.placed + ordinal);
      }
      this.placed += finished.filter(isRendered).length;
      this.stableEnd += finished === split.finished ? split.consumed : finished.reduce((n, tk) => n + tk.raw.length, 0);
      if (finished !== split.finished) {
        this.timer = this.scheduler.setTimeout(() => {
          this.timer = undefined;
          this.render('stream');
        }, 0);
        return false;
      }
    }
    if (!withTail || (fenceNext && this.openFence())) {
      return true;
    }
    for (const { node, ordinal } of renderBlocks(split.open)) {
      this.place(node, this.placed + ordinal);
      this.tail.push(node);
    }
    this.rendered();
    return true;
  }

  private lexTail(tailText: string): Lexed | undefined {
    if (looksHostile(tailText)) {
      return undefined;
    }
    const started = this.scheduler.now();
    try {
      const lexed = lex(tailText, this.links);
      return this.scheduler.now() - started > maxLexMs ? undefined : lexed;
    } catch {
      return undefined;
    }
  }

  /**
   * The common streaming case: the same last block, a little longer. Its element stays in place
   * and only its content is swapped, so the browser relayouts one block instead of replacing it.
   */
  private patchTail(open: Parameters<typeof renderBlocks>[0]): boolean {
    const old = this.tail[0];
    if (this.tail.length !== 1 || !(old instanceof domWindow().Element)) {
      return false;
    }
    const rendered = renderBlocks(open);
    const fresh = rendered[0]?.node;
    if (rendered.length !== 1 || !(fresh instanceof domWindow().Element) || !sameShell(old, fresh)) {
      return false;
    }
    old.replaceChildren(...Array.from(fresh.childNodes));
    this.rendered();
    return true;
  }

  /** Shows the open fence at the tail as growing text; false when its opening line is not complete. */
  private openFence(): boolean {
    const fence = OpenFence.at(this.source, this.stableEnd);
    if (fence === undefined) {
      return false;
    }
    this.fence = fence;
    this.place(fence.element, this.placed);
    this.tail = [fence.element];
    if (!fence.advance(this.source)) {
      // Closed already (cannot happen for a token the lexer left open, but stay correct).
      this.removeTail();
      this.fence = undefined;
      this.renderTail('final');
      return true;
    }
    this.rendered();
    return true;
  }

  /** Puts a block into its group (groupSize blocks each), creating the group when needed. */
  private place(node: Node, ordinal: number): void {
    const index = Math.floor(ordinal / groupSize);
    while (this.groups.length <= index) {
      const group = doc().createElement('div');
      group.className = 'md-group';
      this.element.appendChild(group);
      this.groups.push(group);
    }
    this.groups[index]?.appendChild(node);
  }

  private removeTail(): void {
    for (const node of this.tail) {
      node.parentNode?.removeChild(node);
    }
    this.tail = [];
  }

  private rebuild(): void {
    const text = this.raw;
    const links = this.links;
    this.reset();
    this.links = links;
    this.appendSource(text);
    this.raw = text;
    this.render('final');
  }

  private enterPlain(): void {
    this.cancelTimer();
    this.removeTail();
    this.fence = undefined;
    this.finalized = true;
    const box = doc().createElement('div');
    box.className = 'md-plain';
    const node = doc().createTextNode(this.source.slice(this.stableEnd));
    box.appendChild(node);
    this.place(box, this.placed);
    this.tail = [box];
    this.plain = { node, end: this.source.length };
  }

  private cancelTimer(): void {
    if (this.timer !== undefined) {
      this.scheduler.clearTimeout(this.timer);
      this.timer = undefined;
    }
  }
}

/** Renders complete Markdown once (user messages, tool output). */
export function renderMarkdown(text: string, scheduler: MarkdownScheduler, className = 'markdown'): HTMLElement {
  const view = new MarkdownView(scheduler, className);
  view.set(text, false, true);
  return view.element;
}
