import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { createRequire } from 'node:module';
import * as path from 'node:path';
import type { HLJSApi, LanguageFn } from 'highlight.js';
import { fenceLabel, prepareLanguage, setScriptLoader } from '../../../src/webview/highlight';
import { mailbox, publishGrammar } from '../../../src/webview/highlight/mailbox';
import { renderMarkdown } from '../../../src/webview/markdown';
import { sanitizeInPlace } from '../../../src/webview/markdown/sanitizer';
import { fixturesDir, repoRoot } from '../../support/paths';
import { loadGrammarsSynchronously } from './grammars';
import { bareWindowEachTest } from './harness';

const load = createRequire(__filename);
const languages = JSON.parse(fs.readFileSync(path.join(repoRoot, 'src', 'webview', 'highlight', 'languages.json'), 'utf8')) as { grammars: Record<string, string> };
/** A stock highlight.js (its own instance) with every grammar: what the official HTML looks like. */
const stock = (): HLJSApi => {
  const hljs = (load('highlight.js/lib/core') as HLJSApi).newInstance();
  for (const name of Object.keys(languages.grammars)) {
    hljs.registerLanguage(name, load(`highlight.js/lib/languages/${name}`) as LanguageFn);
  }
  return hljs;
};

const samples: Readonly<Record<string, string>> = {
  ts: 'export async function f<T>(x: T): Promise<T> {\n  // "quoted" & <tags>\n  return x as T;\n}',
  python: 'import os\n\n@decorator\ndef f(x: int) -> str:\n    """doc"""\n    return f"{x!r}"  # comment',
  bash: '#!/bin/bash\nfor f in *.ts; do echo "$f" && grep -n \'x\' "$f"; done',
  console: '$ npm test\n> hermes@0.1.0 test\nok',
  html: '<!DOCTYPE html>\n<style>body { color: red; }</style>\n<script>const a = 1 < 2;</script>\n<a href="x">&amp;</a>',
  json: '{ "a": [1, 2.5, true, null], "b": "\\u00e9" }',
  diff: '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old\n+new\n context',
  rust: 'fn main() { let v: Vec<u8> = vec![1]; println!("{:?}", v); }',
  go: 'package main\nfunc main() { fmt.Println(`raw`) }',
  sql: "SELECT a, COUNT(*) FROM t WHERE b = 'x' GROUP BY a;",
  yaml: 'key: value\nlist:\n  - 1\n  - "two"',
  markdown: '# Title\n\n- item `code`\n\n```js\nx\n```',
};

suite('webview: highlighting with highlight.js grammars loaded on demand', () => {
  const fx = bareWindowEachTest();

  test('at least 30 official grammars, each answering to every alias highlight.js gives it', () => {
    const names = Object.keys(languages.grammars);
    assert.ok(names.length >= 30, `${names.length} grammars`);
    assert.equal(prepareLanguage('ts'), 'typescript');
    const grammarOf = (label: string): string | undefined => mailbox().engine?.grammarOf(label)?.name;
    const hljs = stock();
    for (const name of names) {
      const ours = new Set([name, ...languages.grammars[name]?.split(' ').filter((a) => a !== '') ?? []]);
      for (const alias of hljs.getLanguage(name)?.aliases ?? []) {
        assert.ok(ours.has(alias.toLowerCase()), `${name}: alias ${alias}`);
        assert.equal(grammarOf(alias.toLowerCase()), name);
      }
    }
    assert.equal(grammarOf('text'), undefined);
    assert.equal(fenceLabel('javascript:alert(1)'), undefined);
    assert.equal(fenceLabel('<img'), undefined);
    assert.equal(fenceLabel(' C++ {.numberLines}'), 'c++');
  });

  for (const [language, code] of Object.entries(samples)) {
    test(`${language}: the spans built from the token tree are highlight.js's own HTML`, () => {
      const fence = '````'; // longer than any backtick run of the samples
      const element = renderMarkdown(`${fence}${language}\n${code}\n${fence}\n`, fx.timers).querySelector('pre code');
      assert.ok(element);
      const grammar = mailbox().engine?.grammarOf(language)?.name ?? '';
      const expected = fx.win.document.createElement('code');
      expected.innerHTML = stock().highlight(code, { language: grammar, ignoreIllegals: true }).value;
      assert.equal(element.innerHTML, expected.innerHTML);
      assert.ok(element.querySelector('span'), 'highlighted');
      assert.equal(element.className, `hljs language-${language}`);
    });
  }

  // Highlighting runs after the sanitizer (codeBlock.ts): safe only while highlighted code is
  // nothing but <span class> elements and the source's text. The R4 payloads in fences of the
  // grammars that know HTML, SVG, CSS, URLs and Markdown; the samples above are the benign twins.
  test('highlighted code is only <span class> and the source as text: the sanitizer would change nothing in it (R4 payloads)', () => {
    const { payloads } = JSON.parse(fs.readFileSync(path.join(fixturesDir, 'hostile', 'payloads.json'), 'utf8')) as { payloads: { id: string; text?: unknown }[] };
    const languages = ['html', 'xml', 'svg', 'css', 'javascript', 'markdown', 'bash', 'json'];
    const sources = [...payloads.flatMap((p) => (typeof p.text === 'string' ? [{ id: p.id, text: p.text }] : [])), ...Object.entries(samples).map(([id, text]) => ({ id, text }))];
    let spans = 0;
    for (const { id, text } of sources) {
      const fence = '`'.repeat(Math.max(3, ...Array.from(text.matchAll(/`+/g), (m) => m[0].length + 1)));
      for (const language of languages) {
        const code = renderMarkdown(`${fence}${language}\n${text}\n${fence}\n`, fx.timers).querySelector('pre code');
        assert.ok(code, `${id} in ${language}`);
        assert.equal(code.textContent, text.replace(/\r\n?/g, '\n'), `${id} in ${language}: the source, as text`);
        for (const element of Array.from(code.querySelectorAll('*'))) {
          assert.equal(element.tagName, 'SPAN', `${id} in ${language}`);
          assert.deepEqual(element.getAttributeNames(), ['class'], `${id} in ${language}`);
          assert.match(element.className, /^(?:hljs-[a-z0-9_-]+|language-[a-z0-9-]+|[a-z]+_+)(?: (?:hljs-[a-z0-9_-]+|[a-z]+_+))*$/, `${id} in ${language}: class ${element.className}`);
          spans++;
        }
        const twice = code.cloneNode(true) as HTMLElement;
        const box = fx.win.document.createElement('div');
        box.appendChild(twice);
        sanitizeInPlace(box);
        assert.equal(twice.innerHTML, code.innerHTML, `${id} in ${language}: sanitized again, unchanged`);
      }
    }
    assert.ok(sources.length >= 60 && spans > 2_000, `${sources.length} sources, ${spans} spans`);
  });

  test('the first fence of a language shows as text with the same element, then is highlighted in place', async () => {
    const requested: string[] = [];
    const pending: (() => void)[] = [];
    setScriptLoader((file) => {
      requested.push(file);
      return new Promise<void>((resolve) => {
        pending.push(() => {
          if (file === 'core') {
            load('../../../src/webview/highlight/coreEntry');
          } else {
            publishGrammar(file, load(`highlight.js/lib/languages/${file}`) as LanguageFn);
          }
          resolve();
        });
      });
    });
    try {
      const root = renderMarkdown('```elixir\ndefmodule M do\n  def f, do: :ok\nend\n```\n', fx.timers);
      const code = root.querySelector('pre code');
      assert.ok(code);
      assert.equal(code.className, 'hljs language-elixir');
      assert.equal(code.querySelector('span'), null, 'plain while the grammar loads');
      assert.deepEqual(requested, ['core'], 'the engine first: it knows which grammar a name selects');
      while (pending.length > 0) {
        for (const run of pending.splice(0)) {
          run();
        }
        await new Promise((r) => setImmediate(r));
      }
      assert.deepEqual(requested, ['core', 'elixir']);
      assert.equal(root.querySelector('pre code'), code, 'the same element');
      assert.ok(code.querySelector('span.hljs-keyword'), 'highlighted once loaded');
      assert.equal(code.textContent, 'defmodule M do\n  def f, do: :ok\nend');
    } finally {
      loadGrammarsSynchronously();
    }
  });

  test('a script that fails to load leaves the code plain; no grammar is fetched for unknown languages', async () => {
    const requested: string[] = [];
    setScriptLoader((file) => {
      requested.push(file);
      return Promise.reject(new Error('offline'));
    });
    try {
      const root = renderMarkdown('```haskell\nmain = print 1\n```\n\n```nosuchlanguage\nx\n```\n', fx.timers);
      await new Promise((r) => setImmediate(r));
      assert.deepEqual(root.querySelectorAll('pre code span').length, 0);
      assert.equal(root.querySelectorAll('pre code')[1]?.className, 'hljs language-nosuchlanguage');
      assert.ok(!requested.includes('nosuchlanguage'));
    } finally {
      loadGrammarsSynchronously();
    }
  });
});
