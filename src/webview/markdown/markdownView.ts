import type { Links, Token, Tokens } from 'marked';
import { doc } from '../dom';
import { BackFill } from './backFill';
import { guardedLex, isRendered, linksChanged, splitTail } from './blockLexer';
import { OpenFence } from './openFence';
import { StreamSource } from './streamSource';
import { placeWithinBudget } from './taskBudget';
import { patchTail, renderBlocks } from './renderBlocks';
import type { MarkdownScheduler } from './scheduler';
import { RefreshPace } from './refreshPace';
import { endFirstChars, groupSize, isFollowingEnd, isPageFocused, maxSourceChars, pieceChars } from './viewLimits';

/**
 * How much a render does. `stream`: a paced streaming update; an open fence stays open. `final`:
 * everything, fences closed and highlighted, link definitions final (a one-shot render), in this
 * task. `end`: the same for a turn's end in the chat with the keyboard, in this task unless a key
 * comes to wait (the rest then in the next). `finish`: the same end, its finished blocks placed within
 * the task budget like a stream's — a turn's end in a chat without the keyboard, so that it never
 * holds the keys of the chat the user types in (see `flush`). All but `final` stop when a key waits.
 */
type Pass = 'stream' | 'final' | 'end' | 'finish';

/**
 * A block of Markdown that can grow: a streamed message is a list of finished blocks plus one
 * open tail. `set()` takes the whole text each time, `append()` the text and what was appended;
 * when the old text is a prefix of the new one, only the tail — the text from the start of the
 * last unfinished block — is lexed again. Blocks that a later block proved finished are rendered,
 * sanitized and appended once and never touched again (a late link reference definition is the one
 * exception: it re-renders the message). An open code fence at the tail grows as plain text and is
 * highlighted when it closes.
 */
export class MarkdownView {
  readonly element: HTMLElement;
  #raw = '';
  /** The text from the start of the open tail on. */
  readonly #text = new StreamSource();
  /** Rendered top-level blocks before the open tail. */
  #placed = 0;
  #groups: HTMLElement[] = [];
  #tail: Node[] = [];
  /**
   * Finished blocks lexed but not yet placed (they start the open text): the next task places them
   * without lexing them again. Dropped by any other render (which lexes the open text again).
   */
  #backlog: Token[] = [];
  #fence: OpenFence | undefined;
  /** Past the limits, the text after the placed blocks grows as one text node. */
  #plain: Text | undefined;
  #links: Links = {};
  /** Whether the last render was final (nothing left for `flush`). */
  #finalized = true;
  #refresh = new RefreshPace();
  #timer: number | undefined;
  readonly #scheduler: MarkdownScheduler;
  /** Finished blocks of a turn's end rendered from the end back (see `#finishFromEnd`). */
  readonly #backFill: BackFill;

  constructor(scheduler: MarkdownScheduler, className = 'markdown') {
    this.#scheduler = scheduler;
    this.#backFill = new BackFill(scheduler);
    this.element = doc().createElement('div');
    this.element.className = className;
  }

  /**
   * Shows `text`. `appendOnly` promises that the previous text is a prefix of it (the streaming
   * case: no comparison needed). `final` renders everything now instead of pacing the tail.
   */
  set(text: string, appendOnly = false, final = false): void {
    if (text === this.#raw && !final) {
      return;
    }
    if ((appendOnly && text.length >= this.#raw.length) || text.startsWith(this.#raw)) {
      this.#text.append(text.slice(this.#raw.length));
    } else {
      this.#reset();
      this.#text.append(text);
    }
    this.#raw = text;
    if (final) {
      this.#render('final');
    } else {
      this.#pace();
    }
  }

  /**
   * The streaming case with the new text at hand: `text` is the text shown so far followed by
   * `chunk`. Unlike `set(text, true)` it never reads `text`, a string built by appending: slicing
   * it would make V8 copy it whole, once per patch (quadratic over a long reply).
   */
  append(text: string, chunk: string): void {
    if (text.length !== this.#raw.length + chunk.length) {
      this.set(text); // not what was shown plus the chunk: compared, and shown whole if it differs
    } else if (chunk !== '') {
      this.#text.append(chunk);
      this.#raw = text;
      this.#pace();
    }
  }

  /**
   * Renders whatever is paced, open or not yet final, for good (the turn ended): in the chat with
   * the keyboard at once (unless a key waits), in another a budgeted task at a time — eight chats
   * ending a burst each placed up to 80 KB in one task (127–218 ms of CPU in a P9 trace), and the
   * keys typed in the focused one waited. Following the reply, the end comes first (`#finishFromEnd`).
   */
  flush(): void {
    if (isPageFocused() && this.#backFill.busy) {
      this.#backFill.hurry();
    }
    if (!this.#finalized || this.#timer !== undefined || this.#fence !== undefined) {
      if (!isFollowingEnd() || !this.#finishFromEnd()) {
        this.#render(isPageFocused() ? 'end' : 'finish');
      }
    }
  }

  dispose(): void {
    this.#cancelTimer();
    this.#backFill.dispose();
  }

  /**
   * A turn's end in a chat that follows its reply, much held back: the open tail now, the blocks from
   * the end back (`BackFill`; with the keyboard all now unless a key waits). False where it does not
   * apply: little held or over 128 KB (lexed whole), plain text, a lex refused, a new link definition.
   */
  #finishFromEnd(): boolean {
    const text = this.#text.open;
    if (this.#plain !== undefined || text.length < endFirstChars || text.length > endFirstChars * 8 || this.#text.length > maxSourceChars) {
      return false;
    }
    const lexed = guardedLex(text, this.#links, this.#scheduler);
    if (lexed === undefined || linksChanged(this.#links, lexed.links)) {
      return false;
    }
    const split = splitTail(lexed.tokens, text);
    this.#cancelTimer();
    this.#removeTail();
    this.#fence = undefined;
    this.#finalized = true;
    this.#backFill.reserve(split.finished.filter(isRendered), (slot) => this.#place(slot, this.#placed++));
    this.#text.drop(split.consumed);
    this.#showTail(split.open);
    this.#backFill.start(isPageFocused());
    return true;
  }

  #reset(): void {
    this.#cancelTimer();
    this.#backFill.dispose();
    this.element.replaceChildren();
    this.#raw = '';
    this.#text.clear();
    this.#placed = 0;
    this.#groups = [];
    this.#tail = [];
    this.#fence = undefined;
    this.#plain = undefined;
    this.#links = {};
    this.#finalized = true;
    this.#refresh = new RefreshPace();
  }

  /**
   * A streaming update: renders now when due, else when it will be (one timer, which then owns the
   * next render). The timer may run up to a tenth of the interval early or a quarter late, to share
   * a frame with the page's beat (src/webview/ticker.ts): it then renders rather than wait again.
   */
  #pace(onTimer = false): void {
    if (this.#timer !== undefined) {
      return;
    }
    const wait = this.#refresh.dueIn(this.#scheduler.now(), this.#text, this.#fence !== undefined, onTimer ? 0.9 : 1);
    if (wait < 1) {
      this.#render('stream');
    } else {
      this.#timer = this.#scheduler.setTimeout(() => {
        this.#timer = undefined;
        this.#pace(true);
      }, wait);
    }
  }

  #render(pass: Pass): void {
    this.#cancelTimer();
    if (this.#plain !== undefined) {
      this.#plain.appendData(this.#text.open);
      this.#text.drop(this.#text.open.length);
      return;
    }
    if (this.#text.length > maxSourceChars) {
      this.#enterPlain();
      return;
    }
    this.#finalized = pass !== 'stream';
    if (this.#fence !== undefined) {
      if (pass === 'stream' && this.#fence.advance(this.#text.open)) {
        this.#rendered();
        return;
      }
      this.#fence = undefined; // closed (or final): render it as a code block
    }
    this.#renderTail(pass);
  }

  #rendered(): void {
    this.#refresh.rendered(this.#scheduler.now(), this.#text);
  }

  #renderTail(pass: Pass): void {
    // A long text shown at once (a snapshot, a turn's end after a paced stream) is lexed a piece
    // at a time: no lex covers more than a piece (plus the block open at its end), so the
    // `maxLexMs` guard keeps meaning "hostile input", not "long message".
    let piece = pieceChars;
    while (this.#text.open.length > piece) {
      const before = this.#text.dropped;
      if (!this.#lexAndPlace(pass, piece, false)) {
        return;
      }
      piece = this.#text.dropped === before ? piece * 2 : pieceChars;
    }
    this.#lexAndPlace(pass, this.#text.open.length, true);
  }

  /**
   * Lexes the open text (from the start of the open tail) to `end`, places the blocks a later one
   * proved finished, and (`withTail`) shows the rest as the open tail. False when it stopped:
   * the text went plain, or a late link definition re-rendered everything.
   */
  #lexAndPlace(pass: Pass, end: number, withTail: boolean): boolean {
    const tailText = this.#text.open.slice(0, end);
    const lexed = guardedLex(tailText, this.#links, this.#scheduler);
    if (lexed === undefined) {
      this.#enterPlain();
      return false;
    }
    const split = splitTail(lexed.tokens, tailText);
    // A link reference definition can change blocks rendered before it. The tail resolves its own
    // references; rendered blocks are redone once a definition is final (or the text is).
    const defsFinal = (withTail && pass !== 'stream') || split.finished.some((tk) => tk.type === 'def');
    if (defsFinal) {
      if (this.#text.dropped > 0 && linksChanged(this.#links, lexed.links)) {
        this.#links = { ...lexed.links };
        this.#rebuild();
        return false;
      }
      this.#links = { ...lexed.links };
    }
    const open = split.open[0];
    const fenceNext = pass === 'stream' && open?.type === 'code' && (open as Tokens.Code).codeBlockStyle !== 'indented';
    if (withTail && split.finished.length === 0 && !fenceNext && patchTail(this.#tail, split.open)) {
      this.#rendered();
      return true;
    }
    if (withTail || split.finished.length > 0) {
      this.#removeTail();
    }
    if (split.finished.length > 0) {
      // While streaming (or finishing in a chat without the keyboard), one task renders finished
      // blocks within a budget (a refresh after a busy second, a running reply shown from a
      // snapshot, a turn's end after the text was held); the rest follows in the next task, so
      // none holds the page (or, in code-server, the workbench) for long.
      if (pass === 'final') {
        this.#placeFinished(split.finished);
      } else if (this.#placeBudgeted(split.finished, pass).length > 0) {
        return false;
      }
    }
    if (!withTail || (fenceNext && this.#openFence())) {
      return true;
    }
    this.#showTail(split.open);
    return true;
  }

  /** Shows the open tail's blocks after those placed. */
  #showTail(open: readonly Token[]): void {
    for (const { node, ordinal } of renderBlocks(open)) {
      this.#place(node, this.#placed + ordinal);
      this.#tail.push(node);
    }
    this.#rendered();
  }

  /** Renders finished blocks (sanitized) after those placed, once; the open tail starts after them. */
  #placeFinished(finished: readonly Token[]): void {
    for (const { node, ordinal } of renderBlocks(finished)) {
      this.#place(node, this.#placed + ordinal);
    }
    this.#placed += finished.filter(isRendered).length;
    this.#text.drop(finished.reduce((n, tk) => n + tk.raw.length, 0));
  }

  /**
   * Places finished blocks within this task's budget (`end`: all of them), and none after a key
   * came to wait: a turn's end rendered at once in the chat the user types in (80 KB after a
   * burst, 99 ms of CPU in a P9 trace) held a key for 192 ms. What is left goes on in the next tasks.
   */
  #placeBudgeted(finished: Token[], pass: Exclude<Pass, 'final'>): Token[] {
    const rest = placeWithinBudget(finished, (batch) => this.#placeFinished(batch), this.#scheduler, pass === 'end');
    if (rest.length > 0) {
      this.#continueWith(rest, pass);
    }
    return rest;
  }

  /** Places `backlog` in the next tasks (within the budget each), then renders the tail (`pass`). */
  #continueWith(backlog: Token[], pass: Exclude<Pass, 'final'>): void {
    this.#backlog = backlog;
    this.#timer = this.#scheduler.setTimeout(() => {
      this.#timer = undefined;
      const next = this.#backlog;
      this.#backlog = [];
      if (this.#placeBudgeted(next, pass).length === 0) {
        this.#render(pass);
      }
    }, 0);
  }

  /** Shows the open fence at the tail as growing text; false when its opening line is not complete. */
  #openFence(): boolean {
    const fence = OpenFence.at(this.#text.open, 0);
    if (fence === undefined) {
      return false;
    }
    this.#fence = fence;
    this.#place(fence.element, this.#placed);
    this.#tail = [fence.element];
    if (!fence.advance(this.#text.open)) {
      // Closed already (cannot happen for a token the lexer left open, but stay correct).
      this.#removeTail();
      this.#fence = undefined;
      this.#renderTail('final');
      return true;
    }
    this.#rendered();
    return true;
  }

  /** Puts a block into its group (groupSize blocks each), creating the group when needed. */
  #place(node: Node, ordinal: number): void {
    const index = Math.floor(ordinal / groupSize);
    while (this.#groups.length <= index) {
      const group = doc().createElement('div');
      group.className = 'md-group';
      this.element.appendChild(group);
      this.#groups.push(group);
    }
    this.#groups[index]?.appendChild(node);
  }

  #removeTail(): void {
    for (const node of this.#tail) {
      node.parentNode?.removeChild(node);
    }
    this.#tail = [];
  }

  #rebuild(): void {
    const text = this.#raw;
    const links = this.#links;
    this.#reset();
    this.#links = links;
    this.#text.append(text);
    this.#raw = text;
    this.#render('final');
  }

  #enterPlain(): void {
    this.#cancelTimer();
    this.#removeTail();
    this.#fence = undefined;
    this.#finalized = true;
    const box = doc().createElement('div');
    box.className = 'md-plain';
    const node = doc().createTextNode(this.#text.open);
    box.appendChild(node);
    this.#place(box, this.#placed);
    this.#tail = [box];
    this.#plain = node;
    this.#text.drop(this.#text.open.length);
  }

  #cancelTimer(): void {
    this.#backlog = [];
    if (this.#timer !== undefined) {
      this.#scheduler.clearTimeout(this.#timer);
      this.#timer = undefined;
    }
  }
}

/** Renders complete Markdown once (user messages, tool output). */
export function renderMarkdown(text: string, scheduler: MarkdownScheduler, className = 'markdown'): HTMLElement {
  const view = new MarkdownView(scheduler, className);
  view.set(text, false, true);
  return view.element;
}
