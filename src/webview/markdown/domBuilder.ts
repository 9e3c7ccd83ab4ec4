import type { MarkedToken, Token, Tokens } from 'marked';
import { doc } from '../dom';
import { classifyHref, decodeEntities, isInlineImage } from '../links';
import { visibleLabel } from '../text';
import { codeElement } from './codeBlock';

/**
 * Turns marked's tokens into DOM nodes with `createElement` and `textContent`: agent text never
 * reaches an HTML parser, so raw HTML in it shows as text, links are filtered by scheme
 * (links.ts) and only `data:image/…` images are shown. The caller sanitizes what this builds.
 */

/** Deeper structures are shown as their source text. */
const maxDepth = 12;

/** Builds DOM from marked tokens. Never parses HTML. */
export class DomBuilder {
  readonly #d = doc();
  /** Highlighting of the code blocks built, to run once what was built has been sanitized. */
  readonly #highlights: (() => void)[] = [];

  /** An element of the page's document (the webview's; in tests, jsdom's). */
  #make<K extends keyof HTMLElementTagNameMap>(tag: K): HTMLElementTagNameMap[K] {
    return this.#d.createElement(tag);
  }

  #text(text: string): Text {
    return this.#d.createTextNode(text);
  }

  /** Highlights the code blocks built so far; call it after sanitizing them (codeBlock.ts says why that is safe). */
  highlight(): void {
    for (const run of this.#highlights.splice(0)) {
      run();
    }
  }

  blocks(tokens: readonly Token[], parent: Node, depth: number, loose: boolean): void {
    for (const token of tokens) {
      const node = this.#block(token as MarkedToken, parent, depth, loose);
      if (node !== undefined) {
        parent.appendChild(node);
      }
    }
  }

  /** The node a block token becomes; none for blank lines and definitions, or when its content went into `parent` itself. */
  #block(token: MarkedToken, parent: Node, depth: number, loose: boolean): Node | undefined {
    if (depth > maxDepth) {
      return this.#text(token.raw);
    }
    switch (token.type) {
      case 'space':
      case 'def':
        return undefined;
      case 'code':
        return this.#code(token);
      case 'heading':
        return this.#inlineIn(this.#d.createElement(`h${Math.min(6, Math.max(1, token.depth))}`), token.tokens, depth);
      case 'hr':
        return this.#make('hr');
      case 'blockquote': {
        const q = this.#make('blockquote');
        this.blocks(token.tokens, q, depth + 1, true);
        return q;
      }
      case 'list': {
        const list = this.#make(token.ordered ? 'ol' : 'ul');
        if (token.ordered && token.start !== '' && token.start !== 1) {
          list.setAttribute('start', String(token.start));
        }
        for (const item of token.items) {
          const li = this.#make('li');
          if (item.task) {
            li.className = 'task';
          }
          this.blocks(item.tokens, li, depth + 1, item.loose);
          list.appendChild(li);
        }
        return list;
      }
      case 'paragraph':
        return this.#inlineIn(this.#make('p'), token.tokens, depth);
      case 'text': {
        // Block-level text: the content of a tight list item (a paragraph in a loose one).
        const target = loose ? this.#make('p') : parent;
        if (token.tokens !== undefined) {
          this.inline(token.tokens, target, depth + 1);
        } else {
          target.appendChild(this.#text(decodeEntities(token.text)));
        }
        return loose ? target : undefined;
      }
      case 'table':
        return this.#table(token, depth);
      case 'html': {
        // Raw HTML is shown as the text it is, never inserted as markup.
        const p = this.#make('p');
        p.className = 'md-raw-html';
        p.textContent = token.text.replace(/\n+$/, '');
        return p;
      }
      case 'checkbox':
        return this.#checkbox(token.checked);
      default:
        this.inline([token], parent, depth);
        return undefined;
    }
  }

  inline(tokens: readonly Token[] | undefined, parent: Node, depth: number): void {
    if (tokens === undefined) {
      return;
    }
    for (const raw of tokens) {
      const token = raw as MarkedToken;
      if (depth <= maxDepth && token.type === 'text' && token.tokens !== undefined && token.tokens.length > 0) {
        this.inline(token.tokens, parent, depth + 1);
      } else {
        parent.appendChild(this.#inlineNode(token, depth));
      }
    }
  }

  /** The node an inline token becomes (text with inline tokens of its own is walked by {@link inline}). */
  #inlineNode(token: MarkedToken, depth: number): Node {
    if (depth > maxDepth) {
      return this.#text(token.raw);
    }
    switch (token.type) {
      case 'text':
        return this.#text(token.escaped === true ? token.text : decodeEntities(token.text));
      case 'escape':
        return this.#text(token.text);
      case 'strong':
      case 'em':
      case 'del':
        return this.#inlineIn(this.#make(token.type), token.tokens, depth);
      case 'codespan': {
        const c = this.#make('code');
        c.textContent = token.text;
        return c;
      }
      case 'br':
        return this.#make('br');
      case 'link':
        return this.#link(token, depth);
      case 'image':
        return this.#image(token);
      case 'checkbox':
        return this.#checkbox(token.checked);
      default:
        // Inline HTML (and anything unknown) is shown as its source text.
        return this.#text(token.raw);
    }
  }

  /** `element` with `tokens` rendered inside it, one level deeper. */
  #inlineIn<E extends HTMLElement>(element: E, tokens: readonly Token[] | undefined, depth: number): E {
    this.inline(tokens, element, depth + 1);
    return element;
  }

  #checkbox(checked: boolean): HTMLInputElement {
    const box = this.#make('input');
    box.setAttribute('type', 'checkbox');
    box.setAttribute('disabled', '');
    if (checked) {
      box.setAttribute('checked', '');
    }
    return box;
  }

  #code(token: Tokens.Code): HTMLElement {
    const pre = this.#make('pre');
    pre.appendChild(codeElement(token.text, token.codeBlockStyle === 'indented' ? undefined : token.lang, this.#highlights));
    return pre;
  }

  #table(token: Tokens.Table, depth: number): HTMLElement {
    const wrap = this.#make('div');
    wrap.className = 'md-table';
    const table = this.#make('table');
    const head = this.#make('thead');
    head.appendChild(this.#row('th', token.header, depth));
    table.appendChild(head);
    if (token.rows.length > 0) {
      const body = this.#make('tbody');
      for (const row of token.rows) {
        body.appendChild(this.#row('td', row, depth));
      }
      table.appendChild(body);
    }
    wrap.appendChild(table);
    return wrap;
  }

  #row(tag: 'th' | 'td', cells: readonly Tokens.TableCell[], depth: number): HTMLElement {
    const tr = this.#make('tr');
    for (const cell of cells) {
      const c = this.#make(tag);
      if (cell.align !== null) {
        c.className = `align-${cell.align}`;
      }
      tr.appendChild(this.#inlineIn(c, cell.tokens, depth));
    }
    return tr;
  }

  #link(token: Tokens.Link, depth: number): HTMLElement {
    const target = classifyHref(token.href);
    if (target.kind === 'web') {
      const a = this.#make('a');
      a.setAttribute('href', target.href);
      a.setAttribute('title', token.title !== undefined && token.title !== null && token.title !== '' ? decodeEntities(token.title) : visibleLabel(target.href));
      return this.#inlineIn(a, token.tokens, depth);
    }
    if (target.kind === 'file') {
      const a = this.#make('a');
      a.setAttribute('href', '#');
      a.className = 'file-link';
      a.setAttribute('data-path', target.path);
      if (target.line !== undefined) {
        a.setAttribute('data-line', String(target.line));
      }
      a.setAttribute('title', visibleLabel(target.line !== undefined ? `${target.path}:${target.line}` : target.path));
      return this.#inlineIn(a, token.tokens, depth);
    }
    const span = this.#make('span');
    span.className = 'md-blocked-link';
    return this.#inlineIn(span, token.tokens, depth);
  }

  #image(token: Tokens.Image): HTMLElement {
    const alt = decodeEntities(token.text);
    if (isInlineImage(token.href)) {
      const img = this.#make('img');
      img.setAttribute('src', token.href);
      img.setAttribute('alt', alt);
      img.className = 'md-image';
      return img;
    }
    // Remote images are not loaded (CSP and privacy): they become links.
    const target = classifyHref(token.href);
    const label = alt !== '' ? alt : token.href;
    if (target.kind === 'web') {
      const a = this.#make('a');
      a.setAttribute('href', target.href);
      a.setAttribute('title', visibleLabel(target.href));
      a.textContent = label;
      return a;
    }
    const span = this.#make('span');
    span.className = 'md-blocked-link';
    span.textContent = label;
    return span;
  }
}
