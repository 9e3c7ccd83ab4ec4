/**
 * R4 hostile content, in code-server + Chromium with the scripted agent.
 *
 * The corpus (test/fixtures/hostile/payloads.json: HTML, SVG, MathML, javascript:/data:/command:
 * URIs, CSS, Markdown link and code tricks, huge and deeply nested Markdown, bidi/zero-width/control
 * characters) is sent through every channel an agent controls — message text (streamed), tool
 * titles, tool output, diff paths (and tool locations), plan entries — with `[replay-file]`, and
 * through the one channel that leaves the webview: the permission notification VS Code shows when
 * the chat is hidden. Every payload that could run script carries a beacon that logs `HXSS:<id>`.
 *
 * What must hold: no beacon ever logs, nothing reaches the CSP, the chat's DOM holds no active
 * element / handler / style / non-web URL, clicking every neutralised link sends nothing to the
 * workbench and changes nothing there (no command runs), paths and titles show their invisible
 * characters, and the served document's CSP is `default-src 'none'` with a nonce-only script-src
 * that the browser enforces.
 */
import * as assert from 'node:assert/strict';
import type { FrameLocator, Locator } from 'playwright-core';
import {
  auditChatDom,
  chatFrames,
  installProbes,
  parsePolicy,
  patientChat,
  probeCspEnforcement,
  readProbes,
  sendAndWaitForTurn,
  sendPrompt,
  servedPolicy,
  stateChanges,
  workbenchState,
  type AuditFinding,
  type ChatFrames,
  type WorkbenchState,
} from './hardeningProbe';
import {
  beaconPrefix,
  carrierTitle,
  channels,
  invisibleChars,
  loadCorpus,
  markerValue,
  messageHeading,
  reduced,
  scaled,
  selectPayloads,
  summaryLine,
  writeReplayFile,
  type Channel,
  type Payload,
} from './hostileCorpus';
import { failureShot, openVsCode, type UiSession } from './support';
import { clickOnTarget, conversation, footerIds, lastTurnEntries, newFooter, scrolledTo, shotName, transcriptEntries, waitUntil } from './uiHelpers';
import type { PageElement } from './pageTypes';

/** Messages from the chat to the extension that act on something (a click on content must send none). */
const actingMessages = new Set(['location/open', 'diff/open', 'output/open', 'notice/action', 'prompt/submit', 'permission/choose', 'turn/restore', 'turn/rewind', 'fork/fromHere', 'mode/set', 'model/set', 'config/set', 'turn/cancel']);

/** The parts of a card the channel tests read (by selector): the transcript is read by scrolling, a view at a time. */
const cardParts = {
  title: '.tool-title',
  toolText: '.tool-text',
  diffLabel: '.diff-summary .diff-label',
  location: '.tool-locations .location span',
  planText: '.plan-text',
} as const;

/** What a one-line label must show for `text`: line breaks and tabs as spaces, invisible characters as ⟨U+XXXX⟩. */
/** Every row of a workbench list in `pane`, top to bottom: scrolled through with the wheel, since only rows in view are in the DOM. */
async function listLabels(pane: Locator): Promise<string[]> {
  const page = pane.page();
  const list = pane.locator('.monaco-list').first();
  if ((await list.count()) === 0) {
    return [];
  }
  await list.hover();
  await page.mouse.wheel(0, -1_000_000);
  const seen = new Map<number, string>();
  for (let still = 0, i = 0; still < 3 && i < 200; i++) {
    const before = seen.size;
    for (const row of await pane.locator('.monaco-list-row').all()) {
      seen.set(Number(await row.getAttribute('data-index')), (await row.textContent()) ?? '');
    }
    still = seen.size === before ? still + 1 : 0;
    await page.mouse.wheel(0, 66);
    await page.waitForTimeout(80);
  }
  return [...seen.entries()].sort((a, b) => a[0] - b[0]).map(([, label]) => label);
}

/** Anchors that are not web links (there must be none). */
const oddLinkSelector = 'a[href]:not([href^="http:"]):not([href^="https:"]):not([href^="mailto:"]):not(.file-link)';

/** A link in the transcript: its entry and its index among the entry's links of one kind. */
interface LinkAt {
  readonly entry: string;
  readonly index: number;
}

/** The transcript's scroll offset for each view, and the neutralised and odd links each view's rows hold (each link once). */
async function linksByView(chat: FrameLocator): Promise<{ scrollTop: number; blocked: LinkAt[]; odd: LinkAt[] }[]> {
  return conversation(chat).evaluate(async (log: PageElement, odd: string) => {
    const w = globalThis as unknown as { requestAnimationFrame(cb: () => void): void; setTimeout(cb: () => void, ms: number): void };
    const settled = async (): Promise<void> => {
      for (let i = 0; i < 400 && log.querySelectorAll('.entry-row.pending').length > 0; i++) {
        await new Promise((r) => w.setTimeout(() => r(undefined), 10));
      }
      await new Promise<void>((r) => w.requestAnimationFrame(() => r()));
      await new Promise<void>((r) => w.requestAnimationFrame(() => r()));
    };
    const seen = new Set<string>();
    const views: { scrollTop: number; blocked: LinkAt[]; odd: LinkAt[] }[] = [];
    const read = (): void => {
      const view = { scrollTop: log.scrollTop, blocked: [] as LinkAt[], odd: [] as LinkAt[] };
      for (const entry of Array.from(log.querySelectorAll('[data-entry-id]'))) {
        const id = entry.getAttribute('data-entry-id') ?? '';
        for (const [kind, sel] of [['blocked', '.md-blocked-link'], ['odd', odd]] as const) {
          Array.from(entry.querySelectorAll(sel)).forEach((_, index) => {
            const key = `${kind} ${id} ${index}`;
            if (!seen.has(key)) {
              seen.add(key);
              view[kind].push({ entry: id, index });
            }
          });
        }
      }
      views.push(view);
    };
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
    return views.filter((v) => v.blocked.length + v.odd.length > 0);
  }, oddLinkSelector);
}

/** Scrolls the transcript to `top` and waits until the rows there are in the DOM. */
async function scrollLogTo(chat: FrameLocator, top: number): Promise<void> {
  await conversation(chat).evaluate(async (log: PageElement, to: number) => {
    const w = globalThis as unknown as { requestAnimationFrame(cb: () => void): void; setTimeout(cb: () => void, ms: number): void };
    log.scrollTop = to;
    for (let i = 0; i < 400 && log.querySelectorAll('.entry-row.pending').length > 0; i++) {
      await new Promise((r) => w.setTimeout(() => r(undefined), 10));
    }
    await new Promise<void>((r) => w.requestAnimationFrame(() => r()));
    await new Promise<void>((r) => w.requestAnimationFrame(() => r()));
  }, top);
}

function oneLineVisible(text: string): string {
  const all = new RegExp(invisibleChars.source, 'g');
  return text.replace(/[\r\n\t]+/g, ' ').replace(all, (c) => `⟨U+${c.charCodeAt(0).toString(16).toUpperCase().padStart(4, '0')}⟩`);
}

/** Payloads sent as permission titles (the notification VS Code shows for a hidden chat). */
const notificationIds = [
  'md-command-untitled',
  'md-command-terminal-args',
  'md-command-entity',
  'md-command-autolink',
  'md-command-reference',
  'md-command-angle',
  'md-javascript',
  'md-javascript-entity',
  'md-data-html',
  'md-vscode-uri',
  'a-href-javascript',
  'script-tag',
  'img-onerror',
  'path-rlo-extension',
  'path-isolates',
];

interface ChannelFigures {
  payloads: number;
  rendered: number;
  /** Payloads whose shown text was compared with the payload and matched exactly. */
  exact?: number;
  /** Output cards that show (some of) the payload as text. */
  withText?: number;
  notes: string[];
}

suite('R4 hardening: hostile content in code-server + Chromium', function () {
  // The slowest test takes under a minute (the clicks, 45–52 s on CI): five minutes bound a hang.
  this.timeout(300_000);
  const corpus = loadCorpus();
  // Every payload goes through every channel in both modes (under a minute); CI=true clicks fewer
  // links and raises fewer notifications (the slow parts). HERMES_R4_PER_CATEGORY=n samples the corpus.
  const perCategory = process.env.HERMES_R4_PER_CATEGORY !== undefined ? Number(process.env.HERMES_R4_PER_CATEGORY) : undefined;
  const payloads = selectPayloads(corpus, perCategory);
  const notificationPayloads = notificationIds
    .map((id) => corpus.find((p) => p.id === id))
    .filter((p): p is Payload => p !== undefined)
    .slice(0, reduced ? 5 : undefined);
  const started = Date.now();
  const executed = new Set<string>();
  const dialogs: string[] = [];
  const popups: string[] = [];
  const figures = new Map<Channel, ChannelFigures>();
  const domFindings: AuditFinding[] = [];
  let auditedElements = 0;
  /** Views of the (virtualized) transcript the largest audit scrolled through. */
  let auditedViews = 0;
  let cspViolations: string[] = [];
  let clicked = 0;
  /** Clicks that had to be dispatched because the link could not take a pointer click (hidden). */
  let dispatchedClicks = 0;
  let clickMessages: string[] = [];
  let commandsTriggered: string[] = [];
  let bidiLabels = 0;
  let bidiRaw: string[] = [];
  let planBidiRaw = 0;
  let notificationFigures = { sent: 0, shown: 0, commandLinks: 0, triggered: [] as string[], rawBidi: 0 };
  let cspSummary = 'CSP not checked';
  let vs: UiSession | undefined;
  let chat: FrameLocator;
  let frames: ChatFrames;
  let baseline: WorkbenchState;

  const ui = (): UiSession => {
    assert.ok(vs !== undefined, 'code-server is running');
    return vs;
  };

  suiteSetup(async () => {
    assert.ok(corpus.length >= 50, `the corpus holds at least 50 payloads (${corpus.length})`);
    vs = await openVsCode({ files: { 'hello.txt': 'hello world\n', 'r4/README.md': '# hostile paths live here\n' } });
    const page = vs.page;
    page.on('console', (m) => {
      const text = m.text();
      const at = text.indexOf(beaconPrefix);
      if (at >= 0) {
        executed.add(text.slice(at + beaconPrefix.length).split(/\s/)[0] ?? text);
      }
    });
    page.on('dialog', (d) => {
      dialogs.push(`${d.type()}: ${d.message().slice(0, 80)}`);
      void d.dismiss().catch(() => undefined);
    });
    page.context().on('page', (p) => popups.push(p.url()));
    await vs.command('Hermes: New Session');
    chat = await vs.chat();
    await chat.getByRole('textbox', { name: 'Message' }).waitFor({ timeout: 30_000 });
    frames = await chatFrames(page);
    await installProbes(frames);
    // The beacon detector works: a beacon run in the chat document is seen.
    await frames.inner.evaluate(() => {
      (globalThis as unknown as { console: { log(s: string): void } }).console.log(`${'HX'}${'SS'}:detector-self-test`);
    });
    await waitUntil('the beacon self-test to be seen', () => Promise.resolve(executed.has('detector-self-test')), 10_000);
    executed.delete('detector-self-test');
    baseline = await workbenchState(page);
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      if (vs !== undefined) {
        await failureShot(vs, shotName('FAILED-r4', this.currentTest.title));
      }
    }
  });

  suiteTeardown(async () => {
    const rendered = [...figures.values()].reduce((n, f) => n + f.rendered, 0);
    const tried = [...figures.values()].reduce((n, f) => n + f.payloads, 0);
    const perChannel = [...figures.entries()].map(([c, f]) => `${c} ${f.rendered}/${f.payloads}${f.exact !== undefined ? ` (${f.exact} compared verbatim)` : ''}${f.withText !== undefined ? ` (${f.withText} with visible text)` : ''}`).join(', ');
    summaryLine(
      `R4: ${payloads.length} payloads (corpus ${corpus.length} in ${new Set(corpus.map((p) => p.category)).size} categories) × ${figures.size} channels = ${tried} renderings (${rendered} seen on screen: ${perChannel}) + ${notificationFigures.sent} permission notifications; ` +
        `${executed.size} executed${executed.size > 0 ? ` (${[...executed].join(', ')})` : ''}, ${dialogs.length} dialogs, ${popups.length} popups, ${cspViolations.length} CSP violations, ` +
        `${domFindings.length} DOM findings in ${auditedElements} elements (${auditedViews} views of the transcript); ${clicked} neutralised links clicked (${clicked - dispatchedClicks} with the pointer, ${dispatchedClicks} dispatched) → ${clickMessages.length} messages to the workbench, ${commandsTriggered.length} commands triggered; ` +
        `notifications: ${notificationFigures.commandLinks} command links shown, ${notificationFigures.triggered.length} commands triggered by a click, ${notificationFigures.rawBidi} with raw bidi; ` +
        `${bidiLabels} path/title labels with invisible characters, ${bidiRaw.length} shown raw (plan entries raw: ${planBidiRaw}); ${cspSummary}; ${((Date.now() - started) / 1000).toFixed(0)} s`,
    );
    await vs?.close();
  });

  /** Sends one channel's replay file and waits for the turn to end. */
  async function replay(channel: Channel, list: readonly Payload[]): Promise<void> {
    const file = writeReplayFile(ui().workspace, channel, list, ui().workspace);
    const footer = await sendAndWaitForTurn(chat, `[replay-file path=${file}]`, 240_000);
    await footer.waitFor({ timeout: 10_000 });
  }

  async function checkNothingRan(channel: Channel): Promise<void> {
    const audit = await auditChatDom(frames.inner);
    auditedElements = Math.max(auditedElements, audit.elements);
    auditedViews = Math.max(auditedViews, audit.views);
    for (const f of audit.findings) {
      if (!domFindings.some((d) => d.where === f.where && d.what === f.what)) {
        domFindings.push(f);
      }
    }
    const probes = await readProbes(frames);
    cspViolations = probes.cspViolations;
    await ui().shot(`r4-${channel}`);
    assert.deepEqual([...executed], [], `no payload ran (beacons seen after the ${channel} channel)`);
    assert.deepEqual(dialogs, [], 'no dialog opened');
    assert.deepEqual(popups, [], 'no window opened');
    assert.deepEqual(probes.cspViolations, [], 'nothing even reached the CSP');
    assert.deepEqual(audit.findings, [], `the chat's DOM is clean after the ${channel} channel`);
    assert.deepEqual(ui().nonLoopback, [], 'nothing was fetched from the network');
  }

  for (const channel of channels) {
    test(`${channel}: every payload is shown as inert content`, async () => {
      const list = payloads;
      const fig: ChannelFigures = { payloads: list.length, rendered: 0, notes: [] };
      figures.set(channel, fig);
      await replay(channel, list);
      // The transcript is virtualized (issue 43): the last turn is read by scrolling through it,
      // each card's parts as it passes.
      const turn = await lastTurnEntries(chat, cardParts);
      const turnText = turn.map((e) => e.text).join('\n');
      const cards = turn.filter((e) => e.cls.split(/\s+/).includes('tool-card'));
      const part = (name: keyof typeof cardParts): string[] => cards.flatMap((c) => c.parts[name] ?? []);
      switch (channel) {
        case 'message': {
          fig.rendered = list.filter((p) => turnText.includes(messageHeading(p.id))).length;
          const missing = list.filter((p) => !turnText.includes(messageHeading(p.id)));
          if (missing.length > 0) {
            fig.notes.push(`${missing.length} messages not read in the last turn's ${turn.length} entries (first: ${missing[0]?.id ?? ''})`);
          }
          break;
        }
        case 'title': {
          const mine = cards.map((c) => c.parts.title?.[0] ?? '');
          fig.exact = 0;
          list.forEach((p, i) => {
            const shown = mine[i] ?? '';
            if (shown !== '') {
              fig.rendered++;
            }
            if (p.bidi) {
              bidiLabels++;
            }
            if (invisibleChars.test(shown)) {
              bidiRaw.push(`title ${p.id}`);
            }
            // A title is shown as the text it is, on one line, invisible characters as ⟨U+XXXX⟩.
            if (shown === oneLineVisible(p.text)) {
              fig.exact = (fig.exact ?? 0) + 1;
            } else {
              fig.notes.push(`title ${p.id} shown as ${JSON.stringify(shown.slice(0, 80))}`);
            }
          });
          break;
        }
        case 'output': {
          for (const card of cards) {
            const title = card.parts.title?.[0] ?? '';
            const p = list.find((x) => title === carrierTitle('output', x.id));
            const texts = card.parts.toolText ?? [];
            if (p !== undefined && texts.length === 1) {
              fig.rendered++;
              // Tool output is rendered as Markdown: raw HTML in it must come out as text, not vanish.
              if ((texts[0] ?? '').trim() === '') {
                fig.notes.push(`output ${p.id} shows no text`);
              } else {
                fig.withText = (fig.withText ?? 0) + 1;
              }
            }
          }
          break;
        }
        case 'diff': {
          const labels = part('diffLabel');
          const locations = part('location');
          const mine = labels.slice(labels.length - list.length);
          const mineLocations = locations.slice(locations.length - list.length);
          fig.rendered = mine.length;
          list.forEach((p, i) => {
            for (const [what, shown] of [
              ['diff path', mine[i] ?? ''],
              ['location', mineLocations[i] ?? ''],
            ] as const) {
              if (p.bidi) {
                bidiLabels++;
              }
              if (invisibleChars.test(shown)) {
                bidiRaw.push(`${what} ${p.id}`);
              }
            }
          });
          break;
        }
        case 'plan': {
          const plan = turn.filter((e) => e.cls.split(/\s+/).includes('entry-plan')).pop();
          const texts = plan?.parts.planText ?? [];
          fig.rendered = texts.filter((t, i) => t === list[i]?.text).length;
          planBidiRaw = texts.filter((t) => invisibleChars.test(t)).length;
          if (fig.rendered !== list.length) {
            fig.notes.push(`plan shows ${texts.length} entries, ${fig.rendered} exactly as sent`);
          }
          break;
        }
      }
      await checkNothingRan(channel);
      assert.equal(fig.rendered, list.length, `every payload reached the screen through the ${channel} channel (${fig.notes.join('; ')})`);
      assert.deepEqual(fig.notes, [], 'payloads are shown as the text they are');
      if (channel === 'title' || channel === 'diff') {
        assert.deepEqual(bidiRaw, [], 'paths and titles show invisible characters as ⟨U+XXXX⟩');
      }
    });
  }

  test('the Changes view shows hostile file names with their invisible characters visible', async () => {
    // The agent writes one file per bidi payload (fs/write_text_file): the Changes view lists them.
    const bidi = payloads.filter((p) => p.bidi && !p.text.includes('\u0000'));
    const names = bidi.map((p) => `r4w/${p.text.replace(/\//g, '_')}.txt`);
    await sendAndWaitForTurn(chat, names.map((n) => `[write path=${markerValue(n)} text=changed]`).join(' '), 60_000);
    const page = ui().page;
    const pane = page.locator('.pane').filter({ has: page.locator('.pane-header', { hasText: /^\s*Changes/ }) });
    // The view starts small and its list is virtualized (only rows in view are in the DOM): read it by scrolling.
    let all: string[] = [];
    await waitUntil('the Changes view to list the written files', async () => (all = await listLabels(pane)).length > bidi.length, 30_000);
    const labels = all.filter((l) => !/^\s*Turn \d+/.test(l));
    await ui().shot('r4-changes-view');
    const raw = labels.filter((l) => invisibleChars.test(l));
    bidiLabels += bidi.length;
    bidiRaw = [...bidiRaw, ...raw.map((l) => `Changes view row ${JSON.stringify(l.slice(0, 60))}`)];
    assert.deepEqual(
      raw.map((l) => JSON.stringify(l.slice(0, 80))),
      [],
      `Changes view rows show no raw bidi/zero-width/control characters (${raw.length} of ${labels.length} rows do)`,
    );
  });

  test('clicking every neutralised link sends nothing to the workbench and runs no command', async () => {
    const page = ui().page;
    const before = await readProbes(frames);
    const stateBefore = await workbenchState(page);
    // The transcript is virtualized (issue 43): the links are found a view at a time, top to bottom,
    // and each is clicked while its row is in the DOM.
    const found = await linksByView(chat);
    const n = found.reduce((k, v) => k + v.blocked.length, 0);
    // Every neutralised link up to the cap, else an even sample across the transcript.
    const step = Math.max(1, Math.ceil(n / scaled(80, 40, 150)));
    let index = 0;
    /** The link's element, its view scrolled back to if a click moved the transcript away from it. */
    const linkIn = async (view: { scrollTop: number }, link: LinkAt, sel: string): Promise<Locator> => {
      const el = conversation(chat).locator(`[data-entry-id="${link.entry}"]`).first().locator(sel).nth(link.index);
      if ((await el.count()) === 0) {
        await scrollLogTo(chat, view.scrollTop);
      }
      // Heights corrected since the walk can put the entry elsewhere: then it is looked for from the top.
      return (await el.count()) === 0 ? scrolledTo(conversation(chat), el, `link ${link.index} of ${link.entry}`) : el;
    };
    for (const view of found) {
      await scrollLogTo(chat, view.scrollTop);
      for (const link of view.blocked) {
        if (index++ % step === 0) {
          dispatchedClicks += (await clickOnTarget(await linkIn(view, link, '.md-blocked-link'))) === 'dispatched' ? 1 : 0;
          clicked++;
        }
      }
      // Anchors that are not web links must not exist; click any that do.
      for (const link of view.odd) {
        dispatchedClicks += (await clickOnTarget(await linkIn(view, link, oddLinkSelector))) === 'dispatched' ? 1 : 0;
        clicked++;
      }
    }
    await page.waitForTimeout(1500);
    const after = await readProbes(frames);
    const stateAfter = await workbenchState(page);
    clickMessages = [...after.clickedLinks.slice(before.clickedLinks.length).map((u) => `link ${u}`), ...after.hostMessages.slice(before.hostMessages.length).filter((m) => actingMessages.has(m))];
    commandsTriggered = [...stateChanges(stateBefore, stateAfter), ...stateChanges(baseline, stateAfter)].filter((v, i, a) => a.indexOf(v) === i);
    await ui().shot('r4-after-clicks');
    assert.ok(n > 0, 'the corpus produced neutralised links to click');
    assert.deepEqual(clickMessages, [], 'no link click or action reached the workbench');
    assert.deepEqual(commandsTriggered, [], 'the workbench is unchanged (no command ran)');
    assert.deepEqual([...executed], []);
    // The chat is still this session, alive and answering.
    const first = messageHeading(payloads[0]?.id ?? '');
    assert.ok((await transcriptEntries(chat)).some((e) => e.text.includes(first)), `the transcript still holds "${first}"`);
    await sendAndWaitForTurn(chat, 'still alive after the hostile corpus?');
    await conversation(chat).getByText('You said: still alive after the hostile corpus?').waitFor({ timeout: 10_000 });
  });

  test('permission titles in the notification of a hidden chat are not clickable commands', async () => {
    const page = ui().page;
    const list = notificationPayloads;
    notificationFigures = { sent: list.length, shown: 0, commandLinks: 0, triggered: [], rawBidi: 0 };
    const prompt = `[slow n=4 ms=250] ${list.map((p) => `[command cmd=${markerValue(p.text)}]`).join(' ')}`;
    const chatNotes = await footerIds(chat);
    await sendPrompt(chat, prompt);
    // Hide the chat: the extension then raises a notification for each permission request.
    await ui().command('View: Show Explorer');
    await ui().command('Notifications: Show Notifications');
    const center = page.locator('.notifications-center');
    const findings: string[] = [];
    for (const p of list) {
      const item = center.locator('.notification-list-item').filter({ hasText: 'asks for permission' }).first();
      // A click in a notification closes the center; new notifications then only count in the status bar.
      await waitUntil(
        'the next permission notification',
        async () => {
          if ((await page.locator('.notifications-center.visible').count()) === 0) {
            await ui().command('Notifications: Show Notifications');
          }
          return item.isVisible();
        },
        30_000,
        500,
      );
      notificationFigures.shown++;
      const message = item.locator('.notification-list-item-message');
      const text = (await message.textContent()) ?? '';
      if (p.bidi && invisibleChars.test(text)) {
        notificationFigures.rawBidi++;
        findings.push(`${p.id}: raw invisible characters in the notification`);
      }
      const links = message.locator('a');
      const hrefs: string[] = [];
      for (let i = 0; i < (await links.count()); i++) {
        hrefs.push((await links.nth(i).getAttribute('href')) ?? '');
      }
      const commandLinks = hrefs.filter((h) => /^command:/i.test(h));
      notificationFigures.commandLinks += commandLinks.length;
      if (hrefs.length > 0) {
        findings.push(`${p.id}: notification shows link(s) ${hrefs.join(', ')}`);
      }
      if (commandLinks.length > 0) {
        await ui().shot(`r4-notification-${p.id}`);
        const before = await workbenchState(page);
        await message.locator('a[href^="command:"]').first().click({ timeout: 5000 });
        await page.waitForTimeout(1200);
        const changes = stateChanges(before, await workbenchState(page));
        if (changes.length > 0) {
          notificationFigures.triggered.push(`${p.id}: ${changes.join('; ')}`);
        }
        if (await page.locator('.quick-input-widget').first().isVisible().catch(() => false)) {
          await page.keyboard.press('Escape');
        }
        if ((await page.locator('.notifications-center.visible').count()) === 0) {
          await ui().command('Notifications: Show Notifications');
        }
      }
      // The center re-renders as notifications come and go: retry the click until the request is gone.
      const requests = center.locator('.notification-list-item').filter({ hasText: 'asks for permission' });
      const pending = await requests.count();
      await waitUntil(
        `the notification for ${p.id} to be answered`,
        async () => {
          if ((await page.locator('.notifications-center.visible').count()) === 0) {
            await ui().command('Notifications: Show Notifications');
          }
          await item.getByRole('button', { name: 'Deny', exact: true }).click({ timeout: 3000, force: true }).catch(() => undefined);
          return (await requests.count()) < pending || !(await item.textContent().catch(() => '') ?? '').includes(text.slice(0, 40));
        },
        30_000,
        500,
      );
    }
    for (const f of findings) {
      console.log(`        notification: ${f}`);
    }
    for (const f of notificationFigures.triggered) {
      console.log(`        notification click ran a command: ${f}`);
    }
    await ui().command('Hermes: Open Chat');
    chat = await patientChat(page);
    await newFooter(chat, chatNotes, 'the permission turn to end', 60_000);
    frames = await chatFrames(page);
    await installProbes(frames);
    assert.deepEqual([...executed], []);
    assert.equal(notificationFigures.triggered.length, 0, `a click on a permission notification ran commands:\n${notificationFigures.triggered.join('\n')}`);
    assert.equal(notificationFigures.commandLinks, 0, `agent text became command: links in notifications:\n${findings.join('\n')}`);
    assert.equal(notificationFigures.rawBidi, 0, findings.join('\n'));
  });

  test("the served document's CSP is default-src 'none' with a nonce-only script-src, and the browser enforces it", async () => {
    await ui().command('Hermes: Open Chat');
    chat = await patientChat(ui().page);
    await chat.getByRole('textbox', { name: 'Message', exact: true }).waitFor({ timeout: 60_000 });
    frames = await chatFrames(ui().page);
    await installProbes(frames);
    const served = await servedPolicy(frames.inner);
    const ours = served.policies.filter((p) => p.includes('script-src'));
    assert.equal(ours.length, 1, `one CSP with script-src in the document: ${JSON.stringify(served.policies)}`);
    const policy = parsePolicy(ours[0] ?? '');
    assert.deepEqual(policy.get('default-src'), ["'none'"], `default-src 'none': ${ours[0]}`);
    const scriptSrc = policy.get('script-src') ?? [];
    assert.equal(scriptSrc.length, 1, `script-src has exactly one source: ${scriptSrc.join(' ')}`);
    const nonce = /^'nonce-([A-Za-z0-9+/=_-]+)'$/.exec(scriptSrc[0] ?? '')?.[1];
    assert.ok(nonce !== undefined && nonce.length >= 22, `script-src is a nonce of ≥ 128 bits: ${scriptSrc.join(' ')}`);
    for (const [directive, sources] of policy) {
      for (const s of sources) {
        assert.doesNotMatch(s, /^'(?:unsafe-inline|unsafe-eval|unsafe-hashes|strict-dynamic|wasm-unsafe-eval)'$|^\*$|^https?:$|^blob:$/i, `${directive} allows ${s}`);
      }
    }
    assert.ok(!(policy.get('img-src') ?? []).some((s) => /^(?:https?:|\*)/.test(s) && !/vscode-cdn|vscode-resource|vscode-webview/.test(s)), `img-src: ${(policy.get('img-src') ?? []).join(' ')}`);
    // VS Code's webview host puts its own acquireVsCodeApi shim in front of the document; the rest is ours.
    const executable = served.scripts.filter((s) => (s.type === '' || /javascript|module/.test(s.type)) && !s.text.includes('acquireVsCodeApi'));
    assert.equal(executable.length, 1, `one executable script of ours: ${JSON.stringify(served.scripts.map((s) => ({ ...s, text: s.text.slice(0, 80) })))}`);
    assert.equal(executable[0]?.nonce, nonce, "the webview's one script carries the policy's nonce");
    // Not covered by default-src; frame-ancestors is ignored in a <meta> policy (VS Code's host frames the document).
    assert.deepEqual(policy.get('base-uri'), ["'none'"], `base-uri 'none': ${ours[0]}`);
    assert.deepEqual(policy.get('form-action'), ["'none'"], `form-action 'none': ${ours[0]}`);
    // Live: an inline script without the nonce, eval, a remote image and an inline style are refused.
    const cspBefore = (await readProbes(frames)).cspViolations.length;
    const live = await probeCspEnforcement(frames.inner, nonce);
    assert.equal(live.noncedScriptRan, true, 'positive control: a script carrying the nonce runs');
    assert.equal(live.inlineScriptRan, false, 'an injected inline script without the nonce did not run');
    assert.equal(live.evalResult, 'refused', 'eval is refused (no unsafe-eval), tried from a task of the nonced script');
    const directives = live.violations.map((v) => v.split(' ')[0] ?? '');
    assert.ok(directives.some((d) => d.startsWith('script-src')), `script-src violation reported: ${live.violations.join(' | ')}`);
    assert.ok(directives.some((d) => d.startsWith('img-src')), `img-src violation reported: ${live.violations.join(' | ')}`);
    assert.ok(directives.some((d) => d.startsWith('style-src')), `style-src violation reported: ${live.violations.join(' | ')}`);
    // Chromium reports a request the CSP refused as a failed request (`csp`): it never left the page.
    const probeUrl = 'https://xss-beacon.invalid/csp-probe.png';
    const external = ui().nonLoopback.filter((u) => u !== `${probeUrl} (failed: csp)`);
    assert.deepEqual(external, [], 'nothing but the refused probe image appears as a non-loopback request, and it was refused by the CSP');
    cspSummary =
      `CSP default-src 'none' + nonce script-src asserted from the served document (nonce of ${nonce.length} chars on its one script; live: a nonced script runs; an un-nonced inline script, a remote image and an inline style are refused: ${live.violations.length} violations; eval ${live.evalResult}); served policy: ${(ours[0] ?? '').replace(nonce, '<nonce>')}`;
    assert.equal(cspBefore, 0, 'no CSP violation before the live probe');
  });
});
