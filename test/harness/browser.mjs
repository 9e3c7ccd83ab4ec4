// Drives the code-server workbench with playwright-core and Debian's Chromium (no browser download).
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { REPO_ROOT, harnessPaths } from './install.mjs';
import { killAndRemoveSync, onExit, waitForNoProcessWith } from './processes.mjs';

export const DEFAULT_ARTIFACTS_DIR = join(REPO_ROOT, 'test-artifacts', 'screenshots');

const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** @type {WeakMap<import('playwright-core').Page, string>} where screenshot() writes, per page */
const artifactsDirs = new WeakMap();

/** @type {Set<string>} run dirs of browsers not closed yet: if the process exits first, kill their Chromium and remove them */
const liveRunDirs = new Set();
let cleanupInstalled = false;

/**
 * @typedef {object} Browser
 * @property {import('playwright-core').BrowserContext} context
 * @property {import('playwright-core').Page} page
 * @property {string} artifactsDir
 * @property {() => Promise<void>} close closes Chromium, waits until none of its processes is left, removes its run dir
 */

/**
 * Launches headless Chromium with a fresh profile and HOME (Debian's launcher and Chromium's crash
 * handler write under $HOME/.config and $HOME/.cache otherwise). Everything is removed on close.
 * @param {{ artifactsDir?: string, viewport?: { width: number, height: number } }} [options]
 * @returns {Promise<Browser>}
 */
export async function launchBrowser({ artifactsDir = DEFAULT_ARTIFACTS_DIR, viewport = { width: 1440, height: 900 } } = {}) {
  if (!cleanupInstalled) onExit(() => killAndRemoveSync({ dirs: liveRunDirs }));
  cleanupInstalled = true;
  const runDir = mkdtempSync(join(tmpdir(), 'hermes-chromium-'));
  liveRunDirs.add(runDir);
  const home = join(runDir, 'home');
  mkdirSync(home);
  // A profile must go through launchPersistentContext; --user-data-dir in args is rejected.
  const context = await chromium.launchPersistentContext(join(runDir, 'profile'), {
    executablePath: harnessPaths().chromiumPath,
    headless: true,
    args: CHROMIUM_ARGS,
    viewport,
    env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache'), XDG_DATA_HOME: join(home, '.local', 'share') },
  });
  const page = context.pages()[0] ?? (await context.newPage());
  artifactsDirs.set(page, artifactsDir);
  return {
    context,
    page,
    artifactsDir,
    async close() {
      await context.close().catch(() => {});
      // Every Chromium process, crash handlers included (they leave the process group), names the
      // run dir on its command line: wait for all of them to be gone.
      await waitForNoProcessWith(runDir);
      liveRunDirs.delete(runDir);
      rmSync(runDir, { recursive: true, force: true });
    },
  };
}

/**
 * Opens the workbench and waits until it shows the workspace folder in the explorer.
 * @param {import('playwright-core').Page} page @param {string} url @param {{ timeoutMs?: number }} [o]
 */
export async function openWorkbench(page, url, { timeoutMs = 60_000 } = {}) {
  await page.goto(url);
  await page.locator('.monaco-workbench').waitFor({ timeout: timeoutMs });
  // The explorer's folder view is there even for an empty folder (then it has no rows).
  await page.locator('.explorer-folders-view').first().waitFor({ timeout: timeoutMs });
}

/**
 * Runs a command from the palette by its full title ("Category: Title"), as a user would.
 * The palette lists the commands known when it opens, so an extension that registers its
 * contributions a moment after the workbench appears is missed: reopen it until the row shows up.
 * @param {import('playwright-core').Page} page @param {string} title @param {{ timeoutMs?: number }} [o]
 */
export async function runCommand(page, title, { timeoutMs = 20_000 } = {}) {
  const widget = page.locator('.quick-input-widget');
  const input = widget.locator('.quick-input-box input').first();
  // Match the row's label exactly (it may be split into highlight spans; textContent joins them).
  const row = widget
    .locator('.quick-input-list .monaco-list-row')
    .filter({ has: page.locator('.label-name', { hasText: new RegExp(`^\\s*${escapeRegExp(title)}\\s*$`) }) })
    .first();
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    await page.keyboard.press('F1');
    try {
      await input.waitFor({ timeout: Math.max(1000, Math.min(5000, deadline - Date.now())) });
      // A focus that moves late (a view revealed by the last click takes the keyboard) closes the
      // palette it lands on: then it is opened again.
      await input.fill(`>${title}`, { timeout: 3000 });
      await row.waitFor({ timeout: Math.max(1000, Math.min(3000, deadline - Date.now())) });
      break;
    } catch (err) {
      if (Date.now() >= deadline) throw new Error(`command "${title}" not found in the palette within ${timeoutMs} ms`, { cause: err });
      if (await input.isVisible()) {
        await page.keyboard.press('Escape');
      }
    }
  }
  await row.click();
  await widget.waitFor({ state: 'hidden', timeout: 5000 });
}

/**
 * The content of a webview (panel or view): the outer `iframe.webview.ready` hosts an inner
 * `#active-frame` with the extension's HTML. With several webviews, pick one by `index` (DOM order)
 * or by `title`: matched against the content's <title>, and the outer iframe's title/name attribute.
 * Without either, exactly one webview must exist. Polls until a match appears. A match by title is
 * pinned to its iframe (by name), so it stays that webview while others come and go.
 * @param {import('playwright-core').Page} page
 * @param {{ title?: string | RegExp, index?: number, timeoutMs?: number }} [o]
 * @returns {Promise<import('playwright-core').FrameLocator>}
 */
export async function webviewFrame(page, { title, index, timeoutMs = 15_000 } = {}) {
  const outer = page.locator('iframe.webview.ready');
  if (title === undefined) {
    await (index === undefined ? outer : outer.nth(index)).first().waitFor({ state: 'attached', timeout: timeoutMs });
    return (index === undefined ? outer : outer.nth(index)).contentFrame().locator('#active-frame').contentFrame();
  }
  const matches = (/** @type {string | null | undefined} */ s) => s != null && (typeof title === 'string' ? s === title : title.test(s));
  const deadline = Date.now() + timeoutMs;
  const seen = new Set();
  do {
    const n = await outer.count();
    for (let i = 0; i < n; i++) {
      const el = outer.nth(i);
      const inner = el.contentFrame().locator('#active-frame').contentFrame();
      const docTitle = await inner.locator('title').first().textContent({ timeout: 250 }).catch(() => null);
      const names = [docTitle?.trim(), await el.getAttribute('title'), await el.getAttribute('name')];
      names.forEach((t) => t && seen.add(t));
      if (names.some(matches)) {
        // Pin the result to this iframe by its name (the webview id): `.nth(i)` follows the DOM
        // position, which points elsewhere once an earlier webview iframe is disposed.
        const id = names[2];
        return id ? page.locator(`iframe.webview[name="${id.replace(/["\\]/g, '\\$&')}"]`).contentFrame().locator('#active-frame').contentFrame() : inner;
      }
    }
    await page.waitForTimeout(200);
  } while (Date.now() < deadline);
  throw new Error(`no webview titled ${title}; seen: ${[...seen].join(', ') || 'none'}`);
}

/**
 * Saves a PNG of the page (or of `locator`) into the artifacts dir and returns its path.
 * @param {import('playwright-core').Page} page @param {string} name
 * @param {{ locator?: import('playwright-core').Locator, fullPage?: boolean }} [o]
 */
export async function screenshot(page, name, { locator, fullPage = false } = {}) {
  const dir = artifactsDirs.get(page) ?? DEFAULT_ARTIFACTS_DIR;
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `${name.replace(/[^\w.-]+/g, '_')}.png`);
  await (locator ? locator.screenshot({ path }) : page.screenshot({ path, fullPage }));
  return path;
}

const LOOPBACK = new Set(['127.0.0.1', 'localhost', '[::1]']);

/**
 * Records every request that goes to a non-loopback host, for the page's whole browser context
 * (webview frames and workers included). Requests answered by a service worker never left the
 * browser (webview resources use a virtual *.vscode-cdn.net host that the webview's service
 * worker serves from code-server), so those are not recorded. Returns a live array of URLs.
 * @param {import('playwright-core').Page} page
 * @returns {string[]}
 */
export function collectNonLoopbackRequests(page) {
  /** @type {string[]} */
  const external = [];
  const isExternal = (/** @type {string} */ url) => {
    const u = new URL(url);
    return /^(https?|wss?):$/.test(u.protocol) && !LOOPBACK.has(u.hostname);
  };
  const context = page.context();
  context.on('requestfinished', async (req) => {
    if (!isExternal(req.url())) return;
    const res = await req.response().catch(() => null);
    if (!res?.fromServiceWorker()) external.push(req.url());
  });
  context.on('requestfailed', (req) => {
    if (isExternal(req.url())) external.push(`${req.url()} (failed: ${req.failure()?.errorText})`);
  });
  page.on('websocket', (ws) => {
    if (isExternal(ws.url())) external.push(ws.url());
  });
  return external;
}

/** @param {string} s */
function escapeRegExp(s) {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
