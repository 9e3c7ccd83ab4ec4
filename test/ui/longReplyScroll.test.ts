import * as assert from 'node:assert/strict';
import type { BrowserContext, Page } from 'playwright-core';
import type { ViewContext } from '../../src/session/viewProjection';
import { WebviewChannel } from '../../src/views/chat/webviewChannel';
import { chatOver } from '../builders/boundChat';
import { SessionHarness, textChunk } from '../builders/sessionBuilders';
import type { PageElement } from './pageTypes';
import { type BrowserModule, type FakeHostModule, importEsm, openFakeHostPage, PageWebview, twoFrames } from './replayView';

const context = (): ViewContext => ({ agentName: 'Hermes', readOnly: false, acceptsImages: false, pendingPermissions: 0, now: Date.now(), relativePath: (p) => p });

const sections = 120;
/** One section of the reply: a heading, a paragraph with a findable marker, a list; a code block every tenth. */
const section = (i: number): string =>
  `## Section ${i}\n\nThe part **marker-${i}:** explains how module ${i} builds its cache key from the folder it reads.\n\n- it reads the folder\n- it hashes path ${i}\n\n${
    i % 10 === 0 ? `\`\`\`ts\nexport const key${i} = hash('${i}');\n\`\`\`\n\n` : ''
  }`;
const reply = Array.from({ length: sections }, (_, i) => section(i)).join('');

interface MessageShown {
  /** The reply's headings, in order. */
  readonly headings: string[];
  /** Every marker in the reply's text, in order. */
  readonly markers: number[];
  /** Groups of blocks the browser has not laid out yet (content-visibility: auto keeps them at 600 px). */
  readonly notLaidOut: number;
}

/**
 * A long reply shown at once (a chat opened on it, or a turn's end that renders the rest of a paced
 * reply in one go): its Markdown groups off screen are laid out by the browser only when they come
 * near the view (`content-visibility: auto`, 600 px until then), so each one scrolled to changes
 * height above what the user reads. The transcript holds the view on the block at its top; before,
 * it held the row, whose top is far above, and the view jumped (349 px in this reply). The real
 * webview bundle in Chromium, a narrow view like one of eight editor columns, the real channel.
 */
suite('a long reply shown at once: scrolling up it, the view stays on what it showed (Chromium, fake host)', function () {
  this.timeout(180_000);
  let browser: { context: BrowserContext; close(): Promise<void> } | undefined;
  let host: { url: string; close(): Promise<void> } | undefined;
  let page: Page;
  let webview: PageWebview;
  let channel: WebviewChannel;
  let harness: SessionHarness;

  suiteSetup(async () => {
    const browserMod = await importEsm<BrowserModule>('test', 'harness', 'browser.mjs');
    const fake = await importEsm<FakeHostModule>('test', 'webview-host', 'fakeHost.mjs');
    host = await fake.startFakeHost();
    browser = await browserMod.launchBrowser({ viewport: { width: 300, height: 700 } });
  });

  setup(async () => {
    assert.ok(browser !== undefined && host !== undefined);
    harness = new SessionHarness();
    // The whole reply is in the state before the page opens: its snapshot shows it at once.
    harness.prompt('Explain every module.');
    harness.update(textChunk(reply));
    harness.end();
    const { chat } = chatOver(harness);
    page = await openFakeHostPage(browser.context, host.url);
    webview = new PageWebview(page);
    channel = new WebviewChannel(webview, { context, flushMs: 16, onMessage: () => undefined });
    channel.bind(chat);
    await settle();
  });

  teardown(async () => {
    channel.dispose();
    webview.dispose();
    await page.close().catch(() => undefined);
  });

  suiteTeardown(async () => {
    await browser?.close();
    await host?.close();
  });

  const log = (): ReturnType<Page['locator']> => page.getByRole('log', { name: 'Conversation' });

  async function settle(): Promise<void> {
    for (let i = 0; i < 5; i++) {
      channel.flush();
      await webview.idle();
      await twoFrames(page);
    }
  }

  const message = (): Promise<MessageShown> =>
    log().evaluate((l: PageElement) => {
      const body = l.querySelector('.entry-assistant .markdown');
      const text = body?.textContent ?? '';
      return {
        headings: Array.from(body?.querySelectorAll('h2') ?? [], (h) => h.textContent ?? ''),
        markers: Array.from(text.matchAll(/marker-(\d+):/g), (m) => Number(m[1])),
        notLaidOut: Array.from(body?.querySelectorAll('.md-group') ?? []).filter((g) => { const r = g.getBoundingClientRect(); return r.bottom - r.top === 600; }).length,
      };
    });

  test('each group laid out as it comes near changes nothing in the view: it moves by what was scrolled', async () => {
    const before = await message();
    assert.equal(before.headings.at(-1), `Section ${sections - 1}`, 'it opens at the end of the reply');
    assert.ok(before.notLaidOut > 0, `${before.notLaidOut} groups above the view not laid out yet`);
    // Up most of a view at a time: what the view showed moves by what was scrolled, no more, while
    // the groups above it are laid out (and measured) as they come near.
    for (let step = 0; step < 400; step++) {
      const moved = await log().evaluate(
        (l: PageElement) =>
          new Promise<{ top: number; jump: number }>((resolve) => {
            const view = l.getBoundingClientRect();
            const anchor = Array.from(l.querySelectorAll('.markdown h2, .markdown p, .markdown li')).find((e) => e.getBoundingClientRect().top >= view.top);
            const y0 = anchor?.getBoundingClientRect().top ?? 0;
            const top0 = l.scrollTop;
            l.scrollTop -= l.clientHeight * 0.8;
            const scrolled = top0 - l.scrollTop;
            const w = globalThis as unknown as { requestAnimationFrame(cb: () => void): void };
            const frames = (n: number, then: () => void): void => (n === 0 ? then() : w.requestAnimationFrame(() => frames(n - 1, then)));
            frames(4, () => {
              const jump = anchor === undefined ? 0 : Math.abs(anchor.getBoundingClientRect().top - (y0 + scrolled));
              resolve({ top: l.scrollTop, jump });
            });
          }),
      );
      assert.ok(moved.jump <= 2, `the view moved ${moved.jump} px by itself at ${moved.top}px`);
      if (moved.top === 0) {
        break;
      }
    }
    const after = await message();
    assert.equal(after.headings[0], 'Section 0', 'the top of the reply is reached');
    await page.getByRole('heading', { name: 'Section 0' }).waitFor({ timeout: 5_000 });
    assert.deepEqual(after.markers, Array.from({ length: sections }, (_, i) => i), 'every section, in order');
  });
});
