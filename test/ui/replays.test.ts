import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { BrowserContext, Page } from 'playwright-core';
import type { Entry } from '../../src/session/sessionState';
import type { SessionController } from '../../src/session/sessionController';
import { replayAgentCommand, startStack, tempWorkspace, type AgentStack } from '../support/agentStack';
import { driveFixture, readFixture, segments, type Frame } from '../support/fixtureDriver';
import { fixturesDir } from '../support/paths';
import type { PageElement } from './pageTypes';
import { collectEntries, rowEntrySelector, scrolledTo, type CollectOptions, type EntrySummary } from './uiHelpers';
import { importEsm, openFakeHostPage, ReplayView, twoFrames, type BrowserModule, type FakeHostModule, type SeenPermission } from './replayView';

/**
 * Recorded real Hermes transcripts, replayed by the replay agent process through the REAL client
 * core (framing, SDK connection, reducer, controller), projected by the REAL `WebviewChannel` /
 * `ViewProjector` into the REAL webview bundle, in Chromium (fake webview host). Permission answers
 * the recorded client gave are given by clicking the webview's buttons.
 */

const alnum = (s: string): string => s.replace(/[^\p{L}\p{N}]+/gu, '');

const outcomeWords: Record<string, string> = {
  end_turn: 'Completed',
  cancelled: 'Cancelled',
  refusal: 'Refused',
  max_tokens: 'Stopped: max tokens',
  max_turn_requests: 'Stopped: max turn requests',
  error: 'Failed',
  interrupted: 'Interrupted',
};

function entryText(e: Entry): string[] {
  switch (e.kind) {
    case 'user':
      return e.blocks.map((b) => (b.type === 'text' ? b.text : '')).filter((t) => t !== '');
    case 'assistant':
      return e.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : []));
    case 'tool':
      return [e.title];
    case 'plan':
      return e.entries.map((p) => p.content);
    case 'notice':
      return [e.title];
    case 'turnEnd':
      return [outcomeWords[e.outcome] ?? e.outcome];
    case 'question':
      return [];
  }
}

/** What the replay tests read of each entry besides its text (the transcript is read by scrolling). */
const readParts = { userBody: '.user-body', any: '*', busy: '.codicon-modifier-spin, .permission-pending', planText: '.plan-text' } as const;

/** Every entry of the controller's state is one visible element, in order, showing its text; returns what was read. */
async function assertEveryEntryShown(view: ReplayView): Promise<EntrySummary[]> {
  const page = view.page;
  // What a user looks at is in front (a chat renders in animation frames).
  await page.bringToFront();
  const log = page.getByRole('log', { name: 'Conversation' });
  // The transcript is virtualized: read it scrolling from top to bottom.
  const what: CollectOptions = { selector: rowEntrySelector, parts: readParts, attrs: ['data-origin'] };
  const read = async (): Promise<EntrySummary[]> => log.evaluate(collectEntries, what);
  // The controller may add an entry after the last frame was logged (a frame read but not yet
  // dispatched, a notice at the turn's end): the page gets it in the channel's next patch.
  const deadline = Date.now() + 5_000;
  let shown = await read();
  while (shown.length !== view.controller.state.entries.length && Date.now() < deadline) {
    await new Promise((res) => setTimeout(res, 50));
    await view.settle();
    shown = await read();
  }
  const entries = view.controller.state.entries;
  assert.deepEqual(
    shown.map((s) => s.id),
    entries.map((e) => e.id),
    `one element per entry, in order (the controller's: ${entries.map((e) => `${e.id} ${e.kind}`).join(', ')}; delivered to the page: ${view.webview.delivered.length} messages, the last ${view.webview.delivered.slice(-4).map((m) => m.type).join(', ')}; failed deliveries: ${view.webview.deliveryErrors.join(' | ') || 'none'}; resyncs the page asked for: ${view.webview.posted.filter((m) => (m as { type?: string }).type === 'session/resync').length}; console errors: ${view.consoleErrors.join(' | ') || 'none'})`,
  );
  entries.forEach((e, i) => {
    const el = shown[i];
    assert.ok(el?.visible === true, `entry ${e.id} (${e.kind}) is visible`);
    for (const text of entryText(e)) {
      const want = alnum(text).slice(0, 60);
      assert.ok(alnum(el.text).includes(want), `entry ${e.id} (${e.kind}) shows "${text.slice(0, 80)}"; it shows "${el.text.slice(0, 200)}" ${el.html}`);
    }
  });
  return shown;
}

/** Nothing read of the whole transcript (`shown`, by scrolling) still looks busy. */
function assertNothingBusyIn(shown: readonly EntrySummary[]): void {
  const busy = shown.filter((e) => /\btool-card\b/.test(e.cls) && /\bstatus-(pending|in_progress)\b/.test(e.cls)).map((e) => e.html.slice(0, 160));
  // (A plan's in-progress item spins by design: only cards and replies count.)
  busy.push(...shown.filter((e) => /\b(tool-card|entry-assistant)\b/.test(e.cls) && (e.parts.busy ?? []).length > 0).map((e) => e.html.slice(0, 160)));
  assert.deepEqual(busy, [], 'no card is left pending, in progress or spinning');
  assert.ok(!shown.some((e) => (e.parts.any ?? []).some((t) => t.trim() === 'Thinking…')), 'no thought still "Thinking…"');
}

/** Nothing in the transcript still looks busy once the session is idle. */
async function assertNothingSpinning(page: Page): Promise<void> {
  const busy = await page
    .locator('[role="log"]')
    .evaluate((log: PageElement) =>
      Array.from(
        log.querySelectorAll(
          '.tool-card.status-pending, .tool-card.status-in_progress, .tool-card .codicon-modifier-spin, .entry-assistant .codicon-modifier-spin, .permission-pending',
        ),
      ).map((e) => e.outerHTML.slice(0, 160)),
    );
  assert.deepEqual(busy, [], 'no card is left pending, in progress or spinning');
  assert.equal(await page.getByText('Thinking…').count(), 0, 'no thought still "Thinking…"');
}

/** Screenshots of the whole transcript, one per screenful. */
async function shootTranscript(browser: BrowserModule, page: Page, name: string): Promise<string[]> {
  const log = page.locator('[role="log"]');
  const { height, total } = await log.evaluate((l: PageElement) => ({ height: l.clientHeight, total: l.scrollHeight }));
  const shots: string[] = [];
  const n = Math.min(12, Math.max(1, Math.ceil(total / Math.max(1, height - 40))));
  for (let i = 0; i < n; i++) {
    await log.evaluate((l: PageElement, top: number) => {
      l.scrollTop = top;
    }, i * (height - 40));
    await twoFrames(page);
    shots.push(await browser.screenshot(page, `${name}-${String(i + 1).padStart(2, '0')}`));
  }
  return shots;
}

interface Replay {
  readonly stack: AgentStack;
  readonly lab: string;
  readonly frames: Frame[];
  /** Views by controller, in the order the sessions appeared. */
  readonly views: Map<SessionController, ReplayView>;
}

suite('recorded Hermes transcripts rendered in the real webview (Chromium, fake host)', function () {
  this.timeout(180_000);
  let browserMod: BrowserModule;
  let browser: { context: BrowserContext; page: Page; close(): Promise<void> } | undefined;
  let host: { url: string; close(): Promise<void> } | undefined;
  const open: Replay[] = [];

  suiteSetup(async () => {
    browserMod = await importEsm<BrowserModule>('test', 'harness', 'browser.mjs');
    const fake = await importEsm<FakeHostModule>('test', 'webview-host', 'fakeHost.mjs');
    host = await fake.startFakeHost();
    browser = await browserMod.launchBrowser({ viewport: { width: 720, height: 1100 } });
  });

  teardown(async function () {
    for (const r of open.splice(0)) {
      if (this.currentTest?.state === 'failed') {
        let i = 0;
        for (const v of r.views.values()) {
          await browserMod.screenshot(v.page, `FAILED-replay-${(this.currentTest.title).replace(/\W+/g, '-').slice(0, 60)}-${++i}`).catch(() => undefined);
        }
      }
      for (const v of r.views.values()) {
        v.dispose();
        await v.page.close().catch(() => undefined);
      }
      await r.stack.dispose();
      fs.rmSync(r.lab, { recursive: true, force: true });
    }
  });

  suiteTeardown(async () => {
    await browser?.close();
    await host?.close();
  });

  /** Opens a fake-host page for a controller and binds it through the real channel. */
  async function viewFor(controller: SessionController, lab: string, onPermissionShown?: (view: ReplayView, seen: SeenPermission) => Promise<void>): Promise<ReplayView> {
    assert.ok(browser !== undefined && host !== undefined);
    const page = await openFakeHostPage(browser.context, host.url);
    return new ReplayView(page, controller, { agentName: 'Hermes', workspace: path.join(lab, 'ws'), ...(onPermissionShown !== undefined ? { onPermissionShown } : {}) });
  }

  /** Replays a Hermes fixture (one agent process) and shows every session it touches. */
  async function replay(name: string, onPermissionShown?: (view: ReplayView, seen: SeenPermission) => Promise<void>): Promise<Replay> {
    const file = path.join(fixturesDir, `${name}.jsonl`);
    const lab = tempWorkspace('hermes-lab-');
    const segs = segments(readFixture(file, lab));
    assert.equal(segs.length, 1, 'one agent process');
    const frames = segs[0] ?? [];
    const stack = await startStack(replayAgentCommand(lab, file, ['--stay']));
    const views = new Map<SessionController, ReplayView>();
    const r: Replay = { stack, lab, frames, views };
    open.push(r);
    views.set(stack.controller, await viewFor(stack.controller, lab, onPermissionShown));
    // Sessions the fixture opens later get their own page as soon as they appear.
    const pendingViews: Promise<unknown>[] = [];
    const starting = new Set<SessionController>();
    const watch = setInterval(() => {
      for (const c of stack.controllers.values()) {
        if (!views.has(c) && !starting.has(c)) {
          starting.add(c);
          pendingViews.push(viewFor(c, lab, onPermissionShown).then((view) => views.set(c, view)));
        }
      }
    }, 20);
    try {
      await driveFixture(stack, frames);
      // Updates may follow the last response (Hermes sends titles late): wait for every recorded
      // agent frame the live client can get (the driver does not re-run a second `initialize`).
      const stop = frames.findIndex((f, i) => i > 0 && f.dir === 'c2a' && f.msg.method === 'initialize');
      const expected = (stop < 0 ? frames : frames.slice(0, stop)).filter((f) => f.dir === 'a2c').length;
      const deadline = Date.now() + 10_000;
      while (stack.log.snapshot().filter((e) => e.dir === 'in').length < expected && Date.now() < deadline) {
        await new Promise((res) => setTimeout(res, 10));
      }
    } finally {
      clearInterval(watch);
    }
    await Promise.all(pendingViews);
    for (const c of stack.controllers.values()) {
      if (!views.has(c)) {
        views.set(c, await viewFor(c, lab, onPermissionShown));
      }
    }
    for (const v of views.values()) {
      assert.deepEqual(v.errors, [], 'permissions answered in the webview');
      assert.notEqual(v.controller.state.phase, 'running', 'no turn left running');
      await v.page.bringToFront();
      await v.settle();
      await new Promise((res) => setTimeout(res, 300)); // paced Markdown tails
      await v.settle();
    }
    return r;
  }

  function viewOf(r: Replay, sessionId: string): ReplayView {
    for (const v of r.views.values()) {
      if (v.controller.sessionId === sessionId) {
        return v;
      }
    }
    assert.fail(`no view for session ${sessionId}; have ${[...r.views.values()].map((v) => v.controller.sessionId).join(', ')}`);
  }

  function assertCleanPages(r: Replay): void {
    for (const v of r.views.values()) {
      assert.deepEqual(v.consoleErrors, [], `no console errors in the view of ${v.controller.sessionId ?? '(no session)'}`);
      // Patches arrived in order: the webview never asked for a resync.
      assert.deepEqual(v.webview.posted.filter((m) => (m as { type?: string }).type === 'session/resync'), [], 'no seq gap');
    }
  }

  test('hermes/main.jsonl: every entry rendered, permissions answered from their buttons, plan, provider error', async () => {
    const shownShots: string[] = [];
    const r = await replay('hermes/main', async (view, seen) => {
      const flavour = seen.buttons.includes('Allow edit') ? 'edit' : 'command';
      const name = `replay-hermes-main-permission-${flavour}-${view.permissions.length}`;
      await view.page.getByRole('group', { name: `Permission requested: ${seen.title}`, exact: true }).scrollIntoViewIfNeeded();
      shownShots.push(await browserMod.screenshot(view.page, name));
    });
    const main = viewOf(r, '8be82f21-d9fd-429c-a878-1b6526473740');
    const page = main.page;
    assert.equal(main.controller.state.title, 'Fake Session Title');

    // Both permission flavours, each with exactly the offered options as buttons.
    const edit = main.permissions.filter((p) => p.buttons.includes('Allow edit'));
    const command = main.permissions.filter((p) => !p.buttons.includes('Allow edit'));
    assert.deepEqual(edit.map((p) => p.buttons), [['Allow edit', 'Deny'], ['Allow edit', 'Deny']]);
    assert.deepEqual(command.map((p) => p.buttons), [
      ['Allow once', 'Allow for session', 'Allow always', 'Deny', 'Deny always'],
      ['Allow once', 'Allow for session', 'Allow always', 'Deny', 'Deny always'],
    ]);
    // The webview's clicks answered exactly what the recorded client answered.
    assert.deepEqual(
      main.permissions.map((p) => [p.recorded, p.posted?.optionId ?? 'cancelled']),
      [
        ['allow_once', 'allow_once'],
        ['deny', 'deny'],
        ['allow_once', 'allow_once'],
        ['cancelled', 'cancelled'],
      ],
    );
    assert.equal(shownShots.length, 4);

    const shown = await assertEveryEntryShown(main);
    assertNothingBusyIn(shown);
    await assertNothingSpinning(page);
    const log = page.getByRole('log', { name: 'Conversation' });
    // Answered prompts say what was chosen; no option buttons are left (the whole transcript, read by scrolling).
    for (const answered of ['Answered “Allow edit” by you', 'Answered “Deny” by you', 'Answered “Allow once” by you']) {
      assert.ok(shown.some((e) => e.text.includes(answered)), `"${answered}" is shown`);
    }
    assert.equal(await page.getByRole('group', { name: /^Permission requested/ }).count(), 0, 'no prompt left pending');

    // The plan checklist (todo tool → plan update): one checklist with each status.
    assert.equal(shown.filter((e) => /\bentry-plan\b/.test(e.cls)).length, 1, 'one plan');
    const plan = await scrolledTo(log, log.getByRole('article', { name: 'Plan' }), 'the plan');
    assert.equal(await plan.count(), 1);
    assert.deepEqual(
      await plan.getByRole('listitem').evaluateAll((items: PageElement[]) => items.map((li) => [li.querySelector('.plan-text')?.textContent ?? '', li.className.replace(/.*\bplan-(completed|in-progress|pending)\b.*/, '$1')])),
      [
        ['Read the code', 'completed'],
        ['Write the patch', 'in-progress'],
        ['Run the tests', 'pending'],
      ],
    );
    await plan.getByText('1 of 3 done').waitFor({ timeout: 5000 });

    // The provider failure Hermes reports as message text.
    assert.ok(shown.some((e) => e.text.includes('API call failed after 3 retries: HTTP 500: Fake upstream exploded')), 'the provider failure is shown');
    // The cancelled turn and Hermes' note about the combined follow-up.
    assert.ok(shown.some((e) => /\bturn-end\b/.test(e.cls) && e.text.includes('Cancelled')), 'a turn ended Cancelled');
    // The header: title, and the context gauge of the last usage_update.
    await page.locator('.session-title').getByText('Fake Session Title').waitFor({ timeout: 5000 });
    const usage = main.controller.state.usage;
    assert.ok(usage !== undefined);
    assert.equal(Number(await page.getByRole('meter').getAttribute('value')), usage.used);

    for (const v of r.views.values()) {
      if (v !== main) {
        await assertEveryEntryShown(v);
        await assertNothingSpinning(v.page);
      }
    }
    assertCleanPages(r);
    await shootTranscript(browserMod, page, 'replay-hermes-main');
  });

  test('hermes/load.jsonl: load then resume (which Hermes replays again) shows each user message once', async () => {
    const r = await replay('hermes/load');
    const loaded = viewOf(r, '8be82f21-d9fd-429c-a878-1b6526473740');
    // What one replay carries: the user messages between session/load and its response.
    const loadAt = r.frames.findIndex((f) => f.msg.method === 'session/load');
    const loadId = r.frames[loadAt]?.msg.id;
    const loadEnd = r.frames.findIndex((f, i) => i > loadAt && f.dir === 'a2c' && f.msg.id === loadId && f.msg.method === undefined);
    // Consecutive user_message_chunks are one message.
    const replayedUsers: string[] = [];
    let previous = '';
    for (const f of r.frames.slice(loadAt + 1, loadEnd)) {
      const update = (f.msg.params as { update?: { sessionUpdate?: string; content?: { text?: string } } } | undefined)?.update;
      if (update?.sessionUpdate === 'user_message_chunk') {
        const text = update.content?.text ?? '';
        if (previous === 'user_message_chunk') {
          replayedUsers[replayedUsers.length - 1] += text;
        } else {
          replayedUsers.push(text);
        }
      }
      previous = update?.sessionUpdate ?? '';
    }
    assert.equal(replayedUsers.length, 10, 'the fixture replays ten user messages');
    // …and session/resume replays the same nine again.
    const resumeAt = r.frames.findIndex((f) => f.msg.method === 'session/resume');
    assert.ok(resumeAt > loadEnd);

    const shown = await assertEveryEntryShown(loaded);
    const userEntries = shown.filter((e) => /\bentry-user\b/.test(e.cls));
    const users = userEntries.map((e) => e.parts.userBody?.[0] ?? '');
    assert.equal(users.length, 10, `ten user messages, not ${users.length}`);
    // A message Hermes merged with a cancelled one shows what the user typed (marked "sent together", issue 38).
    const typed = replayedUsers.map((u) => u.replace(/^[\s\S]*User correction\/guidance after interrupt:\s*/, ''));
    assert.deepEqual(users.map(alnum), typed.map(alnum), 'each replayed message once, in order');
    // Replayed prompts are the user's messages, shown exactly like typed ones (issue 22): no origin tag.
    assert.deepEqual(shown.flatMap((e) => (e.parts.any ?? []).filter((t) => /^(restored|sent by the agent)$/.test(t))), [], 'no origin tag');
    assert.deepEqual(userEntries.map((e) => e.attrs['data-origin']), Array(10).fill('replay'));
    assertNothingBusyIn(shown);
    await assertNothingSpinning(loaded.page);
    assert.equal(shown.filter((e) => e.text.includes('Hello from the fake model!')).length, 1, 'the reply once');
    for (const v of r.views.values()) {
      if (v !== loaded) {
        await assertEveryEntryShown(v);
      }
    }
    assertCleanPages(r);
    await shootTranscript(browserMod, loaded.page, 'replay-hermes-load');
  });

  test('hermes/ratelimit.jsonl: the HTTP 429 and 401 texts show in their sessions', async () => {
    const r = await replay('hermes/ratelimit');
    const limited = viewOf(r, 'c630877c-49cc-44ff-8b51-efab86331d55');
    const unauthorized = viewOf(r, '10bc02ec-7dbe-4eae-98bc-0c7d559e391a');
    const log429 = limited.page.getByRole('log', { name: 'Conversation' });
    await log429.getByText('API call failed after 3 retries: HTTP 429: Rate limit reached (fake)').first().waitFor({ timeout: 5000 });
    assert.equal(await log429.getByText('API call failed after 3 retries: HTTP 429: Rate limit reached (fake)').count(), 2, 'both prompts got the 429');
    const log401 = unauthorized.page.getByRole('log', { name: 'Conversation' });
    await log401.getByText('HTTP 401: Incorrect API key provided (fake)').waitFor({ timeout: 5000 });
    await limited.page.locator('.session-title').getByText('Fake Session Title #3').waitFor({ timeout: 5000 });
    await unauthorized.page.locator('.session-title').getByText('Fake Session Title #4').waitFor({ timeout: 5000 });
    for (const v of [limited, unauthorized]) {
      await assertEveryEntryShown(v);
      await assertNothingSpinning(v.page);
    }
    assertCleanPages(r);
    await browserMod.screenshot(limited.page, 'replay-hermes-ratelimit-429');
    await browserMod.screenshot(unauthorized.page, 'replay-hermes-ratelimit-401');
  });
});

