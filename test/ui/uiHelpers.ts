import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import type { PageElement, PageGlobals } from './pageTypes';

/** The transcript (`role="log"`, "Conversation") of a chat webview. */
export function conversation(chat: FrameLocator): Locator {
  return chat.getByRole('log', { name: 'Conversation' });
}

export function composerBox(chat: FrameLocator): Locator {
  return chat.getByRole('textbox', { name: 'Message', exact: true });
}

/**
 * Runs a command from the palette (F1), for commands that open a quick pick of their own (the
 * harness's runCommand waits for the palette to close). Like runCommand, it reopens the palette
 * until the command is listed: a palette opened before the extension's contributions arrived
 * never lists them.
 */
export async function paletteCommand(page: Page, title: string, timeoutMs = 30_000): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  const row = widget.locator('.quick-input-list .monaco-list-row').filter({ has: page.locator('.label-name', { hasText: title }) }).first();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await page.keyboard.press('F1');
    const input = widget.locator('.quick-input-box input').first();
    try {
      // A palette that loses the keyboard to a view taking it late closes: then it is opened again.
      await input.fill(`>${title}`, { timeout: 5000 });
      await row.waitFor({ timeout: Math.max(1000, Math.min(3000, deadline - Date.now())) });
      break;
    } catch (e) {
      if (Date.now() >= deadline) {
        throw e;
      }
      if (await input.isVisible()) {
        await page.keyboard.press('Escape');
      }
    }
  }
  await row.click();
}

/**
 * Types into VS Code's input box (showInputBox: a token, a key) after checking it is masked. With
 * `title`, first waits for the box with that title (a quick pick shown before it shares the widget).
 */
export async function answerMaskedInputBox(page: Page, value: string, title?: string): Promise<void> {
  const widget = page.locator('.quick-input-widget');
  if (title !== undefined) {
    await widget.locator('.quick-input-title', { hasText: title }).waitFor({ timeout: 30_000 });
  }
  const input = widget.locator('input.input');
  await input.waitFor({ state: 'visible', timeout: 30_000 });
  assert.equal(await input.getAttribute('type'), 'password', 'the input box is masked');
  await input.fill(value);
  await input.press('Enter');
}

/** Polls `check` until it holds; fails with `what` (and the last value seen) after `timeoutMs`. */
/**
 * Clicks an element with the pointer where it really is: Playwright's actionability checks
 * (visible, stable, hit target) instead of `force`, so a layout shift between locating and
 * clicking cannot land the click on a neighbour (a card's button). An element that cannot take a
 * pointer click (hidden, zero-sized) gets a dispatched click instead, so it is still exercised.
 */
export async function clickOnTarget(el: Locator, timeoutMs = 3000): Promise<'pointer' | 'dispatched'> {
  try {
    await el.click({ timeout: timeoutMs });
    return 'pointer';
  } catch {
    await el.dispatchEvent('click', undefined, { timeout: timeoutMs }).catch(() => undefined);
    return 'dispatched';
  }
}

export async function waitUntil<T>(what: string, check: () => Promise<T | undefined | false>, timeoutMs = 30_000, intervalMs = 100): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value !== undefined && value !== false) {
        return value;
      }
    } catch (e) {
      lastError = e;
    }
    if (Date.now() >= deadline) {
      const detail = lastError instanceof Error ? ` (last error: ${lastError.message})` : '';
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${detail}`, lastError !== undefined ? { cause: lastError } : undefined);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

/**
 * Waits until `counted` is exactly `n`: the elements `locator` matches, or what a function counts
 * (over the whole virtualized transcript, say, where an old turn has no element).
 */
export async function waitForCount(counted: Locator | (() => Promise<number>), n: number, what: string, timeoutMs = 30_000, intervalMs = 100): Promise<void> {
  const count = typeof counted === 'function' ? counted : () => counted.count();
  let seen = -1;
  try {
    await waitUntil(what, async () => {
      seen = await count();
      return seen === n;
    }, timeoutMs, intervalMs);
  } catch (e) {
    throw new Error(`${e instanceof Error ? e.message : 'timed out'}: expected ${n}, saw ${seen}`, { cause: e });
  }
}

/**
 * Types a prompt and sends it with Enter once the composer accepts it (the previous turn has ended).
 * Names are matched exactly: an agent's tool title may contain the word "Send".
 */
export async function send(chat: FrameLocator, text: string, acceptTimeoutMs = 30_000): Promise<void> {
  const box = composerBox(chat);
  // fill() focuses the box, then types into whatever holds the page's focus: when the workbench
  // focuses another chat meanwhile (its late news of an earlier focus, polled every 250 ms), the text
  // goes there (seen on CI: chat B's prompt in chat A's composer). Type again until it is here.
  let tries = 0;
  await waitUntil(`"${text.slice(0, 60)}" in this chat's composer`, async () => {
    await box.fill(text);
    if ((await box.inputValue()) === text) {
      return true;
    }
    if (tries++ === 0) {
      process.stderr.write(`send: the text did not reach this chat's composer; webviews:\n  ${(await describeWebviews(chat.owner().page())).join('\n  ')}\n`);
    }
    return false;
  }, acceptTimeoutMs, 500);
  await chat.getByRole('button', { name: 'Send', exact: true, disabled: false }).waitFor({ timeout: acceptTimeoutMs });
  await box.press('Enter');
}

/**
 * The highest "tick N" in a reply of the scripted agent's `[slow]` scenario. Each tick is its own
 * paragraph and `textContent` runs them together ("tick 4tick 5"), so a pattern like /tick 4\b/
 * matches only while tick 4 is the newest: a poll that misses that window never sees it.
 */
export function highestTick(text: string): number {
  return Math.max(0, ...[...text.matchAll(/tick (\d+)/g)].map((m) => Number(m[1])));
}

/** Turn footers (`role="note"`) in a chat. */
export function footers(chat: FrameLocator): Locator {
  return conversation(chat).getByRole('note');
}

/** Sends a prompt and waits for its turn footer; returns the footer. */
export async function sendAndWaitForFooter(chat: FrameLocator, text: string, timeoutMs = 30_000, acceptTimeoutMs = 30_000): Promise<Locator> {
  const before = await footerIds(chat);
  await send(chat, text, acceptTimeoutMs);
  return newFooter(chat, before, `the footer of "${text.slice(0, 80)}"`, timeoutMs);
}

/** The ids of the turn footers the transcript has rows for (older ones may have none: it is virtualized). */
export async function footerIds(chat: FrameLocator): Promise<Set<string>> {
  const ids = await footers(chat).evaluateAll((notes: PageElement[]) => notes.map((n) => n.getAttribute('data-entry-id') ?? ''));
  return new Set(ids.filter((id) => id !== ''));
}

/** Waits for a turn footer that is not one of `before` (the newest turn's, at the bottom); returns it. */
export async function newFooter(chat: FrameLocator, before: ReadonlySet<string>, what: string, timeoutMs = 30_000): Promise<Locator> {
  const id = await waitUntil(what, async () => [...(await footerIds(chat))].find((i) => !before.has(i)), timeoutMs, 200);
  return conversation(chat).locator(`[role="note"][data-entry-id="${id}"]`);
}

/** What the transcript shows, entry by entry (class list, entry id, visible text). */
export interface EntrySummary {
  readonly cls: string;
  readonly id: string | null;
  readonly text: string;
  /** Laid out (has boxes) when it was read. */
  readonly visible: boolean;
  /** The start of its HTML (for failure messages). */
  readonly html: string;
  /** The text of each of its elements matching `CollectOptions.parts[name]`, per name. */
  readonly parts: Readonly<Record<string, readonly string[]>>;
  /** The value of each attribute named in `CollectOptions.attrs`. */
  readonly attrs: Readonly<Record<string, string | null>>;
}

/** What `collectEntries` reads: the entry elements, and parts of them by selector (text of each match). */
export interface CollectOptions {
  readonly selector: string;
  readonly parts?: Readonly<Record<string, string>>;
  readonly attrs?: readonly string[];
}

/** An entry's card in the transcript's rows (a lazily loaded card sits in a `display: contents` slot). */
export const rowEntrySelector = '.transcript-list > .entry-row > .entry, .transcript-list > .entry-row > .lazy-slot > .entry';

/**
 * Every entry of the transcript, in order. The transcript is virtualized (issue 43): only the
 * entries near the view have DOM, so this scrolls it from the top to the bottom a view at a time,
 * waiting each time until the rows have their entries (the host sends the ones it had only
 * outlined), and reads each entry once; then it goes back to the bottom, as a user would.
 * Runs in the page (`log` is the transcript's `role="log"` element).
 */
export function collectEntries(log: PageElement, what: string | CollectOptions): Promise<EntrySummary[]> {
  const selector = typeof what === 'string' ? what : what.selector;
  const parts = typeof what === 'string' ? {} : (what.parts ?? {});
  const attrs = typeof what === 'string' ? [] : (what.attrs ?? []);
  const w = globalThis as unknown as { requestAnimationFrame(cb: () => void): void; setTimeout(cb: () => void, ms: number): void };
  const frame = (): Promise<void> => new Promise((r) => w.requestAnimationFrame(() => r()));
  const settled = async (): Promise<void> => {
    for (let i = 0; i < 400 && log.querySelectorAll('.entry-row.pending').length > 0; i++) {
      await new Promise((r) => w.setTimeout(() => r(undefined), 10));
    }
    await frame();
    await frame();
  };
  /** Where each entry id sits in `out`: an entry read again (its row made anew) replaces its earlier reading. */
  const at = new Map<string, number>();
  const out: EntrySummary[] = [];
  const read = (): void => {
    for (const e of Array.from(log.querySelectorAll(selector))) {
      const id = e.getAttribute('data-entry-id');
      const found: Record<string, string[]> = {};
      for (const [name, sel] of Object.entries(parts)) {
        found[name] = Array.from(e.querySelectorAll(sel)).map((p) => p.textContent ?? '');
      }
      // textContent: innerText skips off-screen `content-visibility: auto` groups.
      const values: Record<string, string | null> = {};
      for (const name of attrs) {
        values[name] = e.getAttribute(name);
      }
      const summary: EntrySummary = { cls: e.className, id, text: e.textContent ?? '', visible: e.getClientRects().length > 0, html: e.outerHTML.slice(0, 300), parts: found, attrs: values };
      const index = id === null ? undefined : at.get(id);
      if (index !== undefined) {
        out[index] = summary; // the later reading: a row made anew may not have shown all of it at first
      } else {
        if (id !== null) {
          at.set(id, out.length);
        }
        out.push(summary);
      }
    }
  };
  return (async () => {
    log.scrollTop = 0;
    await settled();
    read();
    for (let step = 0; step < 10_000 && log.scrollTop + log.clientHeight < log.scrollHeight - 1; step++) {
      // A row that starts in view is in the DOM whole, however tall (a huge message): on to its end in one step.
      const viewTop = log.getBoundingClientRect().top;
      const ends = Array.from(log.querySelectorAll('.entry-row')).map((r) => r.getBoundingClientRect()).filter((b) => b.top < viewTop + log.clientHeight);
      const hugeEnd = Math.max(0, ...ends.map((b) => b.bottom - viewTop - log.clientHeight));
      log.scrollTop += Math.max(50, log.clientHeight * 0.8, hugeEnd);
      await settled();
      read();
    }
    log.scrollTop = log.scrollHeight;
    await settled();
    return out;
  })();
}

/**
 * `target` (inside the transcript `log`, its `role="log"` element) brought into the DOM: the transcript is virtualized (issue 43),
 * so an entry far from the view has no element. If `target` matches nothing, the transcript is
 * scrolled from the top a view at a time until it does; then it is scrolled into view.
 */
export async function scrolledTo(log: Locator, target: Locator, what = 'the entry'): Promise<Locator> {
  /** One step down (or to the top), then rows filled and two frames; false at the bottom. */
  const step = (toTop: boolean): Promise<boolean> =>
    log.evaluate(async (l: PageElement, top: boolean) => {
      const w = globalThis as unknown as { requestAnimationFrame(cb: () => void): void; setTimeout(cb: () => void, ms: number): void };
      const atEnd = l.scrollTop + l.clientHeight >= l.scrollHeight - 1;
      if (top) {
        l.scrollTop = 0;
      } else if (!atEnd) {
        // A row that starts in view is in the DOM whole, however tall (a huge message): on to its end in one step.
        const viewTop = l.getBoundingClientRect().top;
        const ends = Array.from(l.querySelectorAll('.entry-row')).map((r) => r.getBoundingClientRect()).filter((b) => b.top < viewTop + l.clientHeight);
        const hugeEnd = Math.max(0, ...ends.map((b) => b.bottom - viewTop - l.clientHeight));
        l.scrollTop += Math.max(50, l.clientHeight * 0.8, hugeEnd);
      }
      for (let i = 0; i < 400 && l.querySelectorAll('.entry-row.pending').length > 0; i++) {
        await new Promise((r) => w.setTimeout(() => r(undefined), 10));
      }
      await new Promise<void>((r) => w.requestAnimationFrame(() => r()));
      await new Promise<void>((r) => w.requestAnimationFrame(() => r()));
      return top || !atEnd;
    }, toTop);
  for (let i = 0, more = true; more && i < 10_000; i++) {
    if ((await target.count()) > 0) {
      await target.first().scrollIntoViewIfNeeded({ timeout: 5_000 });
      return target;
    }
    more = await step(i === 0);
  }
  throw new Error(`${what} is not in the transcript (scrolled through from the top)`);
}

/** Every entry of the transcript, in order, read by scrolling it through; `parts` names sub-elements to read the text of. */
export async function transcriptEntries(chat: FrameLocator, parts: Readonly<Record<string, string>> = {}, attrs: readonly string[] = []): Promise<EntrySummary[]> {
  const what: CollectOptions = { selector: rowEntrySelector, parts, attrs };
  return conversation(chat).evaluate(collectEntries, what);
}

/** The entries after the last user message (the last turn's output, footer included). */
export async function lastTurnEntries(chat: FrameLocator, parts?: Readonly<Record<string, string>>): Promise<EntrySummary[]> {
  const all = await transcriptEntries(chat, parts);
  let last = -1;
  all.forEach((e, i) => {
    if (e.cls.split(/\s+/).includes('entry-user')) {
      last = i;
    }
  });
  return all.slice(last + 1);
}

export function hasClass(e: EntrySummary, cls: string): boolean {
  return e.cls.split(/\s+/).includes(cls);
}

/** A number as the webview's compact form shows it (12 → "12", 1234 → "1.2k", 131072 → "131k"). */
export function compact(n: number): string {
  if (Math.abs(n) < 1000) {
    return String(Math.round(n));
  }
  const k = n / 1000;
  if (Math.abs(n) >= 100_000) {
    return `${Math.round(k)}k`;
  }
  const s = k.toFixed(1);
  return `${s.endsWith('.0') ? s.slice(0, -2) : s}k`;
}

/** Sessions the scripted agent persisted (SCRIPTED_AGENT_STATE_FILE); our own test format, read loosely. */
export interface StoredSessionLike {
  readonly sessionId: string;
  readonly title: string | null;
  readonly modeId: string;
  readonly turns: { readonly updates: Record<string, unknown>[] }[];
  readonly usage: { inputTokens: number; outputTokens: number; thoughtTokens: number; cachedReadTokens: number; costUsd: number };
}

export function readAgentState(file: string): StoredSessionLike[] {
  if (!fs.existsSync(file)) {
    return [];
  }
  const found: StoredSessionLike[] = [];
  const walk = (v: unknown): void => {
    if (Array.isArray(v)) {
      v.forEach(walk);
    } else if (typeof v === 'object' && v !== null) {
      const o = v as Record<string, unknown>;
      if (typeof o.sessionId === 'string' && Array.isArray(o.turns)) {
        found.push(o as unknown as StoredSessionLike);
        return;
      }
      Object.values(o).forEach(walk);
    }
  };
  walk(JSON.parse(fs.readFileSync(file, 'utf8')));
  return found;
}

/** The user texts of a stored session, turn by turn. */
export function storedUserTexts(s: StoredSessionLike): string[] {
  return s.turns.map((t) =>
    t.updates
      .filter((u) => u.sessionUpdate === 'user_message_chunk')
      .map((u) => {
        const c = u.content as { type?: string; text?: string } | undefined;
        return c?.type === 'text' ? (c.text ?? '') : '';
      })
      .join(''),
  );
}

/**
 * The document inside the webview iframe `outer` (one of `iframe.webview.ready`, which hosts an
 * inner `#active-frame`), pinned to that iframe by its `name` (the webview's id). A locator built
 * from `.nth(i)` would follow the DOM position instead: when the workbench disposes a webview
 * iframe that comes earlier, it silently points at another webview or at none.
 */
export async function pinnedWebview(page: Page, outer: Locator): Promise<FrameLocator> {
  const name = await outer.getAttribute('name', { timeout: 1000 }).catch(() => null);
  const el = name === null || name === '' ? outer : page.locator(`iframe.webview[name="${name.replace(/["\\]/g, '\\$&')}"]`);
  return el.contentFrame().locator('#active-frame').contentFrame();
}

/** One line per webview iframe on the page (name, class, box, document title), for failure reports. */
export async function describeWebviews(page: Page): Promise<string[]> {
  const outer = page.locator('iframe.webview');
  const lines: string[] = [];
  for (let i = 0; i < (await outer.count()); i++) {
    const el = outer.nth(i);
    const box = await el.boundingBox().catch(() => null);
    const title = await el.contentFrame().locator('#active-frame').contentFrame().locator('title').first().textContent({ timeout: 500 }).catch(() => null);
    const where = box === null ? 'not laid out' : `${Math.round(box.width)}x${Math.round(box.height)} at ${Math.round(box.x)},${Math.round(box.y)}`;
    const visibility = await el.evaluate((f: PageElement) => (globalThis as unknown as PageGlobals).getComputedStyle(f).visibility).catch(() => '-');
    lines.push(`${i}: name=${(await el.getAttribute('name')) ?? '-'} class="${(await el.getAttribute('class')) ?? ''}" ${where} ${visibility} title=${title?.trim() ?? '-'}`);
  }
  return lines;
}

/**
 * Every chat webview on the page with where it is, each pinned to its iframe (`pinnedWebview`).
 * Sorted left to right (side bar first).
 */
export async function chatWebviews(page: Page): Promise<{ frame: FrameLocator; x: number; width: number }[]> {
  const outer = page.locator('iframe.webview.ready');
  const n = await outer.count();
  const found: { frame: FrameLocator; x: number; width: number }[] = [];
  for (let i = 0; i < n; i++) {
    const el = outer.nth(i);
    const box = await el.boundingBox().catch(() => null);
    if (box === null || box.width < 10 || box.height < 10) {
      continue; // hidden webviews keep their iframe
    }
    const inner = await pinnedWebview(page, el);
    const title = await inner.locator('title').first().textContent({ timeout: 1000 }).catch(() => null);
    if (title?.trim() === 'Hermes') {
      found.push({ frame: inner, x: box.x, width: box.width });
    }
  }
  return found.sort((a, b) => a.x - b.x);
}

/**
 * Opens one more chat in an editor group and waits until `count` chats are on screen. "Open Chat in
 * Editor" opens it beside the active group, so the last group is made active first: a chat's page
 * that takes the focus late (VS Code focuses a new webview once it has loaded) can leave an earlier
 * group active, and the chat then opens as a hidden tab behind the next one (seen under load in CI
 * and in the P9 bench). A failure says which webviews were there, with a screenshot.
 */
export async function openChatBeside(ui: { readonly page: Page; command(title: string): Promise<void>; shot(name: string): Promise<string> }, count: number): Promise<void> {
  if (count > 1) {
    await ui.command('View: Focus Last Editor Group');
  }
  await ui.command('Hermes: Open Chat in Editor');
  await waitUntil(`${count} chats on screen`, async () => ((await chatWebviews(ui.page)).length >= count ? true : undefined), 60_000, 250).catch(async (e: unknown) => {
    const seen = (await describeWebviews(ui.page)).join('; ');
    throw new Error(`${e instanceof Error ? e.message : String(e)} (webviews: ${seen}; screenshot: ${await ui.shot(`chat-${count}-missing`)})`, { cause: e });
  });
}

/** Turns a test title into a file-name-friendly screenshot name. */
export function shotName(prefix: string, title: string | undefined): string {
  return `${prefix}-${(title ?? 'unknown').replace(/\W+/g, '-')}`.slice(0, 120);
}
