import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { agentAnswer, chunked } from '../../../bench/streamText';
import { MarkdownView, renderMarkdown, type MarkdownScheduler } from '../../../src/webview/markdown';
import { fixturesDir } from '../../support/paths';
import { rng } from '../../support/random';
import { setFollowingEnd, setPageFocused } from '../../../src/webview/markdown/viewLimits';
import { bareWindowEachTest } from './harness';

/**
 * Incremental rendering must give the DOM the whole text gives rendered at once: every streamed
 * message of the recorded transcripts in its recorded chunks, and documents built to break
 * naive incremental parsers split at every position (inside `**`, a link, a fence marker, a
 * table row, a surrogate pair, a CRLF) — with the intermediate state rendered at each split, so
 * the tail is re-parsed from every possible cut.
 */

/** Longer than any refresh interval or tail wait of the view: each chunk reaches the DOM. */
const renderEachChunkMs = 1_500;

/** Streamed messages of the recorded transcripts: consecutive chunks of one kind in one session. */
function recordedMessages(): { name: string; chunks: string[] }[] {
  const out: { name: string; chunks: string[] }[] = [];
  for (const dir of ['hermes', 'agents']) {
    for (const file of fs.readdirSync(path.join(fixturesDir, dir)).filter((f) => f.endsWith('.jsonl'))) {
      let current: { key: string; chunks: string[] } | undefined;
      const close = (): void => {
        if (current !== undefined && current.chunks.join('').trim() !== '') {
          out.push({ name: `${dir}/${file} #${out.length}`, chunks: current.chunks });
        }
        current = undefined;
      };
      for (const line of fs.readFileSync(path.join(fixturesDir, dir, file), 'utf8').split('\n')) {
        const update = sessionUpdate(line);
        if (update === undefined) {
          continue;
        }
        const kind = update.update.sessionUpdate;
        const text = update.update.content?.text;
        if ((kind === 'agent_message_chunk' || kind === 'agent_thought_chunk') && typeof text === 'string') {
          const key = `${update.sessionId}:${kind}`;
          if (current?.key !== key) {
            close();
            current = { key, chunks: [] };
          }
          current.chunks.push(text);
        } else {
          close();
        }
      }
      close();
    }
  }
  return out;
}

interface UpdateParams {
  readonly sessionId: string;
  readonly update: { readonly sessionUpdate: string; readonly content?: { readonly text?: unknown } };
}

function sessionUpdate(line: string): UpdateParams | undefined {
  if (!line.includes('"session/update"')) {
    return undefined;
  }
  const parsed = JSON.parse(line) as { msg?: { method?: string; params?: UpdateParams } };
  return parsed.msg?.method === 'session/update' ? parsed.msg.params : undefined;
}

/** Documents where a cut anywhere is a cut through some construct. */
const adversarial: readonly string[] = [
  'Some **bold** and *em* and ***both***, __under__ and `code` with ~~struck~~ text; a \\*literal\\* star.\n',
  'See [the docs](https://example.com/a?b=1 "Title") and [a file](src/a.ts#L3) and <https://auto.example> and [ref][r].\n\n[r]: https://ref.example/x\n',
  'Intro\n\n```ts\nconst a: number = 1; // one\n```\n\n~~~\nplain ~~~ text\n~~~\n\n````md\n```inner\nstill code\n```\n````\nAfter the fences.\n',
  '| file | before | after |\n| --- | ---: | :-: |\n| `a.ts` | **12** ms | [x](https://x.example) |\n| b.ts | 3 | 4 |\n\nAfter the table.\n',
  'Emoji 😀👍🏽 and 中文, é (e\u0301), a flag 🇫🇷 and 𝔘𝔫𝔦𝔠𝔬𝔡𝔢.\n\n- 😀 item\n- 🧪 *tested*\n',
  '1. one\n2. two\n   - nested **bold**\n   - nested `code`\n\n- [ ] task\n- [x] done\n\nTitle\n===\n\nSub\n---\n\n> quote\n> more\nlazy line\n',
  'Line one\r\nLine two\r\n\r\n```py\r\nprint("crlf")\r\n```\r\n\r\n| a | b |\r\n|---|---|\r\n| 1 | 2 |\r\n',
  '<b>raw</b> and <script>alert(1)</script>\n\n<div>\nblock html\n</div>\n\n[bad](javascript:alert(1)) ![img](data:image/png;base64,AAAA) ![remote](https://evil.example/p.png)\n',
  '    indented code\n    block\n\nA paragraph with a hard  \nbreak and a soft\nbreak.\n\n***\n\n- a\n\n- loose b\n',
];

suite('webview: incremental Markdown equals one-shot rendering', () => {
  const fx = bareWindowEachTest();

  /**
   * Streams `chunks` (rendering after each), ends the turn, and returns the DOM. `append`: the
   * chat's streaming path (the text and the chunk); `set`: the whole text each time.
   */
  let lastView: MarkdownView | undefined;
  function streamed(chunks: readonly string[], via: 'append' | 'set' = 'append'): string {
    const view = new MarkdownView(fx.timers);
    lastView = view;
    let text = '';
    for (const chunk of chunks) {
      text += chunk;
      if (via === 'append') {
        view.append(text, chunk);
      } else {
        view.set(text, true);
      }
      fx.timers.advance(renderEachChunkMs);
    }
    view.flush();
    return view.element.innerHTML;
  }

  const once = (text: string): string => renderMarkdown(text, fx.timers).innerHTML;

  test('every streamed message of the recorded transcripts, in its recorded chunks', () => {
    const messages = recordedMessages();
    assert.ok(messages.length >= 20, `recorded messages: ${messages.length}`);
    for (const m of messages) {
      const expected = once(m.chunks.join(''));
      assert.equal(streamed(m.chunks), expected, m.name);
      assert.equal(streamed(m.chunks, 'set'), expected, `${m.name} (whole text each time)`);
    }
  });

  adversarial.forEach((doc, d) => {
    test(`document ${d + 1} split at every position gives the one-shot DOM (${doc.length} positions)`, () => {
      const expected = once(doc);
      for (let i = 1; i < doc.length; i++) {
        assert.equal(streamed([doc.slice(0, i), doc.slice(i)]), expected, `split at ${i}: ${JSON.stringify(doc.slice(Math.max(0, i - 8), i))} | ${JSON.stringify(doc.slice(i, i + 8))}`);
      }
    });
  });

  test('all documents together, cut into random chunks of 1–40 characters (12 streams)', () => {
    const doc = adversarial.join('\n');
    const expected = once(doc);
    const random = rng(20);
    for (let run = 0; run < 12; run++) {
      const chunks: string[] = [];
      for (let i = 0; i < doc.length; ) {
        const n = 1 + Math.floor(random() * 40);
        chunks.push(doc.slice(i, i + n));
        i += n;
      }
      assert.equal(streamed(chunks), expected, `run ${run}`);
      assert.equal(streamed(chunks, 'set'), expected, `run ${run} (whole text each time)`);
    }
  });

  test('append() given a text that does not continue the shown one renders that text whole', () => {
    const view = new MarkdownView(fx.timers);
    view.append('# One\n\nfirst', '# One\n\nfirst');
    view.append('# Two\n\nsecond, longer', 'longer'); // not "# One…" + "longer": taken as a new text
    view.flush();
    assert.equal(view.element.innerHTML, once('# Two\n\nsecond, longer'));
  });

  test('the benchmark answer in 4-character chunks, rendered as a paced stream would be', () => {
    const text = agentAnswer(12_000);
    const view = new MarkdownView(fx.timers);
    let shown = '';
    for (const chunk of chunked(text, 3_000)) {
      shown += chunk;
      view.append(shown, chunk);
      fx.timers.advance(4); // 250 chunks a second: the view renders on its own schedule
    }
    view.flush();
    assert.equal(view.element.innerHTML, once(text));
  });

  /** Places a refresh of `shown` characters, then the rest of the answer in random patches; checks the end DOM. */
  function placeInSteps(view: MarkdownView, text: string, shown: number): void {
    const random = rng(7);
    for (let at = shown; at < text.length; ) {
      at = Math.min(text.length, at + 500 + Math.floor(random() * 6_000));
      view.set(text.slice(0, at), true);
      // Sometimes every waiting task runs, sometimes the next patch comes first.
      fx.timers.advance(random() < 0.3 ? 0 : 1 + Math.floor(random() * 300));
    }
    view.flush();
    assert.equal(view.element.innerHTML, once(text));
  }

  const blocks = (v: MarkdownView): number => v.element.querySelectorAll('.md-group > *').length;

  test('finished blocks a refresh brings are placed 8 KB a task at most, patches arriving in between; the DOM equals the one-shot render', () => {
    const text = agentAnswer(40_000);
    const view = new MarkdownView(fx.timers);
    view.set(text.slice(0, 20_000), true);
    const placed = blocks(view);
    const placedChars = view.element.textContent?.length ?? 0;
    assert.ok(placed > 0 && fx.timers.count > 0, 'one task placed the first blocks and left the rest for the next');
    assert.ok(placedChars < 8_192 + 2_048, `the first task showed ${placedChars} characters`);
    fx.timers.advance(0);
    assert.ok(blocks(view) > placed, 'the next tasks placed the rest (and the open tail)');
    placeInSteps(view, text, 20_000);
  });

  test('on a slow machine a task stops before the batch that would cross its budget (at least one 2 KB batch)', () => {
    const text = agentAnswer(40_000);
    const frozen = new MarkdownView(fx.timers);
    frozen.set(text.slice(0, 20_000), true);
    // A clock that moves 20 ms each time the view reads it: every batch looks that expensive, so a
    // second one would end past the task's budget (finishedMsPerTask, 30 ms).
    let readings = 0;
    const slow: MarkdownScheduler = {
      now: () => fx.timers.now() + 20 * ++readings,
      setTimeout: (cb, ms) => fx.timers.setTimeout(cb, ms),
      clearTimeout: (h) => fx.timers.clearTimeout(h),
      inputPending: () => false,
      whenIdle: (cb) => fx.timers.whenIdle(cb),
      cancelIdle: (h) => fx.timers.cancelIdle(h),
    };
    const view = new MarkdownView(slow);
    view.set(text.slice(0, 20_000), true);
    assert.ok(blocks(view) > 0, 'the first batch is placed whatever the clock says');
    assert.ok(blocks(view) < blocks(frozen), `a slow task placed ${blocks(view)} blocks, a fast one ${blocks(frozen)}`);
    placeInSteps(view, text, 20_000);
  });

  suite('a turn\'s end (flush) after the text was held', () => {
    teardown(() => {
      setPageFocused(true);
      setFollowingEnd(true);
    });

    /** A view that showed the title and holds the rest of `text` (its refresh not due yet). */
    function holding(text: string): MarkdownView {
      const view = new MarkdownView(fx.timers);
      const title = text.slice(0, text.indexOf('\n\n') + 2);
      view.append(title, title);
      view.append(text, text.slice(title.length));
      assert.ok((view.element.textContent?.length ?? 0) < 200, 'the rest is held until its refresh');
      return view;
    }

    test('in a chat without the keyboard, scrolled up, it is placed in order a budgeted task at a time; the DOM equals the one-shot render', () => {
      const text = `${agentAnswer(40_000)}\n\nTHE END\n`;
      setPageFocused(false);
      setFollowingEnd(false);
      const view = holding(text);
      view.flush();
      const shown = view.element.textContent ?? '';
      assert.ok(shown.length < 8_192 + 2_048 && fx.timers.count > 0, `the first task showed ${shown.length} characters and left the rest for the next`);
      assert.ok(shown.includes('Step 2:') && !shown.includes('THE END'), 'the text from where it was held on, not its end');
      fx.timers.advance(0);
      assert.equal(fx.timers.count, 0, 'nothing left waiting');
      assert.equal(view.element.innerHTML, once(text));
    });

    /** Comments a view holds (the places of blocks not rendered yet). */
    const places = (view: MarkdownView): number => {
      const walker = view.element.ownerDocument.createTreeWalker(view.element, 128 /* NodeFilter.SHOW_COMMENT */);
      let n = 0;
      while (walker.nextNode() !== null) {
        n++;
      }
      return n;
    };

    test('in a chat without the keyboard that follows the reply, the end shows in the first task, then the blocks from the end back; the DOM equals the one-shot render', () => {
      const text = `${agentAnswer(40_000)}\n\nTHE END\n`;
      setPageFocused(false);
      const view = holding(text);
      view.flush();
      const first = view.element.textContent ?? '';
      assert.ok(first.endsWith('THE END'), 'the end is on screen after the first task');
      assert.ok(first.length < 8_192 + 2_048 && !first.includes('Step 2:'), `the first task showed ${first.length} characters, none from the start of what was held`);
      assert.ok(places(view) > 50 && fx.timers.count > 0, `each block not rendered yet has its place (${places(view)}); the rest follows in the next tasks`);
      fx.timers.advance(0);
      assert.equal(fx.timers.count, 0, 'nothing left waiting');
      assert.equal(places(view), 0, 'no place left behind');
      assert.equal(view.element.innerHTML, once(text));
    });

    test('from the end back: text that comes meanwhile goes after it, a new text replaces it, a link definition at the end renders in order', () => {
      const text = `${agentAnswer(40_000)}\n\nTHE END\n`;
      setPageFocused(false);
      const grown = holding(text);
      grown.flush();
      grown.append(`${text}\nand more`, '\nand more');
      fx.timers.advance(2_000);
      grown.flush();
      fx.timers.advance(0);
      assert.equal(grown.element.innerHTML, once(`${text}\nand more`), 'appended while the blocks before it were placed');
      const replaced = holding(text);
      replaced.flush();
      replaced.set('# Another\n\ntext');
      fx.timers.advance(2_000);
      replaced.flush();
      assert.equal(replaced.element.innerHTML, once('# Another\n\ntext'), 'a different text');
      assert.equal(places(replaced), 0);
      // A definition at the end changes a link near the start: rendered in order (the view's usual path).
      const linked = `# Links\n\nSee [the guide][g].\n\n${agentAnswer(40_000)}\n\n[g]: https://example.com/guide\n`;
      const view = holding(linked);
      view.flush();
      assert.equal(places(view), 0, 'no blocks reserved');
      fx.timers.advance(0);
      assert.equal(view.element.innerHTML, once(linked));
      assert.ok(view.element.querySelector('a[href="https://example.com/guide"]') !== null);
    });

    test('in the chat with the keyboard it is placed in the same task', () => {
      const text = agentAnswer(40_000);
      const view = holding(text);
      view.flush();
      assert.equal(view.element.innerHTML, once(text));
    });

    test('in the chat with the keyboard, a key waiting stops it after a batch: the key goes first, the rest follows in the next task', () => {
      const text = `${agentAnswer(40_000)}\n\nTHE END\n`;
      const view = holding(text);
      fx.timers.keyWaits = true;
      view.flush();
      const shown = view.element.textContent ?? '';
      assert.ok(shown.length > 200 && shown.length < 2_048 + 200 && fx.timers.count > 0, `one batch shown (${shown.length} characters), the rest left for the next task`);
      assert.ok(shown.endsWith('THE END') && !shown.includes('Step 2:'), 'following the reply: its end, and the blocks just above it');
      fx.timers.keyWaits = false;
      fx.timers.advance(0);
      assert.equal(fx.timers.count, 0, 'the next task placed all the rest');
      assert.equal(view.element.innerHTML, once(text));
      // A text shown whole at once (a snapshot's message, a tool's output) never waits, key or not.
      fx.timers.keyWaits = true;
      const whole = new MarkdownView(fx.timers);
      whole.set(text, false, true);
      assert.equal(whole.element.innerHTML, once(text));
      assert.equal(fx.timers.count, 0);
    });

    test('a second flush while one is being placed finishes it at once', () => {
      const text = agentAnswer(40_000);
      setPageFocused(false);
      const view = holding(text);
      view.flush();
      setPageFocused(true);
      view.flush();
      assert.equal(view.element.innerHTML, once(text));
      fx.timers.advance(0);
      assert.equal(view.element.innerHTML, once(text), 'and nothing is placed twice');
    });

    test('every recorded message and all the adversarial documents, ended in a chat without the keyboard', () => {
      setPageFocused(false);
      const settled = (chunks: readonly string[]): string => {
        streamed(chunks);
        fx.timers.advance(0);
        return lastView?.element.innerHTML ?? '';
      };
      for (const m of recordedMessages()) {
        assert.equal(settled(m.chunks), once(m.chunks.join('')), m.name);
      }
      const doc = adversarial.join('\n');
      const random = rng(21);
      const chunks: string[] = [];
      for (let i = 0; i < doc.length; ) {
        const n = 1 + Math.floor(random() * 40);
        chunks.push(doc.slice(i, i + n));
        i += n;
      }
      assert.equal(settled(chunks), once(doc));
      // Held long enough to be rendered from the end back: every document after a long reply (the
      // one with a link definition is rendered in order; see the test before).
      for (const [d, each] of adversarial.entries()) {
        const long = `${agentAnswer(20_000)}\n\n${each}`;
        const view = holding(long);
        view.flush();
        fx.timers.advance(0);
        assert.equal(view.element.innerHTML, once(long), `document ${d + 1} after a long reply`);
      }
    });

    test('a fence still open at the end is closed and highlighted, budgeted or not', () => {
      const text = `${agentAnswer(20_000)}\n\n\`\`\`ts\nconst a = 1;\nconst b = 2;\n`;
      setPageFocused(false);
      const view = holding(text);
      view.flush();
      fx.timers.advance(0);
      assert.equal(view.element.innerHTML, once(text));
    });
  });

  test('the R4 hostile payloads, each in random chunks', () => {
    const file = path.join(fixturesDir, 'hostile', 'payloads.json');
    const { payloads } = JSON.parse(fs.readFileSync(file, 'utf8')) as { payloads: { id: string; text?: unknown }[] };
    const random = rng(4);
    let checked = 0;
    for (const p of payloads) {
      if (typeof p.text !== 'string') {
        continue; // generated by the UI suite (huge or deeply nested Markdown)
      }
      const text = p.text.replace(/\{\{B\}\}/g, 'console.log(1)');
      const chunks = chunked(text, Math.max(1, Math.min(text.length, 1 + Math.floor(random() * 12))));
      assert.equal(streamed(chunks), once(text), p.id);
      checked++;
    }
    assert.ok(checked >= 50, `payloads: ${checked}`);
  });
});
