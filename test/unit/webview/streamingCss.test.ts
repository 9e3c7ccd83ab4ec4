import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';

const cssFile = path.resolve(__dirname, '../../../..', 'src', 'webview', 'styles', 'main.css');

interface Rule {
  readonly selectors: readonly string[];
  readonly body: string;
}

/** The style rules of a stylesheet (comments dropped; rules inside `@media` included), in order. */
function rulesOf(css: string): Rule[] {
  const bare = css.replace(/\/\*[\s\S]*?\*\//g, '');
  return Array.from(bare.matchAll(/([^{}]+)\{([^{}]*)\}/g), (m) => ({
    selectors: (m[1] ?? '')
      .split(',')
      .map((sel) => sel.trim().replace(/\s+/g, ' '))
      .filter((sel) => sel !== '' && !sel.startsWith('@')),
    body: m[2] ?? '',
  }));
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
  const rules = rulesOf(fs.readFileSync(cssFile, 'utf8'));
  const selectors = rules.flatMap((r) => r.selectors);
  /** The declarations of the rule whose only selector is `selector`. */
  const ruleBody = (selector: string): string => rules.find((r) => r.selectors.length === 1 && r.selectors[0] === selector)?.body ?? '';

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
    assert.match(ruleBody('.markdown > .md-group'), /margin-bottom:\s*-0\.5em/);
    assert.match(ruleBody('.markdown'), /display:\s*flow-root/);
  });
});
