import * as assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import type { ChatSession } from '../../src/app/chatSession';
import type { ViewContext } from '../../src/session/viewProjection';
import { toMarkdown } from '../../src/session/transcript';
import { WebviewChannel } from '../../src/views/chat/webviewChannel';
import { chatOver } from '../builders/boundChat';
import { SessionHarness, textChunk, toolCall, toolUpdate } from '../builders/sessionBuilders';
import type { PageElement } from './pageTypes';
import { type BrowserModule, type FakeHostModule, importEsm, openFakeHostPage, PageWebview, twoFrames } from './replayView';

const context = (): ViewContext => ({ agentName: 'Hermes', readOnly: false, acceptsImages: false, pendingPermissions: 0, now: Date.now(), relativePath: (p) => p });

/** Every turn's words: what each entry shows, findable (`marker-<turn>`) and checkable. */
const answer = (i: number): string =>
  `Turn ${i} answer marker-${i}: the cache key of module ${i} is built from the folder.\n\n- it reads the folder\n- it hashes the path\n\n${'The rest of the explanation goes on for a while. '.repeat(1 + (i % 4))}`;

/** An answer of 90 KB (1,000 paragraphs): the webview renders it a piece per task. */
const longAnswer = `${Array.from({ length: 1_000 }, (_, k) => `Paragraph ${k} of a very long answer: it goes on and on, as long answers do, for a while.`).join('\n\n')}\n\nlong-needle at the end.`;

/** A real session state of `turns` finished turns (prompt, Markdown answer, shell call with output, footer). */
function longSession(turns: number): { harness: SessionHarness; chat: ChatSession; changed: () => void } {
  const harness = new SessionHarness();
  for (let i = 0; i < turns; i++) {
    harness.prompt(`Question ${i}: what about module ${i}?`);
    // Places a card keeps out of sight, for find: turn 5 thought at length (a thought is folded once
    // done), turn 6 read a 400-line file (a read's card starts folded; the output is Markdown), turn
    // 7 ran a 1,000-line test (shown clipped to head and tail, in a box that scrolls on its own),
    // turn 8 answered with a code block of one long line (it scrolls sideways), turn 9 at length
    // after a short thought.
    if (i === 5) {
      harness.update(textChunk(`Thinking about it. ${'Some thought goes on. '.repeat(200)}thought-needle here.`, 'agent_thought_chunk'));
    }
    if (i === 9) {
      harness.update(textChunk('A short thought.', 'agent_thought_chunk'));
    }
    harness.update(textChunk(i === 8 ? `${answer(i)}\n\n\`\`\`text\n${'wide '.repeat(400)}wide-needle\n\`\`\`\n` : i === 9 ? longAnswer : answer(i)));
    harness.update(toolCall(`t${i}`, { title: i === 6 ? 'Read notes.md (title-needle)' : `npm test -- module${i}`, kind: i === 6 ? 'read' : 'execute', status: 'in_progress' }));
    const lines = i === 7 ? 1_000 : i === 6 ? 400 : 3 + (i % 9) * 4;
    const line = (k: number): string =>
      i === 6 && k === 350 ? 'read-needle in the file' : i === 6 && k === 200 ? 'title-needle in the file too' : i === 4 && k === 2 ? 'Tests: 1 failed, 2 passed' : `PASS module${i} case ${k}`;
    // Turn 4's tests failed: its card says "Failed" too, which find must not count.
    harness.update(toolUpdate(`t${i}`, { status: i === 4 ? 'failed' : 'completed', content: [{ type: 'content', content: { type: 'text', text: Array.from({ length: lines }, (_, k) => line(k)).join('\n') } }] }));
    harness.end();
  }
  const { chat, changed } = chatOver(harness);
  return { harness, chat, changed };
}

interface Shown {
  readonly ids: string[];
  readonly pending: number;
  readonly rows: number;
  readonly nodes: number;
  readonly top: number;
  readonly height: number;
  readonly scrollHeight: number;
}

suite('the virtualized transcript: a 5,000-entry session (Chromium, fake host, the real channel)', function () {
  this.timeout(300_000);
  let browser: { context: BrowserContext; close(): Promise<void> } | undefined;
  let host: { url: string; close(): Promise<void> } | undefined;
  let page: Page;
  let webview: PageWebview;
  let channel: WebviewChannel;
  let session: ReturnType<typeof longSession>;
  const copies: string[] = [];
  const turns = 1_250;

  suiteSetup(async () => {
    const browserMod = await importEsm<BrowserModule>('test', 'harness', 'browser.mjs');
    const fake = await importEsm<FakeHostModule>('test', 'webview-host', 'fakeHost.mjs');
    host = await fake.startFakeHost();
    // A tall view: scrolling 5,000 entries end to end takes fewer steps.
    browser = await browserMod.launchBrowser({ viewport: { width: 520, height: 2_000 } });
  });

  setup(openChat);

  /** A fresh page on a new long session, bound to the real channel, its first rows laid out. */
  async function openChat(): Promise<void> {
    assert.ok(browser !== undefined && host !== undefined);
    session = longSession(turns);
    page = await openFakeHostPage(browser.context, host.url);
    webview = new PageWebview(page);
    channel = new WebviewChannel(webview, {
      context,
      flushMs: 16,
      // The host's answer to "copy all" (src/views/chatMessages.ts): the whole transcript as Markdown.
      onMessage: (message) => {
        if (message.type === 'transcript/copy') {
          copies.push(toMarkdown(session.chat.controller.state, { timings: true }));
        }
      },
    });
    channel.bind(session.chat);
    // (The page said `webview/ready` before: PageWebview's first poll hands it to the channel.)
    await settled();
  }

  async function closeChat(): Promise<void> {
    channel.dispose();
    webview.dispose();
    copies.length = 0;
    await page.close().catch(() => undefined);
  }

  teardown(closeChat);

  suiteTeardown(async () => {
    await browser?.close();
    await host?.close();
  });

  const log = (): ReturnType<Page['locator']> => page.getByRole('log', { name: 'Conversation' });
  const ids = (): string[] => session.chat.controller.state.entries.map((e) => e.id);

  /** What the rows show: the entries with a row, in DOM order, and those in the view. */
  const shown = (): Promise<Shown> =>
    log().evaluate((l: PageElement) => {
      const view = l.getBoundingClientRect();
      const rows = Array.from(l.querySelectorAll('.transcript-list > .entry-row'));
      const inView = rows.filter((r) => {
        const b = r.getBoundingClientRect();
        return b.bottom > view.top + 1 && b.top < view.bottom - 1;
      });
      return {
        ids: inView.map((r) => r.querySelector('[data-entry-id]')?.getAttribute('data-entry-id') ?? '?'),
        pending: l.querySelectorAll('.entry-row.pending').length,
        rows: rows.length,
        nodes: l.querySelectorAll('*').length,
        top: l.scrollTop,
        height: l.clientHeight,
        scrollHeight: l.scrollHeight,
      };
    });

  /** Scrolls by `views` of the view's height, waits two frames, and reads what is shown (one round trip). */
  const scrollBy = (views: number): Promise<Shown> =>
    log().evaluate(
      (l: PageElement, by: number) =>
        new Promise<Shown>((resolve) => {
          l.scrollTop += l.clientHeight * by;
          const w = globalThis as unknown as { requestAnimationFrame(cb: () => void): void };
          w.requestAnimationFrame(() =>
            w.requestAnimationFrame(() => {
              const view = l.getBoundingClientRect();
              const rows = Array.from(l.querySelectorAll('.transcript-list > .entry-row'));
              const inView = rows.filter((r) => {
                const b = r.getBoundingClientRect();
                return b.bottom > view.top + 1 && b.top < view.bottom - 1;
              });
              resolve({
                ids: inView.map((r) => r.querySelector('[data-entry-id]')?.getAttribute('data-entry-id') ?? '?'),
                pending: l.querySelectorAll('.entry-row.pending').length,
                rows: rows.length,
                nodes: l.querySelectorAll('*').length,
                top: l.scrollTop,
                height: l.clientHeight,
                scrollHeight: l.scrollHeight,
              });
            }),
          );
        }),
      views,
    );

  /**
   * Until nothing is on its way: posts delivered, rows filled, two frames, and the view where it
   * was the time before (a key's scroll may be animated: Home is at 0 only when it has ended).
   */
  async function settled(): Promise<Shown> {
    let top: number | undefined;
    for (let i = 0; i < 200; i++) {
      channel.flush();
      await webview.idle();
      await twoFrames(page);
      const s = await shown();
      if (s.pending === 0 && s.rows > 0 && s.top === top) {
        return s;
      }
      top = s.top;
      await new Promise((r) => setTimeout(r, 20));
    }
    throw new Error(`rows still pending: ${JSON.stringify(await shown())}`);
  }

  test('opens at the end with a few rows, and shows every entry in order when scrolled end to end', async () => {
    const all = ids();
    assert.equal(all.length, turns * 4);
    let s = await shown();
    assert.ok(s.rows < 120, `${s.rows} rows for ${all.length} entries`);
    assert.ok(s.nodes < 5_000, `${s.nodes} DOM nodes in the log`);
    assert.ok(s.scrollHeight - s.top - s.height <= 1, 'pinned to the bottom');
    assert.equal(s.ids.at(-1), all.at(-1));
    // Top to bottom a view at a time (Home, then page by page), every entry seen in order.
    await log().focus();
    await page.keyboard.press('Home');
    s = await settled();
    assert.equal(s.top, 0);
    assert.equal(s.ids[0], all[0], 'Home reaches the first entry');
    const seen: string[] = [];
    const note = (list: readonly string[]): void => {
      for (const id of list) {
        if (seen.at(-1) !== id && !seen.includes(id)) {
          seen.push(id);
        }
      }
    };
    note(s.ids);
    for (let step = 0; step < 3_000 && seen.length < all.length; step++) {
      s = await scrollBy(0.9);
      if (s.pending > 0) {
        s = await settled();
      }
      const first = all.indexOf(s.ids[0] ?? '');
      assert.ok(first >= 0, `the view shows known entries: ${s.ids.join(',')}`);
      assert.deepEqual(s.ids, all.slice(first, first + s.ids.length), `entries in order at ${s.top}px`);
      assert.ok(first <= seen.length, `no entry skipped: the view starts at ${first}, ${seen.length} seen`);
      note(s.ids);
      assert.ok(s.rows < 150 && s.nodes < 5_000, `${s.rows} rows, ${s.nodes} nodes`);
    }
    assert.deepEqual(seen, all);
    // End (the keyboard) is the bottom again.
    await page.keyboard.press('End');
    s = await settled();
    assert.equal(s.ids.at(-1), all.at(-1));
  });

  /** The entry at the top of the view (or entry `id`, if it has a row) and its top against the view's. */
  const entryAt = (id?: string): Promise<{ id: string; y: number }> =>
    log().evaluate((l: PageElement, want: string | undefined) => {
      const view = l.getBoundingClientRect();
      const rows = Array.from(l.querySelectorAll('.transcript-list > .entry-row'));
      const idOf = (r: PageElement): string => r.querySelector('[data-entry-id]')?.getAttribute('data-entry-id') ?? '';
      const row = want === undefined ? rows.find((r) => r.getBoundingClientRect().bottom > view.top + 20) : rows.find((r) => idOf(r) === want);
      return { id: row === undefined ? '' : idOf(row), y: row === undefined ? Number.NaN : row.getBoundingClientRect().top - view.top };
    }, id);

  test('Home, End and Page Up move the view all the way on a slow machine (the CPU throttled up to 3×, a fresh chat each time)', async () => {
    // The browser's keys are animated scrolls; the rows measured on their way corrected the view,
    // which ended the animation: before the fix Home stopped 194–3,286 px short of the top in 3 of
    // 10 such rounds, End short of the bottom, and about one Page Up in 50 moved 776–1,028 px, not 1,631.
    const tops: number[] = [];
    const pages: number[] = [];
    for (let round = 0; round < 6; round++) {
      if (round > 0) {
        await closeChat();
        await openChat();
      }
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 + (round % 3) });
      await log().focus();
      await page.keyboard.press('Home');
      let s = await settled();
      tops.push(s.top);
      assert.equal(s.ids[0], ids()[0], `round ${round}: Home shows the first entry`);
      await page.keyboard.press('End');
      s = await settled();
      assert.ok(s.scrollHeight - s.top - s.height <= 1, `round ${round}: End is the bottom`);
      assert.equal(s.ids.at(-1), ids().at(-1));
      for (let i = 0; i < 8; i++) {
        const before = await entryAt();
        await page.keyboard.press('PageUp');
        await settled();
        pages.push(Math.round((await entryAt(before.id)).y - before.y));
      }
      await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 });
    }
    assert.deepEqual(tops, tops.map(() => 0), 'Home is the top');
    // A page is the browser's: 87.5% of the view; what was at the top moved down by that.
    const view = (await shown()).height;
    assert.ok(pages.every((p) => Math.abs(p - view * 0.875) <= 2), `Page Up moved the entries ${pages.join(', ')} px (the view is ${view} px)`);
  });

  test('a wheel scroll up stays where it went while heights are corrected; Jump to latest follows the reply again', async () => {
    const box = await log().boundingBox();
    assert.ok(box !== null);
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
    for (let i = 0; i < 8; i++) {
      await page.mouse.wheel(0, -1_500);
    }
    const jump = page.getByRole('button', { name: 'Jump to latest' });
    await jump.waitFor({ state: 'visible', timeout: 5_000 });
    await settled();
    // The entry at the top of the view stays there (±2 px) while rows around it are measured.
    const before = await entryAt();
    for (let i = 0; i < 5; i++) {
      await settled();
    }
    const after = await entryAt();
    assert.equal(after.id, before.id);
    assert.ok(Math.abs(after.y - before.y) <= 2, `the view moved ${after.y - before.y} px by itself`);
    // A reply streams at the end: the view stays put.
    const { harness, changed } = session;
    harness.prompt('And one more thing?');
    changed();
    for (let i = 0; i < 10; i++) {
      harness.update(textChunk(`Streaming part ${i} of the reply. `.repeat(20) + '\n\n'));
      changed();
      await settled();
      const now = await entryAt();
      assert.equal(now.id, before.id, 'the view stays on what the user reads');
    }
    assert.ok(await jump.isVisible());
    await jump.click();
    let s = await settled();
    assert.ok(s.scrollHeight - s.top - s.height <= 1, 'Jump to latest goes to the bottom');
    for (let i = 0; i < 5; i++) {
      harness.update(textChunk(`Followed part ${i}. `.repeat(30) + '\n\n'));
      changed();
      await page.getByText(`Followed part ${i}.`).first().waitFor({ timeout: 10_000 });
      s = await settled();
      assert.ok(s.scrollHeight - s.top - s.height <= 1, `following the reply: ${s.scrollHeight - s.top - s.height} px from the bottom`);
    }
    assert.equal(await jump.isVisible(), false);
  });

  test('Find in chat (Ctrl+F) reaches an entry far off screen and highlights the match', async () => {
    await log().focus();
    await page.keyboard.press('Control+f');
    const field = page.getByRole('searchbox', { name: 'Find in chat' });
    await field.waitFor({ timeout: 10_000 });
    await field.fill('marker-3:');
    const status = page.getByRole('search', { name: 'Find in chat' }).getByRole('status');
    await status.filter({ hasText: '1 of 1' }).waitFor({ timeout: 10_000 });
    await settled();
    const mark = async (): Promise<{ text: string; inView: boolean; entry: string }> =>
      page.evaluate(() => {
        const w = globalThis as unknown as { CSS: { highlights: Map<string, Set<{ toString(): string; getBoundingClientRect(): { top: number; bottom: number }; startContainer: { parentElement: PageElement | null } }>> }; document: { querySelector(s: string): PageElement | null } };
        const range = Array.from(w.CSS.highlights.get('hermes-find') ?? [])[0];
        const view = w.document.querySelector('[role="log"]')?.getBoundingClientRect();
        const box = range?.getBoundingClientRect();
        const entry = (range?.startContainer.parentElement as unknown as { closest(s: string): PageElement | null } | null)?.closest('[data-entry-id]');
        return { text: range?.toString() ?? '', inView: box !== undefined && view !== undefined && box.top >= view.top && box.bottom <= view.bottom, entry: entry?.getAttribute('data-entry-id') ?? '' };
      });
    let m = await mark();
    assert.equal(m.text, 'marker-3:');
    assert.ok(m.inView, 'the match is in view');
    assert.equal(m.entry, ids()[13], 'the answer of turn 3');
    // Several matches: Enter steps through them, across entries far apart, and wraps around.
    await field.fill('what about module 1249');
    await status.filter({ hasText: '1 of 1' }).waitFor({ timeout: 10_000 });
    await field.fill('module 1249');
    await status.filter({ hasText: '1 of 2' }).waitFor({ timeout: 10_000 });
    await field.press('Enter');
    await status.filter({ hasText: '2 of 2' }).waitFor({ timeout: 10_000 });
    await settled();
    m = await mark();
    assert.equal(m.text.toLowerCase(), 'module 1249');
    assert.ok(m.inView);
    assert.equal(m.entry, ids()[4 * 1249 + 1], 'the answer of turn 1249');
    await field.press('Enter');
    await status.filter({ hasText: '1 of 2' }).waitFor({ timeout: 10_000 });
    await field.press('Shift+Enter');
    await status.filter({ hasText: '2 of 2' }).waitFor({ timeout: 10_000 });
    await field.fill('no such words anywhere');
    await status.filter({ hasText: 'No results' }).waitFor({ timeout: 10_000 });
    await field.press('Escape');
    assert.equal(await field.isVisible(), false);
  });

  test('Find in chat shows a match a card keeps out of sight: a folded thought or card, a capped box, a long line', async () => {
    // The query, its entry, whether the match is in a tool card's body, and how many times to step (Enter).
    const cases: [query: string, entry: number, inBody: boolean, steps: number][] = [
      ['module7 case 998', 4 * 7 + 2, true, 0], // the tail of a clipped output, far below the top of its 320 px box
      ['module7 case 960', 4 * 7 + 2, true, 0],
      ['thought-needle', 4 * 5 + 1, false, 0], // a folded thought (its text is put in when it opens)
      ['title-needle', 4 * 6 + 2, false, 0], // a folded card's title…
      ['title-needle', 4 * 6 + 2, true, 1], // …and the next match, in its output (the card opens): not the title again
      ['read-needle', 4 * 6 + 2, true, 0], // the same card's long Markdown output, laid out only once shown
      ['failed', 4 * 4 + 2, true, 0], // in a failed card's output, not its status ("Failed")
      ['wide-needle', 4 * 8 + 1, false, 0], // the end of a code block's long line
      ['long-needle', 4 * 9 + 1, false, 0], // the end of a 90 KB answer, rendered a piece per task
    ];
    const field = page.getByRole('searchbox', { name: 'Find in chat' });
    const status = page.getByRole('search', { name: 'Find in chat' }).getByRole('status');
    for (const [query, index, inBody, steps] of cases) {
      // Each from the bottom of the chat, the cards folded as they were.
      await log().focus();
      await page.keyboard.press('Control+f');
      await field.waitFor({ timeout: 10_000 });
      await field.fill(query);
      for (let step = 0; step < steps; step++) {
        // Two matches here (the bar says nothing until the query is answered).
        await status.filter({ hasText: `${step + 1} of 2` }).waitFor({ timeout: 10_000 });
        await field.press('Enter');
      }
      const expected = { text: query, entry: ids()[index], inView: true, inBody };
      // The mark: its text, its entry, whether every box between it and the log shows it, and
      // whether it is in a tool card's body.
      const mark = (): Promise<{ text: string; entry: string; inView: boolean; inBody: boolean }> =>
        page.evaluate(() => {
          interface Box {
            readonly parentElement: Box | null;
            getBoundingClientRect(): { top: number; bottom: number; left: number; right: number };
            getAttribute(name: string): string | null;
            readonly classList: { contains(name: string): boolean };
          }
          const w = globalThis as unknown as { CSS: { highlights: Map<string, Set<{ toString(): string; getBoundingClientRect(): { top: number; bottom: number; left: number; right: number }; startContainer: { parentElement: Box | null } }>> } };
          const range = Array.from(w.CSS.highlights.get('hermes-find') ?? [])[0];
          const r = range?.getBoundingClientRect();
          let inView = r !== undefined;
          let entry = '';
          let inBody = false;
          for (let box = range?.startContainer.parentElement ?? null; box !== null && r !== undefined; box = box.parentElement) {
            const b = box.getBoundingClientRect();
            inView &&= r.top >= b.top - 1 && r.bottom <= b.bottom + 1 && r.left >= b.left - 1 && r.right <= b.right + 1;
            entry ||= box.getAttribute('data-entry-id') ?? '';
            inBody ||= box.classList.contains('tool-body');
            if (box.getAttribute('role') === 'log') {
              break;
            }
          }
          return { text: range?.toString() ?? '', entry, inView, inBody };
        });
      let m = await mark();
      for (let i = 0; i < 100 && (m.text !== query || m.inBody !== inBody); i++) {
        await new Promise((r) => setTimeout(r, 50));
        m = await mark();
      }
      await settled();
      assert.deepEqual(await mark(), expected, `${query} (${steps} steps)`);
      await field.press('Escape');
      await log().evaluate((l: PageElement) => {
        l.scrollTop = l.scrollHeight;
      });
      await settled();
    }
  });

  test('Find in chat keeps its mark on a reply that streams on: an open code fence, then the fence closed', async () => {
    const { harness, changed } = session;
    harness.prompt('Show me the code.');
    changed();
    // The match is in the fence's last, unfinished line.
    harness.update(textChunk("Here it is:\n\n```ts\nconst first = 1;\nconst key = 'fence-needle"));
    changed();
    await page.getByText("const key = 'fence-needle").waitFor({ timeout: 10_000 });
    await log().focus();
    await page.keyboard.press('Control+f');
    const field = page.getByRole('searchbox', { name: 'Find in chat' });
    await field.waitFor({ timeout: 10_000 });
    await field.fill('fence-needle');
    const status = page.getByRole('search', { name: 'Find in chat' }).getByRole('status');
    await status.filter({ hasText: '1 of 1' }).waitFor({ timeout: 10_000 });
    const marked = (): Promise<string> =>
      page.evaluate(() => {
        const w = globalThis as unknown as { CSS: { highlights: Map<string, Set<{ toString(): string }>> } };
        return Array.from(w.CSS.highlights.get('hermes-find') ?? [])[0]?.toString() ?? '';
      });
    const markedSoon = async (): Promise<string> => {
      let text = await marked();
      for (let i = 0; i < 40 && text !== 'fence-needle'; i++) {
        await new Promise((r) => setTimeout(r, 50));
        text = await marked();
      }
      return text;
    };
    assert.equal(await markedSoon(), 'fence-needle', 'marked in the unfinished line');
    // The line ends (it joins the fence's finished lines), more lines come, then the fence closes
    // (highlighted anew) and a paragraph follows: the mark stays on the same words.
    const steps: [chunk: string, shown: string][] = [
      ["';\n", 'const first = 1;'],
      ['const more = 2;\nconst last', 'const last'],
      [' = 3;\n```\n\nThat is all', 'That is all'],
      [' of it.\n\nDone.', 'Done.'],
    ];
    for (const [chunk, shown] of steps) {
      harness.update(textChunk(chunk));
      changed();
      await page.getByText(shown).first().waitFor({ timeout: 10_000 });
      await settled();
      assert.equal(await markedSoon(), 'fence-needle', `after ${JSON.stringify(chunk)}`);
    }
    harness.end();
    changed();
    await settled();
    assert.equal(await markedSoon(), 'fence-needle', 'after the turn ended');
    await field.press('Escape');
  });

  test('the log keeps its role and name, and says how many entries are outside it', async () => {
    const snapshot = await log().ariaSnapshot();
    assert.match(snapshot, /log "Conversation"/);
    const description = await log().evaluate((l: PageElement) => l.ownerDocument.querySelectorAll('#transcript-extent')[0]?.textContent ?? '');
    assert.match(description, /^Entries [\d,]+ to 5000 of 5000 are shown/);
    assert.ok(await log().evaluate((l: PageElement) => l.getAttribute('aria-describedby') === 'transcript-extent'));
  });

  test('copy all (select all, then copy) hands the whole transcript to the host, not the rows shown', async () => {
    await log().focus();
    await page.keyboard.press('Control+a');
    await page.keyboard.press('Control+c');
    for (let i = 0; i < 100 && copies.length === 0; i++) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.equal(copies.length, 1, 'transcript/copy reached the host once');
    const text = copies[0] ?? '';
    for (const i of [0, 1, 600, 1_249]) {
      assert.ok(text.includes(`marker-${i}:`), `the copy holds turn ${i}`);
      assert.ok(text.includes(`Question ${i}: what about module ${i}?`));
    }
    // A selection within the rows is the browser's to copy.
    const selected = await log().evaluate((l: PageElement) => {
      const w = globalThis as unknown as { document: { createRange(): { selectNodeContents(n: unknown): void }; getSelection(): { removeAllRanges(): void; addRange(r: unknown): void } } };
      const row = l.querySelectorAll('.transcript-list > .entry-row')[2];
      const range = w.document.createRange();
      range.selectNodeContents(row);
      const sel = w.document.getSelection();
      sel.removeAllRanges();
      sel.addRange(range);
      return row?.textContent ?? '';
    });
    assert.ok(selected.length > 0);
    await page.keyboard.press('Control+c');
    await new Promise((r) => setTimeout(r, 200));
    assert.equal(copies.length, 1, 'a partial selection is not a copy of everything');
  });
});
