import type { Token } from 'marked';
import { doc, domWindow } from '../dom';
import { isRendered } from './blockLexer';
import { DomBuilder } from './domBuilder';
import { sanitizeInPlace } from './sanitizer';

export interface RenderedBlock {
  readonly node: Node;
  /** Position of the token it came from among the rendered tokens. */
  readonly ordinal: number;
}

/**
 * Renders top-level tokens into a detached container, sanitizes it (every render, streaming or
 * final: nothing reaches the page unsanitized), then highlights its code blocks (spans and text
 * only, codeBlock.ts) and returns its nodes with the position of the token each came from.
 */
export function renderBlocks(tokens: readonly Token[]): RenderedBlock[] {
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
  sanitizeInPlace(box);
  builder.highlight();
  return Array.from(box.childNodes, (node) => ({ node, ordinal: ordinals.get(node) ?? Math.max(0, ordinal - 1) }));
}

/** Same element with the same attributes (its children may differ). */
export function sameShell(a: Element, b: Element): boolean {
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

/**
 * The common streaming case: the same last block, a little longer. Its element stays in place and
 * only its content is swapped, so the browser relayouts one block instead of replacing it. False
 * when `tail` is not one element of the same shell as `open`'s (then render it anew).
 */
export function patchTail(tail: readonly Node[], open: readonly Token[]): boolean {
  const old = tail[0];
  if (tail.length !== 1 || !(old instanceof domWindow().Element)) {
    return false;
  }
  const rendered = renderBlocks(open);
  const fresh = rendered[0]?.node;
  if (rendered.length !== 1 || !(fresh instanceof domWindow().Element) || !sameShell(old, fresh)) {
    return false;
  }
  old.replaceChildren(...Array.from(fresh.childNodes));
  return true;
}
