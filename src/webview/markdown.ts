import DOMPurify from 'dompurify';
import { Lexer, type Links, type MarkedToken, type Token, type Tokens } from 'marked';
import { doc, domWindow } from './dom';
import { highlightToHtml, knownLanguage } from './highlight';
import { classifyHref, decodeEntities, isInlineImage } from './links';
import { visibleLabel } from './text';

/**
 * The one Markdown renderer and sanitizer of the webview.
 *
 * Agent text is lexed by marked, and the tokens are turned into DOM nodes here, with
 * `createElement` and `textContent`: agent text never reaches an HTML parser, so raw HTML in it
 * shows as text, links are filtered by scheme (links.ts) and only `data:image/…` images are shown.
 * DOMPurify then sanitizes every rendered block in place with a strict allow-list, as a second
 * line of defence; highlight.js output (an HTML string) goes through DOMPurify too.
 *
 * {@link MarkdownView} renders incrementally while a message streams: text before the last block
 * boundary is final and rendered once; only the last block (the tail) is re-rendered, and an open
 * code fence at the tail grows as plain text until it closes.
 */

/** Deeper structures are shown as their source text. */
const maxDepth = 12;
/** Past these sizes (or a slow lex), the rest of a message is shown as plain text. */
const maxSourceChars = 1_000_000;
const maxLexMs = 250;
/**
 * Pacing of the tail while text streams: at most one tail render per `tailIntervalMs`; a tail
 * larger than `smallTailChars` also waits until it grew by a quarter (or `maxTailWaitMs` passed),
 * so a huge last block (a long table) costs a bounded multiple of its size, not size × chunks.
 */
const tailIntervalMs = 100;
const smallTailChars = 2_000;
const maxTailWaitMs = 1_000;
/** A paced update is rendered after this long without new text. */
const settleDelayMs = 80;
/** Lines per block of a streaming code fence (so a growing fence does not relayout as one block). */
const fenceChunkLines = 200;
/**
 * Top-level blocks per group element. A message's blocks sit in groups of this many, so appending
 * to a long message relayouts one group and the list of groups, not every block (layout cost
 * grew with the message length otherwise).
 */
const groupSize = 20;

const allowedTags = [
  'div', 'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 'del', 'code', 'pre', 'blockquote',
  'ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'input',
];
const allowedAttrs = ['href', 'title', 'alt', 'src', 'class', 'start', 'type', 'checked', 'disabled', 'data-path', 'data-line', 'aria-hidden'];

interface Purifiers {
  readonly tree: ReturnType<typeof DOMPurify>;
  readonly spans: ReturnType<typeof DOMPurify>;
}

const purifiers = new WeakMap<Window, Purifiers>();

function getPurifiers(): Purifiers {
  const win = domWindow();
  let p = purifiers.get(win);
  if (p === undefined) {
    const tree = DOMPurify(win);
    tree.setConfig({
      IN_PLACE: true,
      ALLOWED_TAGS: allowedTags,
      ALLOWED_ATTR: allowedAttrs,
      ALLOW_DATA_ATTR: false,
      ALLOW_ARIA_ATTR: false,
      // href and src: web links, "#" (file links) and, for img only, data: (checked by the hook below).
      ALLOWED_URI_REGEXP: /^(?:https?:|mailto:|#$)/i,
      // Every other allowed attribute would be checked as a URI too.
      ADD_URI_SAFE_ATTR: ['data-path', 'data-line', 'start', 'type', 'checked', 'disabled', 'aria-hidden'],
    });
    tree.addHook('afterSanitizeAttributes', (node) => {
      if (node.nodeName === 'IMG' && !isInlineImage(node.getAttribute('src') ?? '')) {
        node.removeAttribute('src');
      }
      if (node.nodeName === 'INPUT' && node.getAttribute('type') !== 'checkbox') {
        node.setAttribute('type', 'checkbox');
      }
    });
    const spans = DOMPurify(win);
    spans.setConfig({ ALLOWED_TAGS: ['span'], ALLOWED_ATTR: ['class'], RETURN_DOM_FRAGMENT: true });
    p = { tree, spans };
    purifiers.set(win, p);
  }
  return p;
}

/** Sanitizes a rendered block (a detached `div`) in place. */
function sanitizeInPlace(root: HTMLElement): void {
  getPurifiers().tree.sanitize(root, { IN_PLACE: true });
}

function isClosedFence(token: Token): boolean {
  if (token.type !== 'code') {
    return false;
  }
  const code = token as Tokens.Code;
  if (code.codeBlockStyle === 'indented') {
    return false;
  }
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(code.raw);
  if (open?.[1] === undefined) {
    return false;
  }
  const fence = open[1];
  // Closed only when the closing line is complete: "```" at the very end could still become "```x".
  if (!code.raw.endsWith('\n')) {
    return false;
  }
  const lines = code.raw.slice(0, -1).split('\n');
  if (lines.length < 2) {
    return false;
  }
  const last = lines[lines.length - 1] ?? '';
  const m = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(last);
  return m?.[1] !== undefined && m[1].startsWith(fence[0] ?? '`') && m[1].length >= fence.length;
}

/** Builds DOM from marked tokens. Never parses HTML. */
class DomBuilder {
  private readonly d = doc();

  blocks(tokens: readonly Token[], parent: Node, depth: number, loose: boolean): void {
    for (const token of tokens) {
      this.block(token as MarkedToken, parent, depth, loose);
    }
  }

  private block(token: MarkedToken, parent: Node, depth: number, loose: boolean): void {
    if (depth > maxDepth) {
      parent.appendChild(this.d.createTextNode(token.raw));
      return;
    }
    switch (token.type) {
      case 'space':
      case 'def':
        return;
      case 'code':
        parent.appendChild(this.code(token));
        return;
      case 'heading': {
        const h = this.d.createElement(`h${Math.min(6, Math.max(1, token.depth))}`);
        this.inline(token.tokens, h, depth + 1);
        parent.appendChild(h);
        return;
      }
      case 'hr':
        parent.appendChild(this.d.createElement('hr'));
        return;
      case 'blockquote': {
        const q = this.d.createElement('blockquote');
        this.blocks(token.tokens, q, depth + 1, true);
        parent.appendChild(q);
        return;
      }
      case 'list': {
        const list = this.d.createElement(token.ordered ? 'ol' : 'ul');
        if (token.ordered && token.start !== '' && token.start !== 1) {
          list.setAttribute('start', String(token.start));
        }
        for (const item of token.items) {
          const li = this.d.createElement('li');
          if (item.task) {
            li.className = 'task';
          }
          this.blocks(item.tokens, li, depth + 1, item.loose);
          list.appendChild(li);
        }
        parent.appendChild(list);
        return;
      }
      case 'paragraph': {
        const p = this.d.createElement('p');
        this.inline(token.tokens, p, depth + 1);
        parent.appendChild(p);
        return;
      }
      case 'text': {
        // Block-level text: the content of a tight list item (a paragraph in a loose one).
        const target = loose ? this.d.createElement('p') : parent;
        if (token.tokens !== undefined) {
          this.inline(token.tokens, target, depth + 1);
        } else {
          target.appendChild(this.d.createTextNode(decodeEntities(token.text)));
        }
        if (target !== parent) {
          parent.appendChild(target);
        }
        return;
      }
      case 'table':
        parent.appendChild(this.table(token, depth));
        return;
      case 'html': {
        // Raw HTML is shown as the text it is, never inserted as markup.
        const p = this.d.createElement('p');
        p.className = 'md-raw-html';
        p.textContent = token.text.replace(/\n+$/, '');
        parent.appendChild(p);
        return;
      }
      case 'checkbox':
        parent.appendChild(this.checkbox(token.checked));
        return;
      default:
        this.inline([token], parent, depth);
    }
  }

  inline(tokens: readonly Token[] | undefined, parent: Node, depth: number): void {
    if (tokens === undefined) {
      return;
    }
    for (const raw of tokens) {
      const token = raw as MarkedToken;
      if (depth > maxDepth) {
        parent.appendChild(this.d.createTextNode(token.raw));
        continue;
      }
      switch (token.type) {
        case 'text':
          if (token.tokens !== undefined && token.tokens.length > 0) {
            this.inline(token.tokens, parent, depth + 1);
          } else {
            parent.appendChild(this.d.createTextNode(token.escaped === true ? token.text : decodeEntities(token.text)));
          }
          break;
        case 'escape':
          parent.appendChild(this.d.createTextNode(token.text));
          break;
        case 'strong':
        case 'em':
        case 'del': {
          const e = this.d.createElement(token.type);
          this.inline(token.tokens, e, depth + 1);
          parent.appendChild(e);
          break;
        }
        case 'codespan': {
          const c = this.d.createElement('code');
          c.textContent = token.text;
          parent.appendChild(c);
          break;
        }
        case 'br':
          parent.appendChild(this.d.createElement('br'));
          break;
        case 'link':
          parent.appendChild(this.link(token, depth));
          break;
        case 'image':
          parent.appendChild(this.image(token));
          break;
        case 'html':
          parent.appendChild(this.d.createTextNode(token.raw));
          break;
        case 'checkbox':
          parent.appendChild(this.checkbox(token.checked));
          break;
        default:
          parent.appendChild(this.d.createTextNode(token.raw));
      }
    }
  }

  private checkbox(checked: boolean): HTMLInputElement {
    const box = this.d.createElement('input');
    box.setAttribute('type', 'checkbox');
    box.setAttribute('disabled', '');
    if (checked) {
      box.setAttribute('checked', '');
    }
    return box;
  }

  private code(token: Tokens.Code): HTMLElement {
    const pre = this.d.createElement('pre');
    const code = this.d.createElement('code');
    const language = token.codeBlockStyle === 'indented' ? undefined : knownLanguage(token.lang);
    const html = language !== undefined ? highlightToHtml(token.text, language) : undefined;
    if (language !== undefined) {
      code.className = `hljs language-${language}`;
    }
    if (html !== undefined) {
      code.appendChild(getPurifiers().spans.sanitize(html, { RETURN_DOM_FRAGMENT: true }));
    } else {
      code.textContent = token.text;
    }
    pre.appendChild(code);
    return pre;
  }

  private table(token: Tokens.Table, depth: number): HTMLElement {
    const wrap = this.d.createElement('div');
    wrap.className = 'md-table';
    const table = this.d.createElement('table');
    const head = this.d.createElement('thead');
    const headRow = this.d.createElement('tr');
    for (const cell of token.header) {
      headRow.appendChild(this.cell('th', cell, depth));
    }
    head.appendChild(headRow);
    table.appendChild(head);
    if (token.rows.length > 0) {
      const body = this.d.createElement('tbody');
      for (const row of token.rows) {
        const tr = this.d.createElement('tr');
        for (const cell of row) {
          tr.appendChild(this.cell('td', cell, depth));
        }
        body.appendChild(tr);
      }
      table.appendChild(body);
    }
    wrap.appendChild(table);
    return wrap;
  }

  private cell(tag: 'th' | 'td', cell: Tokens.TableCell, depth: number): HTMLElement {
    const c = this.d.createElement(tag);
    if (cell.align !== null) {
      c.className = `align-${cell.align}`;
    }
    this.inline(cell.tokens, c, depth + 1);
    return c;
  }

  private link(token: Tokens.Link, depth: number): HTMLElement {
    const target = classifyHref(token.href);
    if (target.kind === 'web') {
      const a = this.d.createElement('a');
      a.setAttribute('href', target.href);
      a.setAttribute('title', token.title !== undefined && token.title !== null && token.title !== '' ? decodeEntities(token.title) : visibleLabel(target.href));
      this.inline(token.tokens, a, depth + 1);
      return a;
    }
    if (target.kind === 'file') {
      const a = this.d.createElement('a');
      a.setAttribute('href', '#');
      a.className = 'file-link';
      a.setAttribute('data-path', target.path);
      if (target.line !== undefined) {
        a.setAttribute('data-line', String(target.line));
      }
      a.setAttribute('title', visibleLabel(target.line !== undefined ? `${target.path}:${target.line}` : target.path));
      this.inline(token.tokens, a, depth + 1);
      return a;
    }
    const span = this.d.createElement('span');
    span.className = 'md-blocked-link';
    this.inline(token.tokens, span, depth + 1);
    return span;
  }

  private image(token: Tokens.Image): HTMLElement {
    const alt = decodeEntities(token.text);
    if (isInlineImage(token.href)) {
      const img = this.d.createElement('img');
      img.setAttribute('src', token.href);
      img.setAttribute('alt', alt);
      img.className = 'md-image';
      return img;
    }
    // Remote images are not loaded (CSP and privacy): they become links.
    const target = classifyHref(token.href);
    const label = alt !== '' ? alt : token.href;
    if (target.kind === 'web') {
      const a = this.d.createElement('a');
      a.setAttribute('href', target.href);
      a.setAttribute('title', visibleLabel(target.href));
      a.textContent = label;
      return a;
    }
    const span = this.d.createElement('span');
    span.className = 'md-blocked-link';
    span.textContent = label;
    return span;
  }
}

/** Hostile shapes that make a Markdown parser recurse deeply; such text is shown plain. */
function looksHostile(text: string): boolean {
  return (
    /(?:^|\n)(?:[ \t]*>){16}/.test(text) ||
    /(?:^|\n)[ \t]{64,}(?:[-*+]|\d{1,9}[.)])[ \t]/.test(text) ||
    /[[(]{64}/.test(text)
  );
}

function linksChanged(before: Links, after: Links): boolean {
  for (const [key, value] of Object.entries(after)) {
    const old = before[key];
    if (old?.href !== value.href || old.title !== value.title) {
      return true;
    }
  }
  return false;
}

function lex(source: string, links: Links): { tokens: Token[]; links: Links } {
  // `breaks`: a single newline is a line break, as agents mean it in chat (Hermes' `/help` and
  // `/context` answers are line-oriented plain text that would otherwise run together).
  const lexer = new Lexer({ gfm: true, breaks: true });
  for (const [key, value] of Object.entries(links)) {
    lexer.tokens.links[key] = value;
  }
  const tokens = lexer.lex(source);
  return { tokens, links: tokens.links };
}

/** Renders tokens into a sanitized detached container and returns its children. */
const allowedTagSet: ReadonlySet<string> = new Set(allowedTags.map((tag) => tag.toUpperCase()));
const allowedAttrSet: ReadonlySet<string> = new Set(allowedAttrs);

/**
 * The cheap check for transient renders (a streaming tail, replaced within milliseconds): the
 * builder's output must use only allow-listed tags and attributes, links only web/`#` targets
 * and images only data: images. Anything else is removed. Everything that stays on screen —
 * finished blocks and final renders — goes through DOMPurify instead.
 */
function verifyTree(root: HTMLElement): void {
  const walker = doc().createTreeWalker(root, 1 /* NodeFilter.SHOW_ELEMENT */);
  const bad: Element[] = [];
  for (let node = walker.nextNode(); node !== null; node = walker.nextNode()) {
    const e = node as Element;
    if (!allowedTagSet.has(e.tagName)) {
      bad.push(e);
      continue;
    }
    for (const attr of Array.from(e.attributes)) {
      const ok =
        allowedAttrSet.has(attr.name) &&
        (attr.name !== 'href' || /^(?:https?:|mailto:|#$)/i.test(attr.value)) &&
        (attr.name !== 'src' || isInlineImage(attr.value));
      if (!ok) {
        e.removeAttribute(attr.name);
      }
    }
  }
  for (const e of bad) {
    e.remove();
  }
}

/** Same element with the same attributes (its children may differ). */
function sameShell(a: Element, b: Element): boolean {
  if (a.tagName !== b.tagName || a.attributes.length !== b.attributes.length) {
    return false;
  }
  for (const attr of Array.from(b.attributes)) {
    if (a.getAttribute(attr.name) !== attr.value) {
      return false;
    }
  }
  return true;
}

/** Top-level tokens that produce nodes (blank lines and link definitions do not). */
function isRendered(token: Token): boolean {
  return token.type !== 'space' && token.type !== 'def';
}

/**
 * Renders top-level tokens into a detached container, checked or sanitized, and returns the
 * nodes with the position (among rendered tokens) of the token each came from.
 */
function renderBlocks(tokens: readonly Token[], transient: boolean): { node: Node; ordinal: number }[] {
  const box = doc().createElement('div');
  const ordinals = new Map<Node, number>();
  const builder = new DomBuilder();
  let ordinal = 0;
  for (const token of tokens) {
    if (!isRendered(token)) {
      continue;
    }
    const before = box.lastChild;
    builder.blocks([token], box, 0, false);
    for (let n = before === null ? box.firstChild : before.nextSibling; n !== null; n = n.nextSibling) {
      ordinals.set(n, ordinal);
    }
    ordinal++;
  }
  if (transient) {
    verifyTree(box);
  } else {
    sanitizeInPlace(box);
  }
  return Array.from(box.childNodes, (node) => ({ node, ordinal: ordinals.get(node) ?? Math.max(0, ordinal - 1) }));
}

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

interface OpenFence {
  readonly start: number;
  readonly char: string;
  readonly length: number;
  readonly indent: number;
  /** Source offset of the first line not yet shown. */
  scanPos: number;
  readonly code: HTMLElement;
  chunk: Text;
  chunkLines: number;
  readonly partial: Text;
}

/**
 * How much a render does. `stream`: a streaming update, paced (at most one per
 * `tailIntervalMs`); the tail is only checked by {@link verifyTree} since the next update
 * replaces it. `settle`: the stream paused (a timer): the pending text is shown and the tail
 * sanitized; an open fence stays open. `final`: everything, fences closed and highlighted
 * (the turn ended, or a one-shot render).
 */
type Pass = 'stream' | 'settle' | 'final';

/**
 * A block of Markdown that can grow. `set()` with the whole text each time: when the old text is
 * a prefix of the new one, only the new characters cost anything.
 */
export class MarkdownView {
  readonly element: HTMLElement;
  private raw = '';
  private source = '';
  private pendingCR = false;
  private stableEnd = 0;
  /** Rendered top-level tokens before `stableEnd`. */
  private placed = 0;
  private groups: HTMLElement[] = [];
  private tail: Node[] = [];
  private tailTransient = false;
  private tailSizeAtRender = 0;
  private sourceLenAtRender = 0;
  private lastTailAt = -Infinity;
  private fence: OpenFence | undefined;
  private plain: { node: Text; end: number } | undefined;
  private links: Links = {};
  private settleTimer: number | undefined;
  private settleAt = 0;

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
    this.render(final ? 'final' : 'stream');
  }

  /** Renders whatever is paced, open or only checked, for good (the turn ended). */
  flush(): void {
    if (this.settleTimer === undefined && this.fence === undefined && !this.tailTransient) {
      return;
    }
    this.render('final');
  }

  dispose(): void {
    this.cancelSettle();
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
    this.cancelSettle();
    while (this.element.lastChild !== null) {
      this.element.removeChild(this.element.lastChild);
    }
    this.raw = '';
    this.source = '';
    this.pendingCR = false;
    this.stableEnd = 0;
    this.placed = 0;
    this.groups = [];
    this.tail = [];
    this.tailTransient = false;
    this.tailSizeAtRender = 0;
    this.sourceLenAtRender = 0;
    this.lastTailAt = -Infinity;
    this.fence = undefined;
    this.plain = undefined;
    this.links = {};
  }

  private render(pass: Pass): void {
    if (this.plain !== undefined) {
      this.plain.node.appendData(this.source.slice(this.plain.end));
      this.plain.end = this.source.length;
      return;
    }
    if (this.source.length > maxSourceChars) {
      this.enterPlain();
      return;
    }
    if (pass === 'stream' && !this.due()) {
      this.scheduleSettle();
      return;
    }
    this.cancelSettle();
    if (this.fence !== undefined) {
      if (pass !== 'final' && this.streamFence(this.fence)) {
        this.rendered();
        return;
      }
      this.fence = undefined; // closed (or final): render it as a code block
    }
    this.renderTail(this.source.slice(this.stableEnd), pass);
  }

  /** Whether a streaming update may touch the DOM now (pacing). */
  private due(): boolean {
    const since = this.scheduler.now() - this.lastTailAt;
    if (since < tailIntervalMs) {
      return false;
    }
    // Appending to an open fence costs only the new text; re-rendering a big tail costs its size.
    if (this.fence !== undefined || this.source.length - this.stableEnd <= smallTailChars || since >= maxTailWaitMs) {
      return true;
    }
    return (this.source.length - this.sourceLenAtRender) * 4 >= this.tailSizeAtRender;
  }

  private rendered(): void {
    this.tailSizeAtRender = this.source.length - this.stableEnd;
    this.sourceLenAtRender = this.source.length;
    this.lastTailAt = this.scheduler.now();
  }

  private renderTail(tailText: string, pass: Pass): void {
    if (looksHostile(tailText)) {
      this.enterPlain();
      return;
    }
    const started = this.scheduler.now();
    let lexed: { tokens: Token[]; links: Links };
    try {
      lexed = lex(tailText, this.links);
    } catch {
      this.enterPlain();
      return;
    }
    if (this.scheduler.now() - started > maxLexMs) {
      this.enterPlain();
      return;
    }
    const tokens = lexed.tokens;
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last]?.type === 'space') {
      last--;
    }
    // Every block before the last one is final; so is a closed fence.
    let stableCount = last < 0 ? 0 : last;
    const lastToken = tokens[last];
    if (lastToken !== undefined && isClosedFence(lastToken)) {
      stableCount = last + 1;
    }
    let consumed = 0;
    for (let i = 0; i < stableCount; i++) {
      consumed += tokens[i]?.raw.length ?? 0;
    }
    if (!tailText.startsWith(tokens.slice(0, stableCount).map((tk) => tk.raw).join(''))) {
      stableCount = 0; // the lexer did not split the text as we assume: keep it all in the tail
      consumed = 0;
    }
    // A link reference definition can change blocks rendered before it. The tail resolves its own
    // references; rendered blocks are redone once a definition is final (or the text is).
    const defsFinal = pass === 'final' || tokens.slice(0, stableCount).some((tk) => tk.type === 'def');
    if (defsFinal && this.stableEnd > 0 && linksChanged(this.links, lexed.links)) {
      this.links = { ...lexed.links };
      this.rebuild();
      return;
    }
    if (defsFinal) {
      this.links = { ...lexed.links };
    }
    const rest = tokens.slice(stableCount);
    const open = rest[0];
    const fenceNext = pass !== 'final' && open?.type === 'code';
    if (stableCount === 0 && !fenceNext && this.patchTail(rest, pass)) {
      return;
    }
    this.removeTail();
    if (stableCount > 0) {
      const stable = tokens.slice(0, stableCount);
      for (const { node, ordinal } of renderBlocks(stable, false)) {
        this.place(node, this.placed + ordinal);
      }
      this.placed += stable.filter(isRendered).length;
      this.stableEnd += consumed;
    }
    if (fenceNext && this.startFence(open as Tokens.Code)) {
      this.rendered();
      return;
    }
    this.tailTransient = pass === 'stream';
    for (const { node, ordinal } of renderBlocks(rest, this.tailTransient)) {
      this.place(node, this.placed + ordinal);
      this.tail.push(node);
    }
    this.rendered();
  }

  /**
   * The common streaming case: the same last block, a little longer. Its element stays in place
   * and only its content is swapped, so the browser relayouts one block instead of replacing it.
   */
  private patchTail(rest: readonly Token[], pass: Pass): boolean {
    const old = this.tail[0];
    if (this.tail.length !== 1 || !(old instanceof domWindow().Element)) {
      return false;
    }
    const transient = pass === 'stream';
    const rendered = renderBlocks(rest, transient);
    const fresh = rendered[0]?.node;
    if (rendered.length !== 1 || !(fresh instanceof domWindow().Element) || !sameShell(old, fresh)) {
      return false;
    }
    old.replaceChildren(...Array.from(fresh.childNodes));
    this.tailTransient = transient;
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
    this.tailTransient = false;
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

  /** Shows an open fence at the tail as a growing `<pre><code>`; false when it is not one. */
  private startFence(token: Tokens.Code): boolean {
    const m = /^( {0,3})(`{3,}|~{3,})[^\n]*\n/.exec(token.raw);
    if (m?.[1] === undefined || m[2] === undefined || this.source.length - this.stableEnd !== token.raw.length) {
      return false; // not a fence, or its opening line is not complete yet
    }
    const d = doc();
    const pre = d.createElement('pre');
    pre.className = 'streaming';
    const code = d.createElement('code');
    const partial = d.createTextNode('');
    pre.appendChild(code);
    const fence: OpenFence = {
      start: this.stableEnd,
      char: m[2][0] ?? '`',
      length: m[2].length,
      indent: m[1].length,
      scanPos: this.stableEnd + m[0].length,
      code,
      chunk: d.createTextNode(''),
      chunkLines: 0,
      partial,
    };
    this.newFenceChunk(fence);
    code.appendChild(partial);
    this.fence = fence;
    this.place(pre, this.placed);
    this.tail = [pre];
    if (!this.streamFence(fence)) {
      // Closed already (cannot happen for a token the lexer left open, but stay correct).
      this.fence = undefined;
      this.renderTail(this.source.slice(this.stableEnd), 'final');
    }
    return true;
  }

  private newFenceChunk(fence: OpenFence): void {
    const span = doc().createElement('span');
    span.className = 'code-chunk';
    fence.chunk = doc().createTextNode('');
    span.appendChild(fence.chunk);
    fence.code.insertBefore(span, fence.partial.parentNode === fence.code ? fence.partial : null);
    fence.chunkLines = 0;
  }

  /** Appends the new complete lines of an open fence; false once its closing line arrived. */
  private streamFence(fence: OpenFence): boolean {
    const src = this.source;
    let pos = fence.scanPos;
    let added = '';
    for (;;) {
      const nl = src.indexOf('\n', pos);
      if (nl < 0) {
        break;
      }
      const line = src.slice(pos, nl);
      const close = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(line);
      if (close?.[1]?.startsWith(fence.char) === true && close[1].length >= fence.length) {
        return false;
      }
      added += `${this.stripIndent(line, fence.indent)}\n`;
      pos = nl + 1;
      fence.chunkLines++;
      if (fence.chunkLines >= fenceChunkLines) {
        fence.chunk.appendData(added);
        added = '';
        this.newFenceChunk(fence);
      }
    }
    if (added !== '') {
      fence.chunk.appendData(added);
    }
    fence.scanPos = pos;
    const partial = this.stripIndent(src.slice(pos), fence.indent);
    if (fence.partial.data !== partial) {
      fence.partial.data = partial;
    }
    return true;
  }

  private stripIndent(line: string, indent: number): string {
    let i = 0;
    while (i < indent && line.charCodeAt(i) === 32) {
      i++;
    }
    return i === 0 ? line : line.slice(i);
  }

  private enterPlain(): void {
    this.cancelSettle();
    this.removeTail();
    this.fence = undefined;
    const box = doc().createElement('div');
    box.className = 'md-plain';
    const node = doc().createTextNode(this.source.slice(this.stableEnd));
    box.appendChild(node);
    this.place(box, this.placed);
    this.tail = [box];
    this.plain = { node, end: this.source.length };
  }

  /** Renders `settleDelayMs` after the last paced update; one timer, re-armed only when it fires early. */
  private scheduleSettle(): void {
    this.settleAt = this.scheduler.now() + settleDelayMs;
    if (this.settleTimer === undefined) {
      this.armSettle(settleDelayMs);
    }
  }

  private armSettle(ms: number): void {
    this.settleTimer = this.scheduler.setTimeout(() => {
      this.settleTimer = undefined;
      const left = this.settleAt - this.scheduler.now();
      if (left > 1) {
        this.armSettle(left);
      } else {
        this.render('settle');
      }
    }, ms);
  }

  private cancelSettle(): void {
    if (this.settleTimer !== undefined) {
      this.scheduler.clearTimeout(this.settleTimer);
      this.settleTimer = undefined;
    }
  }
}

/** Renders complete Markdown once (user messages, tool output). */
export function renderMarkdown(text: string, scheduler: MarkdownScheduler, className = 'markdown'): HTMLElement {
  const view = new MarkdownView(scheduler, className);
  view.set(text, false, true);
  return view.element;
}
