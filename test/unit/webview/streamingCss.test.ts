import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const cssFile = path.resolve(__dirname, '../../../..', 'src', 'webview', 'styles', 'main.css');

/** The selectors of every rule (comments and declarations dropped), one string per selector. */
function selectorsOf(css: string): string[] {
  const bare = css.replace(/\/\*[\s\S]*?\*\//g, '');
  const out: string[] = [];
  for (const m of bare.matchAll(/([^{}]+)\{[^{}]*\}/g)) {
    for (const selector of (m[1] ?? '').split(',')) {
      const s = selector.trim();
      if (s !== '' && !s.startsWith('@')) {
        out.push(s.replace(/\s+/g, ' '));
      }
    }
  }
  return out;
}

/** Pseudo-classes whose match changes when a sibling is appended after the element. */
const endRelative = /:(?:last-child|nth-last-child|last-of-type|nth-last-of-type|only-child|only-of-type)\b/;

/** Whether `selector` matches by position among the blocks of a Markdown message. */
function positionalInMarkdown(selector: string): boolean {
  return /\.(?:markdown|md-group)\b/.test(selector) && endRelative.test(selector);
}

/**
 * A streamed refresh appends blocks to a message's last group. A selector that matches a block (or
 * a group) by being last changes its match on every append, and Chromium restyles and lays out the
 * old last one again: `.md-group:last-child > :last-child` cost P2's stream ~11% of its CPU. The
 * stylesheet trims the last margin with a negative group margin instead; this keeps it that way.
 */
suite('webview CSS: nothing in a streaming message depends on being last', () => {
  const selectors = selectorsOf(fs.readFileSync(cssFile, 'utf8'));

  test('the stylesheet parses into selectors (the check below has something to check)', () => {
    assert.ok(selectors.length > 200, `${selectors.length} selectors`);
    assert.ok(selectors.includes('.markdown > .md-group'), 'the block groups have their rule');
  });

  test('no selector inside .markdown matches by being the last child or of type', () => {
    assert.deepEqual(selectors.filter(positionalInMarkdown), []);
  });

  test('the check catches end-relative selectors and lets first-child and sibling ones through', () => {
    const caught = [
      '.markdown > :last-child',
      '.markdown > .md-group:last-child > :last-child',
      '.markdown li:nth-last-child(2)',
      '.md-group > p:last-of-type',
      '.markdown pre:only-child',
    ];
    const allowed = [
      '.markdown > .md-group:first-child > :first-child',
      '.markdown li + li',
      '.tool-content > :last-child',
      '.location > span:last-child',
      '.markdown > .md-group',
    ];
    assert.deepEqual(caught.filter((s) => !positionalInMarkdown(s)), []);
    assert.deepEqual(allowed.filter(positionalInMarkdown), []);
  });

  test('the message trims its last margin with a negative margin on its groups, held by a flow-root', () => {
    const css = fs.readFileSync(cssFile, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '');
    const rule = (selector: string): string => {
      const m = new RegExp(`(?:^|\\})\\s*${selector.replace(/[.*+?^${}()|[\]\\>]/g, '\\$&')}\\s*\\{([^}]*)\\}`).exec(css);
      return m?.[1] ?? '';
    };
    assert.match(rule('.markdown > .md-group'), /margin-bottom:\s*-0\.5em/);
    assert.match(rule('.markdown'), /display:\s*flow-root/);
  });
});
