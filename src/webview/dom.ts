/**
 * DOM helpers. The app is mounted into one window; tests mount a fresh jsdom window per test, so
 * nothing here touches the `document` global: everything goes through the window given to
 * {@link setDomWindow}.
 */

type DomWindow = Window & typeof globalThis;

let currentWindow: DomWindow | undefined;

/** Binds the helpers to a window (called once by the app at mount). */
export function setDomWindow(win: DomWindow): void {
  currentWindow = win;
}

export function domWindow(): DomWindow {
  if (currentWindow === undefined) {
    throw new Error('setDomWindow() was not called');
  }
  return currentWindow;
}

export function doc(): Document {
  return domWindow().document;
}

type Child = Node | string | null | undefined | false;

interface ElementProps {
  /** Space-separated class names. */
  readonly class?: string;
  readonly text?: string;
  readonly attrs?: Readonly<Record<string, string | undefined>>;
}

/** Creates an element; `props.attrs` never carries `style` or event handlers (the CSP forbids inline style). */
export function el<K extends keyof HTMLElementTagNameMap>(tag: K, props?: ElementProps, children?: readonly Child[]): HTMLElementTagNameMap[K] {
  const node = doc().createElement(tag);
  if (props !== undefined) {
    if (props.class !== undefined && props.class !== '') {
      node.className = props.class;
    }
    if (props.text !== undefined) {
      node.textContent = props.text;
    }
    if (props.attrs !== undefined) {
      for (const [name, value] of Object.entries(props.attrs)) {
        if (value !== undefined) {
          node.setAttribute(name, value);
        }
      }
    }
  }
  if (children !== undefined) {
    append(node, children);
  }
  return node;
}

export function append(parent: Node, children: readonly Child[]): void {
  for (const c of children) {
    if (c === null || c === undefined || c === false || c === '') {
      continue;
    }
    parent.appendChild(typeof c === 'string' ? doc().createTextNode(c) : c);
  }
}

/** A codicon, hidden from assistive technology (its meaning is always also given in text). */
export function icon(name: string, extra = ''): HTMLSpanElement {
  return el('span', { class: `codicon codicon-${name}${extra !== '' ? ` ${extra}` : ''}`, attrs: { 'aria-hidden': 'true' } });
}

/** A `<button type="button">` with an optional icon and visible label. */
export function button(label: string, opts: { icon?: string; class?: string; title?: string; ariaLabel?: string; onClick?: (e: MouseEvent) => void } = {}): HTMLButtonElement {
  const b = el('button', { class: opts.class ?? '', attrs: { type: 'button', title: opts.title, 'aria-label': opts.ariaLabel } });
  if (opts.icon !== undefined) {
    b.appendChild(icon(opts.icon));
  }
  if (label !== '') {
    b.appendChild(el('span', { class: 'label', text: label }));
  }
  if (opts.onClick !== undefined) {
    const onClick = opts.onClick;
    b.addEventListener('click', (e) => onClick(e));
  }
  return b;
}

export function clear(node: Node): void {
  while (node.lastChild !== null) {
    node.removeChild(node.lastChild);
  }
}

/** Replaces the children of `node` with `children`. */
export function replaceChildren(node: Element, children: readonly Child[]): void {
  clear(node);
  append(node, children);
}

let idCounter = 0;
/** A document-unique id for aria-* references. */
export function uniqueId(prefix: string): string {
  return `${prefix}-${++idCounter}`;
}

/** Sets an attribute only when it changes (a same-value write still invalidates style and AX). */
export function setAttr(node: Element, name: string, value: string): void {
  if (node.getAttribute(name) !== value) {
    node.setAttribute(name, value);
  }
}

/** Shows or hides an element, touching the DOM only on a change. */
export function setHidden(node: HTMLElement, hidden: boolean): void {
  if (node.hidden !== hidden) {
    node.hidden = hidden;
  }
}
