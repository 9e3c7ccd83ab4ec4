import * as assert from 'node:assert/strict';
import { classifyHref } from '../../../src/webview/links';
import { MarkdownView, renderMarkdown } from '../../../src/webview/markdown';
import { appendAnsi } from '../../../src/webview/ansi';
import { visibleLabel } from '../../../src/webview/text';
import { bareWindowEachTest, type FakeTimers } from './harness';
import { rng } from '../../support/random';

const corpus = [
  '# Fixing the build',
  '',
  'The failure comes from **two** places: `tsconfig.json` and the *bundler*. See [the docs](https://example.com/docs "Docs") and [a.ts](src/a.ts#L3).',
  'A second line of the same paragraph, with a URL www.example.com and an &amp; entity.',
  '',
  '1. First step',
  '2. Second step with `code`',
  '   - nested item',
  '   - another',
  '3. Third',
  '',
  '- loose item one',
  '',
  '- loose item two',
  '',
  '- [x] done task',
  '- [ ] open task',
  '',
  '```ts',
  'export function add(a: number, b: number): number {',
  '  return a + b; // sum',
  '}',
  '```',
  '',
  '~~~python',
  'def f(x):',
  '    return x * 2  # double',
  '~~~',
  '',
  '````md',
  '```inner',
  'still code',
  '```',
  '````',
  '',
  '| Name | Value |',
  '|:-----|------:|',
  '| a    | 1     |',
  '| b    | 2     |',
  '',
  '> A quote',
  '> on two lines',
  '',
  '    indented code',
  '    block',
  '',
  'Raw <b>html</b> stays text, and so does <div>this</div>.',
  '',
  '---',
  '',
  'Final paragraph with a trailing fence:',
  '',
  '```bash',
  'npm test',
  '```',
  '',
].join('\n');

function streamInto(view: MarkdownView, text: string, timers: FakeTimers, random: () => number, maxChunk: number): void {
  let shown = '';
  let i = 0;
  while (i < text.length) {
    const n = 1 + Math.floor(random() * maxChunk);
    shown += text.slice(i, i + n);
    i += n;
    view.set(shown, true);
    if (random() < 0.2) {
      timers.advance(Math.floor(random() * 120));
    }
  }
  timers.advance(1000);
}

/** Longer than any refresh interval or tail wait of the view: what was set reaches the DOM. */
const renderEachChunkMs = 1_500;

suite('webview: markdown', () => {
  const fx = bareWindowEachTest();

  for (const [seed, maxChunk, copies] of [
    [1, 3, 1],
    [2, 12, 1],
    [3, 60, 1],
    [4, 400, 1],
    [5, 25, 4],
  ] as const) {
    test(`streaming in chunks of up to ${maxChunk} characters gives the same DOM as rendering the final text once (seed ${seed}, ${copies}×)`, () => {
      const text = corpus.repeat(copies);
      const view = new MarkdownView(fx.timers);
      streamInto(view, text, fx.timers, rng(seed), maxChunk);
      const once = renderMarkdown(text, fx.timers);
      assert.equal(view.element.innerHTML, once.innerHTML);
      if (copies > 1) {
        assert.ok(once.querySelectorAll(':scope > .md-group').length > 2, 'blocks are grouped');
      }
    });
  }

  test('an open fence streams as text and is highlighted once it closes', () => {
    const view = new MarkdownView(fx.timers);
    let text = 'Intro\n\n```ts\n';
    view.set(text, true);
    for (let i = 0; i < 50; i++) {
      text += `const v${i} = ${i};\n`;
      view.set(text, true);
      fx.timers.advance(30);
    }
    fx.timers.advance(200);
    const pre = view.element.querySelector('pre.streaming');
    assert.ok(pre, 'the open fence streams into a plain pre');
    assert.equal(pre.querySelector('[class^="hljs-"]'), null);
    assert.match(pre.textContent ?? '', /const v49 = 49;/);
    text += '```\n\nAfter.';
    view.set(text, true);
    fx.timers.advance(200);
    assert.equal(view.element.querySelector('pre.streaming'), null);
    assert.ok(view.element.querySelector('pre code.language-ts .hljs-keyword'));
    assert.equal(Array.from(view.element.querySelectorAll('p')).at(-1)?.textContent, 'After.');
  });

  test('a long open fence: full 200-line chunks may skip layout off screen, the chunk still filling may not', () => {
    const view = new MarkdownView(fx.timers);
    let text = '```\n';
    view.set(text, true);
    for (let i = 0; i < 450; i++) {
      text += `line ${i}\n`;
      if (i % 25 === 24) {
        view.set(text, true);
        fx.timers.advance(200);
      }
    }
    fx.timers.advance(renderEachChunkMs);
    const pre = view.element.querySelector('pre.streaming');
    assert.ok(pre, 'the fence is still open');
    const full = Array.from(pre.querySelectorAll('.code-chunk'), (c) => c.textContent ?? '');
    const filling = Array.from(pre.querySelectorAll('.code-chunk-open'), (c) => c.textContent ?? '');
    assert.deepEqual(
      full.map((c) => c.split('\n').length - 1),
      [200, 200],
    );
    assert.equal(filling.length, 1);
    assert.equal(filling[0]?.split('\n').length, 51, 'the last 50 lines (and the empty partial line)');
    assert.equal([...full, ...filling].join(''), text.slice(4));
  });

  test('CRLF text streams the same as LF text', () => {
    const view = new MarkdownView(fx.timers);
    const crlf = corpus.replace(/\n/g, '\r\n');
    streamInto(view, crlf, fx.timers, rng(9), 7);
    assert.equal(view.element.innerHTML, renderMarkdown(corpus, fx.timers).innerHTML);
  });

  test('a link reference definition arriving late re-renders the blocks that use it', () => {
    const view = new MarkdownView(fx.timers);
    const text = 'See [the guide][g].\n\nMore text.\n\n[g]: https://example.com/guide\n';
    streamInto(view, text, fx.timers, rng(5), 4);
    assert.equal(view.element.querySelector('a')?.getAttribute('href'), 'https://example.com/guide');
    assert.equal(view.element.innerHTML, renderMarkdown(text, fx.timers).innerHTML);
  });

  test('a 20,000-chunk message costs about as much as rendering it once', () => {
    const paragraph = 'Streaming text with **bold**, `code` and [links](https://example.com) goes here. ';
    let text = '';
    for (let i = 0; i < 60; i++) {
      text += `${paragraph.repeat(4)}\n\n`;
      if (i % 10 === 0) {
        text += '```ts\n' + 'const x = 1;\n'.repeat(20) + '```\n\n';
      }
    }
    const t0 = performance.now();
    renderMarkdown(text, fx.timers);
    const once = performance.now() - t0;
    const view = new MarkdownView(fx.timers);
    const chunk = Math.ceil(text.length / 20_000);
    const t1 = performance.now();
    // A fast stream: a chunk every millisecond (the view paces its own re-rendering).
    for (let i = chunk; i < text.length + chunk; i += chunk) {
      view.set(text.slice(0, i), true);
      fx.timers.advance(1);
    }
    view.flush();
    const streamed = performance.now() - t1;
    assert.equal(view.element.innerHTML, renderMarkdown(text, fx.timers).innerHTML);
    // jsdom is far slower than Chromium per DOM node; this guards against quadratic behaviour.
    assert.ok(streamed < Math.max(once, 40) * 6, `streamed ${streamed.toFixed(0)} ms vs once ${once.toFixed(0)} ms`);
  });

  const hostile: readonly string[] = [
    '<script>alert(1)</script>',
    '<img src=x onerror=alert(1)>',
    '<img src="data:image/png;base64,AAAA" onload="alert(1)">',
    '[x](javascript:alert(1))',
    '[x](javascript&#58;alert(1))',
    '[x](&#x6a;avascript:alert(1))',
    '[x](JaVaScRiPt:alert(1))',
    '[x](<javascript:alert(1)>)',
    '[x](<java script:alert(1)>)',
    '[x](\u0001javascript:alert(1))',
    '[x](javascript%3Aalert(1))',
    '<javascript:alert(1)>',
    '[x](vbscript:msgbox(1))',
    '[x](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)',
    '![x](data:text/html,<script>alert(1)</script>)',
    '![x](data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+)',
    '![tracker](https://evil.example/pixel.png)',
    '<svg onload=alert(1)><circle/></svg>',
    '<svg><script>alert(1)</script></svg>',
    '<math><mi xlink:href="javascript:alert(1)">x</mi></math>',
    '<iframe src="javascript:alert(1)"></iframe>',
    '<style>body { display: none }</style>',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="&#106;avascript:alert(1)">x</a>',
    '[run](command:workbench.action.terminal.new)',
    '[open](vscode:extension/evil.publisher)',
    '[open](vscode-webview://x/y)',
    '<div onclick="alert(1)">click</div>',
    '<details open ontoggle=alert(1)>x</details>',
    '<form action="javascript:alert(1)"><button>x</button></form>',
    '<object data="x.swf"></object><embed src="x">',
    '<base href="javascript:alert(1)//">',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<!-- <script>alert(1)</script> -->',
    '[ref][r]\n\n[r]: javascript:alert(1)',
    '`<script>alert(1)</script>`',
    '```html\n<script>alert(1)</script>\n<img src=x onerror=alert(1)>\n```',
    '| <img src=x onerror=alert(1)> | b |\n|---|---|\n| [x](javascript:alert(1)) | 2 |',
    '- [ ] <input onfocus=alert(1) autofocus>',
    `${'>'.repeat(5000)} deep`,
    Array.from({ length: 400 }, (_, i) => `${' '.repeat(i * 2)}- level ${i}`).join('\n'),
    '['.repeat(20_000),
    '*'.repeat(50_000),
    `${'_a '.repeat(20_000)}`,
    `${'[a]('.repeat(5_000)}`,
  ];

  function assertSafe(root: Element, input: string): void {
    const forbidden = root.querySelectorAll('script, iframe, frame, frameset, style, svg, math, object, embed, form, link, meta, base, template, noscript, details');
    assert.equal(forbidden.length, 0, `forbidden element for ${JSON.stringify(input.slice(0, 60))}`);
    for (const e of Array.from(root.querySelectorAll('*'))) {
      for (const attr of Array.from(e.attributes)) {
        assert.ok(!/^on/i.test(attr.name), `event handler ${attr.name} for ${JSON.stringify(input.slice(0, 60))}`);
        assert.notEqual(attr.name, 'style');
        assert.ok(!/^\s*(?:javascript|vbscript|command|vscode|data:text)/i.test(attr.value), `dangerous value ${attr.value}`);
      }
    }
    for (const a of Array.from(root.querySelectorAll('a'))) {
      assert.match(a.getAttribute('href') ?? '#', /^(?:https?:|mailto:|#$)/i, `href for ${JSON.stringify(input.slice(0, 60))}`);
    }
    for (const img of Array.from(root.querySelectorAll('img'))) {
      assert.match(img.getAttribute('src') ?? '', /^data:image\/(?:png|jpe?g|gif|webp|bmp|avif);base64,/);
    }
  }

  test('hostile Markdown never produces script, handlers or dangerous links, and never hangs', () => {
    for (const input of hostile) {
      const t0 = performance.now();
      const once = renderMarkdown(input, fx.timers);
      assertSafe(once, input);
      const view = new MarkdownView(fx.timers);
      streamInto(view, input, fx.timers, rng(input.length), 50);
      assertSafe(view.element, input);
      // A hang guard, not a speed target (speed lives in `npm run bench`): generous enough for a
      // loaded 2-core CI machine, small enough that pathological input cannot stall the suite.
      assert.ok(performance.now() - t0 < 30_000, `hung: ${JSON.stringify(input.slice(0, 40))}`);
    }
  });

  test('raw HTML shows as text', () => {
    const e = renderMarkdown('Hello <b>bold</b> <img src=x onerror=alert(1)>\n\n<div>\nblock\n</div>', fx.timers);
    assert.equal(e.querySelector('b'), null);
    assert.match(e.textContent ?? '', /<b>bold<\/b> <img src=x onerror=alert\(1\)>/);
    assert.match(e.textContent ?? '', /<div>\nblock\n<\/div>/);
  });

  test('dangerous links render as plain text, web links as links, files as file links', () => {
    const e = renderMarkdown('[a](javascript:alert(1)) [b](command:x) [c](https://ok.example) [d](file:///home/u/x.ts#L7) [e](./src/y.ts:12) [f](#anchor)', fx.timers);
    const anchors = Array.from(e.querySelectorAll('a'));
    assert.deepEqual(
      anchors.map((a) => [a.textContent, a.getAttribute('href'), a.getAttribute('data-path'), a.getAttribute('data-line')]),
      [
        ['c', 'https://ok.example', null, null],
        ['d', '#', '/home/u/x.ts', '7'],
        ['e', '#', './src/y.ts', '12'],
      ],
    );
    assert.match(e.textContent ?? '', /^a b c d e f$/);
  });

  test('classifyHref', () => {
    assert.deepEqual(classifyHref('https://x.y/z'), { kind: 'web', href: 'https://x.y/z' });
    assert.deepEqual(classifyHref('java\tscript:alert(1)'), { kind: 'none' });
    assert.deepEqual(classifyHref('C:\\work\\a.ts'), { kind: 'file', path: 'C:\\work\\a.ts' });
    assert.deepEqual(classifyHref('file:///c%3A/work/a%20b.ts'), { kind: 'file', path: 'c:/work/a b.ts' });
    assert.deepEqual(classifyHref('a.ts:12'), { kind: 'file', path: 'a.ts', line: 12 });
    assert.deepEqual(classifyHref('data:image/png;base64,AAAA'), { kind: 'none' });
  });

  test('bidi and zero-width characters in path labels are made visible', () => {
    assert.equal(visibleLabel('src/\u202Egnp.js'), 'src/⟨U+202E⟩gnp.js');
    assert.equal(visibleLabel('a\u200Bb\nc'), 'a⟨U+200B⟩b⟨U+000A⟩c');
  });

  test('ANSI colours become classes; other escapes are dropped', () => {
    const pre = fx.win.document.createElement('pre');
    appendAnsi(pre, '\u001b[1;31mred bold\u001b[0m plain \u001b[38;5;10mbright green\u001b[39m \u001b]0;title\u0007\u001b[2K\ndone 50%\r100%');
    assert.equal(pre.textContent, 'red bold plain bright green \n100%');
    assert.equal(pre.querySelector('.ansi-fg-1.ansi-bold')?.textContent, 'red bold');
    assert.equal(pre.querySelector('.ansi-fg-10')?.textContent, 'bright green');
  });
});
