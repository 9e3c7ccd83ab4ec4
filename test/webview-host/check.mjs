// Real-browser check of the chat webview against the fake host (Debian Chromium via playwright-core).
//   node test/webview-host/check.mjs            screenshots (dark, light, high contrast, slash menu) + checks
//   node test/webview-host/check.mjs --bench    also a streaming benchmark (main-thread time)
// Needs a build first: node scripts/build.mjs. Screenshots go to test-artifacts/screenshots/.
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium } from 'playwright-core';
import { startFakeHost } from './fakeHost.mjs';
import { sampleSnapshot } from './sampleSession.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const shots = join(root, 'test-artifacts', 'screenshots');
const bench = process.argv.includes('--bench');
mkdirSync(shots, { recursive: true });

const failures = [];
function check(ok, message) {
  console.log(`${ok ? 'ok  ' : 'FAIL'} ${message}`);
  if (!ok) failures.push(message);
}

const home = mkdtempSync(join(tmpdir(), 'hermes-webview-check-'));
const host = await startFakeHost();
const browser = await chromium.launch({
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run', '--disable-quic'],
  env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') },
});

async function openPage(theme, viewport = { width: 480, height: 900 }) {
  const page = await browser.newPage({ viewport });
  const console_ = [];
  page.on('console', (m) => {
    if (m.type() === 'error' || m.type() === 'warning') console_.push(m.text());
  });
  page.on('pageerror', (e) => console_.push(`pageerror: ${e.message}`));
  page.on('response', (r) => {
    if (r.status() >= 400) console_.push(`${r.status()} ${r.url()}`);
  });
  await page.goto(`${host.url}?theme=${theme}`);
  await page.waitForFunction(() => window.__posted.some((m) => m.type === 'webview/ready'));
  return { page, console_ };
}

try {
  for (const theme of ['dark', 'light', 'hc']) {
    const { page, console_ } = await openPage(theme);
    const now = Date.now();
    await page.evaluate((msg) => window.__deliver(msg), sampleSnapshot(1, now));
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    await page.evaluate(() => document.fonts.ready);
    // Before any screenshot: Playwright leaves style="" on inputs when it hides the caret.
    const styled = await page.evaluate(() => Array.from(document.querySelectorAll('[style]'), (e) => e.outerHTML.slice(0, 120)));
    check(styled.length === 0, `${theme}: no inline style attributes ${styled.length ? JSON.stringify(styled) : ''}`);
    // Tall enough to show the whole transcript (it scrolls inside the page, so fullPage alone would not).
    const extra = await page.evaluate(() => {
      const log = document.querySelector('.transcript');
      return log ? log.scrollHeight - log.clientHeight : 0;
    });
    await page.setViewportSize({ width: 480, height: Math.min(6000, 900 + extra) });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
    const name = theme === 'dark' ? 'webview-fake-host.png' : `webview-fake-host-${theme}.png`;
    await page.screenshot({ path: join(shots, name), fullPage: true });
    console.log(`screenshot ${join('test-artifacts', 'screenshots', name)}`);
    const violations = await page.evaluate(() => window.__cspViolations);
    check(violations.length === 0, `${theme}: no CSP violations ${violations.length ? JSON.stringify(violations) : ''}`);
    check(console_.length === 0, `${theme}: no console errors ${console_.length ? JSON.stringify(console_) : ''}`);
    if (theme !== 'dark') {
      await page.close();
      continue;
    }
    await page.setViewportSize({ width: 480, height: 900 });

    // Accessible names and roles, the way the UI tests look things up.
    check((await page.getByRole('log', { name: 'Conversation' }).count()) === 1, 'transcript is a log named Conversation');
    check((await page.getByRole('textbox', { name: 'Message' }).count()) === 1, 'composer textbox named Message');
    check((await page.getByRole('article', { name: 'npm test' }).count()) === 1, 'tool card article named by its title');
    check((await page.getByRole('button', { name: 'Show Traffic' }).count()) === 1, 'notice action button');
    check((await page.getByRole('combobox', { name: 'Mode', exact: true }).count()) === 1, 'mode select');
    check((await page.getByRole('button', { name: 'Stop' }).isVisible()), 'Stop visible while running');
    const fontOk = await page.evaluate(() => document.fonts.check('16px codicon'));
    check(fontOk, 'codicon font loaded');

    // The permission prompt took focus; Allow once posts its optionId.
    const focusedInPermission = await page.evaluate(() => document.activeElement?.classList.contains('permission') ?? false);
    check(focusedInPermission, 'pending permission has focus');
    await page.getByRole('button', { name: 'Allow once' }).click();
    const chosen = await page.evaluate(() => window.__posted.filter((m) => m.type === 'permission/choose'));
    check(JSON.stringify(chosen) === JSON.stringify([{ type: 'permission/choose', requestId: 'perm-1', optionId: 'allow' }]), 'Allow once posts permission/choose');

    // Slash menu.
    const box = page.getByRole('textbox', { name: 'Message' });
    await box.click();
    await box.fill('/c');
    await page.waitForSelector('.slash-menu:not([hidden])');
    await page.screenshot({ path: join(shots, 'webview-fake-host-slash.png') });
    console.log('screenshot test-artifacts/screenshots/webview-fake-host-slash.png');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('Enter');
    check((await box.inputValue()) === '/clear ', 'slash menu inserts the command');

    // Scrolled up: "Jump to latest" appears and brings the view back down.
    await page.evaluate(() => {
      const log = document.querySelector('.transcript');
      log.scrollTop = 0;
      log.dispatchEvent(new Event('scroll'));
    });
    const jump = page.getByRole('button', { name: 'Jump to latest' });
    await jump.waitFor({ state: 'visible', timeout: 2000 }).catch(() => {});
    check(await jump.isVisible(), 'Jump to latest shows when scrolled up');
    await jump.click().catch(() => {});
    const atBottom = await page.evaluate(() => {
      const log = document.querySelector('.transcript');
      return log.scrollHeight - log.scrollTop - log.clientHeight < 30;
    });
    check(atBottom, 'Jump to latest scrolls to the bottom');

    // Narrow side bar.
    await page.setViewportSize({ width: 300, height: 900 });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth > document.documentElement.clientWidth + 1);
    check(!overflow, 'no horizontal overflow at 300 px');
    await page.screenshot({ path: join(shots, 'webview-fake-host-narrow.png') });
    console.log('screenshot test-artifacts/screenshots/webview-fake-host-narrow.png');
    await page.close();
  }

  if (bench) {
    await runBench();
  }
} finally {
  await browser.close();
  await host.close();
  rmSync(home, { recursive: true, force: true });
}

async function runBench() {
  const paragraph = 'Streaming text with **bold**, `code` and [links](https://example.com) goes here, ';
  let text = '';
  for (let i = 0; i < 120; i++) {
    text += `${paragraph.repeat(5)}\n\n`;
    if (i % 8 === 0) text += '```ts\n' + 'const value = compute(1, 2); // note\n'.repeat(15) + '```\n\n';
    if (i % 10 === 5) text += '- item one\n- item two with `code`\n- item three\n\n';
  }
  const chunks = 20_000;
  const size = Math.ceil(text.length / chunks);
  console.log(`bench: ${text.length} characters in ${Math.ceil(text.length / size)} chunks of ${size}`);
  const header = { hostTime: Date.now(), agentName: 'Hermes', phase: 'running', plan: [], configOptions: [], commands: [], pendingPermissions: 0, readOnly: false, acceptsImages: false };
  const patches = [];
  for (let i = 0, seq = 2; i < text.length; i += size) {
    patches.push({ type: 'session/patch', seq: ++seq, ops: [{ op: 'appendText', index: 0, part: 0, kind: 'text', text: text.slice(i, i + size) }] });
  }
  const modes = [
    ['once (final text in one snapshot)', 'once'],
    ['all chunks in one task', 'sync'],
    ['10 chunks per frame', 10],
    ...(process.argv.includes('--slow') ? [['1 chunk per frame', 1]] : []),
    ['each chunk as its own message task (postMessage)', 'async'],
  ];
  for (const [label, mode] of modes) {
    const { page } = await openPage('dark', { width: 480, height: 900 });
    const cdp = await page.context().newCDPSession(page);
    await cdp.send('Performance.enable');
    await page.evaluate(({ header }) => window.__deliver({ type: 'session/snapshot', seq: 1, view: { header, entries: [] } }), { header });
    await page.evaluate(() => new Promise((r) => setTimeout(r, 100)));
    const metrics = async () => Object.fromEntries((await cdp.send('Performance.getMetrics')).metrics.map((m) => [m.name, m.value]));
    const task = async () => (await metrics()).TaskDuration * 1000;
    const m0 = await metrics();
    const before = m0.TaskDuration * 1000;
    const t0 = Date.now();
    if (mode === 'once') {
      await page.evaluate(
        ({ header, text }) => window.__deliver({ type: 'session/snapshot', seq: 2, view: { header, entries: [{ kind: 'assistant', id: 'a', parts: [{ kind: 'text', text }] }] } }),
        { header, text },
      );
    } else {
      await page.evaluate(({ header }) => window.__deliver({ type: 'session/snapshot', seq: 2, view: { header, entries: [{ kind: 'assistant', id: 'a', parts: [{ kind: 'text', text: '' }] }] } }), { header });
      await page.evaluate(
        async ({ patches, mode }) => {
          if (mode === 'sync') {
            for (const p of patches) window.__deliver(p);
          } else if (mode === 'async') {
            for (const p of patches) window.__deliverAsync(p);
            await new Promise((r) => {
              const last = patches[patches.length - 1].seq;
              const check = () => (document.querySelector('[data-entry-id="a"]') && window.__lastSeq === last ? r() : setTimeout(check, 20));
              window.addEventListener('message', (e) => (window.__lastSeq = e.data.seq));
              check();
            });
          } else {
            for (let i = 0; i < patches.length; i++) {
              window.__deliver(patches[i]);
              if ((i + 1) % mode === 0) await new Promise((r) => requestAnimationFrame(() => r()));
            }
          }
        },
        { patches, mode },
      );
    }
    await page.evaluate(() => new Promise((r) => setTimeout(r, 400)));
    const m1 = await metrics();
    const busy = (await task()) - before;
    const d = (k) => ((m1[k] - m0[k]) * 1000).toFixed(0);
    console.log(`bench:   script ${d('ScriptDuration')} ms, layout ${d('LayoutDuration')} ms (${m1.LayoutCount - m0.LayoutCount}), style ${d('RecalcStyleDuration')} ms (${m1.RecalcStyleCount - m0.RecalcStyleCount})`);
    const shown = await page.evaluate(() => document.querySelector('[data-entry-id="a"]')?.textContent.length ?? 0);
    console.log(`bench: ${label}: main-thread ${busy.toFixed(0)} ms (wall ${Date.now() - t0} ms, ${shown} characters shown)`);
    await page.close();
  }
}

if (failures.length > 0) {
  console.log(`${failures.length} check(s) failed`);
  process.exitCode = 1;
} else {
  console.log('all checks passed');
}
