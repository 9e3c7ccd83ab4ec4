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

  /** An element of the page's document (the webview's; in tests, jsdom's). */
  #make<K extends keyof HTMLElementTagNameMap>(tag: K): HTMLElementTagNameMap[K] {
    return this.#d.createElement(tag);
  }

  #text(text: string): Text {
    return this.#d.createTextNode(text);
  }

  blocks(tokens: readonly Token[], parent: Node, depth: number, loose: boolean): void {
    for (const token of tokens) {
      this.#block(token as MarkedToken, parent, depth, loose);
    }
  }

  #block(token: MarkedToken, parent: Node, depth: number, loose: boolean): void {
    if (depth > maxDepth) {
      parent.appendChild(this.#text(token.raw));
      return;
    }
    switch (token.type) {
      case 'space':
      case 'def':
        return;
      case 'code':
        parent.appendChild(this.#code(token));
        return;
      case 'heading': {
        const h = this.#d.createElement(`h${Math.min(6, Math.max(1, token.depth))}`);
        this.inline(token.tokens, h, depth + 1);
        parent.appendChild(h);
        return;
      }
      case 'hr':
        parent.appendChild(this.#make('hr'));
        return;
      case 'blockquote': {
        const q = this.#make('blockquote');
        this.blocks(token.tokens, q, depth + 1, true);
        parent.appendChild(q);
        return;
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
        parent.appendChild(list);
        return;
      }
      case 'paragraph': {
        const p = this.#make('p');
        this.inline(token.tokens, p, depth + 1);
        parent.appendChild(p);
        return;
      }
      case 'text': {
        // Block-level text: the content of a tight list item (a paragraph in a loose one).
        const target = loose ? this.#make('p') : parent;
        if (token.tokens !== undefined) {
          this.inline(token.tokens, target, depth + 1);
        } else {
          target.appendChild(this.#text(decodeEntities(token.text)));
        }
        if (target !== parent) {
          parent.appendChild(target);
        }
        return;
      }
      case 'table':
        parent.appendChild(this.#table(token, depth));
        return;
      case 'html': {
        // Raw HTML is shown as the text it is, never inserted as markup.
        const p = this.#make('p');
        p.className = 'md-raw-html';
        p.textContent = token.text.replace(/\n+$/, '');
        parent.appendChild(p);
        return;
      }
      case 'checkbox':
        parent.appendChild(this.#checkbox(token.checked));
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
        parent.appendChild(this.#text(token.raw));
        continue;
      }
      switch (token.type) {
        case 'text':
          if (token.tokens !== undefined && token.tokens.length > 0) {
            this.inline(token.tokens, parent, depth + 1);
          } else {
            parent.appendChild(this.#text(token.escaped === true ? token.text : decodeEntities(token.text)));
          }
          break;
        case 'escape':
          parent.appendChild(this.#text(token.text));
          break;
        case 'strong':
        case 'em':
        case 'del': {
          const e = this.#make(token.type);
          this.inline(token.tokens, e, depth + 1);
          parent.appendChild(e);
          break;
        }
        case 'codespan': {
          const c = this.#make('code');
          c.textContent = token.text;
          parent.appendChild(c);
          break;
        }
        case 'br':
          parent.appendChild(this.#make('br'));
          break;
        case 'link':
          parent.appendChild(this.#link(token, depth));
          break;
        case 'image':
          parent.appendChild(this.#image(token));
          break;
        case 'html':
          parent.appendChild(this.#text(token.raw));
          break;
        case 'checkbox':
          parent.appendChild(this.#checkbox(token.checked));
          break;
        default:
          parent.appendChild(this.#text(token.raw));
      }
    }
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
    pre.appendChild(codeElement(token.text, token.codeBlockStyle === 'indented' ? undefined : token.lang));
    return pre;
  }

  #table(token: Tokens.Table, depth: number): HTMLElement {
    const wrap = this.#make('div');
    wrap.className = 'md-table';
    const table = this.#make('table');
    const head = this.#make('thead');
    const headRow = this.#make('tr');
    for (const cell of token.header) {
      headRow.appendChild(this.#cell('th', cell, depth));
    }
    head.appendChild(headRow);
    table.appendChild(head);
    if (token.rows.length > 0) {
      const body = this.#make('tbody');
      for (const row of token.rows) {
        const tr = this.#make('tr');
        for (const cell of row) {
          tr.appendChild(this.#cell('td', cell, depth));
        }
        body.appendChild(tr);
      }
      table.appendChild(body);
    }
    wrap.appendChild(table);
    return wrap;
  }

  #cell(tag: 'th' | 'td', cell: Tokens.TableCell, depth: number): HTMLElement {
    const c = this.#make(tag);
    if (cell.align !== null) {
      c.className = `align-${cell.align}`;
    }
    this.inline(cell.tokens, c, depth + 1);
    return c;
  }

  #link(token: Tokens.Link, depth: number): HTMLElement {
    const target = classifyHref(token.href);
    if (target.kind === 'web') {
      const a = this.#make('a');
      a.setAttribute('href', target.href);
      a.setAttribute('title', token.title !== undefined && token.title !== null && token.title !== '' ? decodeEntities(token.title) : visibleLabel(target.href));
      this.inline(token.tokens, a, depth + 1);
      return a;
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
      this.inline(token.tokens, a, depth + 1);
      return a;
    }
    const span = this.#make('span');
    span.className = 'md-blocked-link';
    this.inline(token.tokens, span, depth + 1);
    return span;
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
