import DOMPurify from 'dompurify';
import { domWindow } from '../dom';
import { isInlineImage } from '../links';

/**
 * The sanitizer of rendered Markdown: DOMPurify with a strict allow-list, run on every block the
 * renderer builds before it reaches the page (finished blocks, the streaming tail and one-shot
 * renders alike). The renderer never parses HTML (it builds nodes with `createElement`/
 * `textContent`), so this is the second line of defence. Code is highlighted after it: only
 * `<span class>` elements and text nodes from highlight.js's token tree (codeBlock.ts), which the
 * sanitizer would leave as they are (test/unit/webview/highlight.test.ts checks that over the R4
 * corpus) and which made up most of the nodes it walked.
 */

const allowedTags = [
  'div', 'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'strong', 'em', 'del', 'code', 'pre', 'blockquote',
  'ul', 'ol', 'li', 'a', 'img', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'span', 'input',
];
const allowedAttrs = ['href', 'title', 'alt', 'src', 'class', 'start', 'type', 'checked', 'disabled', 'data-path', 'data-line', 'aria-hidden'];

type Purifier = ReturnType<typeof DOMPurify>;

const purifiers = new WeakMap<Window, Purifier>();

function purifier(): Purifier {
  const win = domWindow();
  let tree = purifiers.get(win);
  if (tree === undefined) {
    tree = DOMPurify(win);
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
    purifiers.set(win, tree);
  }
  return tree;
}

/** Sanitizes rendered blocks (a detached container) in place. */
export function sanitizeInPlace(root: HTMLElement): void {
  purifier().sanitize(root, { IN_PLACE: true });
}
