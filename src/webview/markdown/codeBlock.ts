import { doc } from '../dom';
import { fenceLabel, highlightTokens, isHighlightable, prepareLanguage, type TokenNode } from '../highlight';

/** Highlighted code nests no deeper than this (grammars nest a few levels). */
const maxTokenDepth = 32;

/**
 * The `<code>` of a fenced block: `hljs language-<name>` when the fence names a language. Its
 * highlighting goes into `later`, for the caller to run once the block has been sanitized: it adds
 * only `<span class="hljs-…">` elements and text nodes built from highlight.js's token tree (no
 * HTML is parsed, no other element or attribute is made), so the sanitizer need not walk the
 * thousands of spans a long code block becomes. The first block of a language shows as plain text
 * while the grammar's script loads, then is highlighted in place (the element, its class and its
 * text stay the same; only spans are added, so nothing moves).
 */
export function codeElement(text: string, info: string | undefined, later: (() => void)[]): HTMLElement {
  const code = doc().createElement('code');
  code.textContent = text;
  const label = fenceLabel(info);
  if (label === undefined) {
    return code;
  }
  code.className = `hljs language-${label}`;
  later.push(() => highlightInto(code, text, label));
  return code;
}

/** Highlights `code` (holding `text`) now when its grammar is loaded, else once it has loaded. */
function highlightInto(code: HTMLElement, text: string, label: string): void {
  const ready = isHighlightable(text) ? prepareLanguage(label) : false;
  if (typeof ready === 'string') {
    fill(code, text, ready);
  } else if (ready !== false) {
    void ready.then((grammar) => {
      if (grammar === false) {
        return;
      }
      // The block is on the page already: build the spans aside, then swap them in at once.
      const box = doc().createElement('code');
      fill(box, text, grammar);
      code.replaceChildren(...Array.from(box.childNodes));
    });
  }
}

/** Fills `parent` with `text` as highlight.js's spans (elements and text nodes, no HTML parsed). */
function fill(parent: HTMLElement, text: string, grammar: string): void {
  const tokens = highlightTokens(text, grammar);
  if (tokens !== undefined) {
    parent.replaceChildren();
    appendTokens(parent, tokens, 0);
  } else if (parent.textContent !== text) {
    parent.textContent = text;
  }
}

function appendTokens(parent: Node, node: TokenNode, depth: number): void {
  for (const child of node.children) {
    if (typeof child === 'string') {
      parent.appendChild(doc().createTextNode(child));
    } else if (child.scope === undefined || depth >= maxTokenDepth) {
      appendTokens(parent, child, depth + 1);
    } else {
      const span = doc().createElement('span');
      span.className = scopeClass(child.scope);
      appendTokens(span, child, depth + 1);
      parent.appendChild(span);
    }
  }
}

/** highlight.js's class names for a scope: `title.function` → `hljs-title function_`, `language:xml` → `language-xml`. */
function scopeClass(scope: string): string {
  if (scope.startsWith('language:')) {
    return `language-${scope.slice('language:'.length)}`;
  }
  const [first, ...rest] = scope.split('.');
  return [`hljs-${first ?? ''}`, ...rest.map((piece, i) => `${piece}${'_'.repeat(i + 1)}`)].join(' ');
}
