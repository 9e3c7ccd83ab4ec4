/**
 * Issue 38 — with the real Hermes, round two — in code-server + Chromium with the packaged
 * extension. The agent is the replay agent on Hermes 0.19 frames recorded from the lab
 * (test/fixtures/hermes/{retry,cancel,edits,restart}.jsonl; `scripts/recordHermes.mjs`), composed
 * in the order the tests drive them (test/support/composedFixture.ts: whole recorded exchanges,
 * byte for byte). Each test checks what the user sees and what the agent received: the replay agent
 * writes every line the client sent to a log (`--received`). Layout is shot at the side bar's
 * default width and at 300 px.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { recorded, writeFixture } from '../support/composedFixture';
import { replayAgentPath } from '../support/paths';
import { openVsCode, type UiSession } from './support';
import { chatWebviews, composerBox, conversation, footers, scrolledTo, send, shotName, waitUntil } from './uiHelpers';

function tempDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `hermes-${prefix}-`)));
}

/** The prompts the agent received, in order: the session and the text of each block. */
function receivedPrompts(log: string): { sessionId: string; texts: string[] }[] {
  if (!fs.existsSync(log)) {
    return [];
  }
  return fs
    .readFileSync(log, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as { method?: string; params?: { sessionId?: string; prompt?: { type: string; text?: string }[] } })
    .filter((m) => m.method === 'session/prompt')
    .map((m) => ({ sessionId: m.params?.sessionId ?? '', texts: (m.params?.prompt ?? []).map((b) => b.text ?? `[${b.type}]`) }));
}

/** What the client answered to the agent's permission requests, by request id. */
function receivedAnswers(log: string): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const l of fs.readFileSync(log, 'utf8').split('\n')) {
    if (l.trim() === '') {
      continue;
    }
    const m = JSON.parse(l) as { id?: unknown; method?: string; result?: { outcome?: unknown } };
    if (m.method === undefined && m.result?.outcome !== undefined) {
      out[String(m.id)] = m.result.outcome;
    }
  }
  return out;
}

/** Drags the sash on the side bar's edge so the side bar is `width` px wide; returns the width it got. */
async function sideBarWidth(page: Page, width?: number): Promise<number> {
  const bar = page.locator('.part.sidebar');
  const box = await bar.boundingBox();
  assert.ok(box !== null, 'the side bar is shown');
  if (width !== undefined && Math.abs(box.width - width) > 2) {
    const y = box.y + box.height / 2;
    await page.mouse.move(box.x + box.width + 1, y);
    await page.mouse.down();
    await page.mouse.move(box.x + width + 1, y, { steps: 8 });
    await page.mouse.up();
    await page.waitForTimeout(400);
  }
  return Math.round((await bar.boundingBox())?.width ?? 0);
}

/** Screenshots at the side bar's default width and at 300 px; the width is restored afterwards. */
async function shotsAtTwoWidths(ui: UiSession, name: string, defaultWidth: number, before?: () => Promise<void>): Promise<void> {
  await before?.();
  await ui.shot(`${name}-default-${defaultWidth}px`);
  const narrow = await sideBarWidth(ui.page, 300);
  assert.ok(Math.abs(narrow - 300) <= 4, `the side bar is 300 px wide (${narrow})`);
  await before?.();
  await ui.shot(`${name}-300px`);
  await sideBarWidth(ui.page, defaultWidth);
}

/** The newest chat in an editor tab beside the side bar (a fork). */
async function newestChatBeside(ui: UiSession, count: number): Promise<FrameLocator> {
  const views = await waitUntil(`${count} chats`, async () => {
    const found = await chatWebviews(ui.page);
    return found.length >= count ? found : undefined;
  });
  const beside = views[views.length - 1]?.frame;
  assert.ok(beside !== undefined);
  return beside;
}

function users(chat: FrameLocator): Locator {
  return conversation(chat).getByRole('article', { name: 'You', exact: true });
}

async function userTexts(chat: FrameLocator): Promise<string[]> {
  return (await users(chat).locator('.user-body').allTextContents()).map((t) => t.trim());
}

suite('issue 38: a failure, Retry, forks, a cancel and edit cards with the recorded Hermes', function () {
  this.timeout(300_000);
  const dir = tempDir('ui38');
  const log = path.join(dir, 'received.jsonl');
  // In the order the tests drive it, one agent process:
  //  retry.jsonl 1–15   initialize, session/new, the prompt a transient 429 failed (3 calls);
  //  retry.jsonl 24–34  the new session Retry starts, the prompt once, answered;
  //  restart.jsonl 3–18 a new session and a prompt (the fork from a first message, sent);
  //  cancel.jsonl 3–83  a new session, a [slow] stream cancelled, the next message;
  //  edits.jsonl 3–54   a new session: patch allowed, write_file allowed, write_file denied, accept_edits.
  const fixture = writeFixture(path.join(dir, 'round2.jsonl'), [
    ...recorded('retry', 1, 15),
    ...recorded('retry', 24, 34),
    ...recorded('restart', 3, 18),
    ...recorded('cancel', 3, 83),
    ...recorded('edits', 3, 54),
  ]);
  let ui: UiSession | undefined;
  let chat: FrameLocator;
  let defaultWidth = 0;
  const session = (): UiSession => {
    assert.ok(ui !== undefined, 'code-server is running');
    return ui;
  };

  // The recording's workspace is `<LAB>/ws` (here `dir/ws`). Hermes writes the files it is allowed to
  // and the replay agent cannot: edits.jsonl's notes say what they held afterwards, so the allowed
  // ones hold that already and the denied one does not exist.
  const recordedWs = path.join(dir, 'ws');
  fs.mkdirSync(recordedWs, { recursive: true });
  fs.writeFileSync(path.join(recordedWs, 'hello.txt'), 'hello ACP\n');
  fs.writeFileSync(path.join(recordedWs, 'notes.txt'), 'line one\nline two\n');
  fs.writeFileSync(path.join(recordedWs, 'auto.txt'), 'auto ACP\n');
  suiteSetup(async () => {
    ui = await openVsCode({
      machineSettings: {
        'hermes.agents': [{ id: 'hermes', name: 'Hermes', command: process.execPath, args: [replayAgentPath, fixture, '--lab', dir, '--stay', '--received', log] }],
        'hermes.defaultAgent': 'hermes',
      },
    });
    await ui.command('Hermes: New Session');
    chat = await ui.chat();
    await composerBox(chat).waitFor({ timeout: 30_000 });
    defaultWidth = await sideBarWidth(ui.page);
  });
  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await ui?.shot(shotName('FAILED-ui38', this.currentTest.title));
    }
  });
  suiteTeardown(async () => {
    await ui?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('one failure, one message: the footer says the cause, what to do, and offers Retry in a new session, Start fresh, Show Traffic', async () => {
    const u = session();
    await send(chat, 'Say hello to the team');
    const footer = footers(chat).first();
    const block = footer.getByRole('group', { name: 'What failed' });
    await block.waitFor({ timeout: 60_000 });
    assert.match((await footer.locator('.outcome').textContent()) ?? '', /Failed: rate limited by the model provider/);
    assert.equal((await block.locator('.failure-cause').textContent())?.trim(), 'API call failed after 3 retries: HTTP 429: Rate limit reached (fake)');
    assert.match((await block.locator('.failure-hint').textContent()) ?? '', /usually temporary.*Hermes keeps this message.*sends it once, in a new session/);
    assert.deepEqual(
      (await block.getByRole('button').allTextContents()).map((t) => t.trim()),
      ['Retry in a new session', 'Start fresh', 'Show Traffic'],
    );
    // Nothing else says it: no notice card, no reply text repeating the report.
    assert.equal(await conversation(chat).locator('article.notice').count(), 0, 'no notice beside the footer');
    assert.equal(await conversation(chat).getByText('API call failed after 3 retries', { exact: false }).count(), 1, 'the report once');
    // Before the next message, the composer says Hermes would send it together with the failed one.
    const held = chat.locator('.composer-held');
    await held.waitFor({ timeout: 10_000 });
    assert.match((await held.textContent()) ?? '', /Hermes will send your next message together with the failed one: “Say hello to the team”/);
    await held.getByRole('button', { name: 'Start fresh' }).waitFor();
    await shotsAtTwoWidths(u, 'ui38-failure-block', defaultWidth);
    assert.deepEqual(receivedPrompts(log).map((p) => p.texts), [['Say hello to the team']]);
  });

  test('Retry after the 429: the message goes once, in a new session started from before it; the chat shows it once', async () => {
    const u = session();
    const before = receivedPrompts(log);
    await footers(chat).first().getByRole('button', { name: 'Retry in a new session' }).click();
    const retried = await newestChatBeside(u, 2);
    await conversation(retried).getByText('echo: Say hello to the team').waitFor({ timeout: 60_000 });
    assert.deepEqual(await userTexts(retried), ['Say hello to the team'], 'one user message');
    assert.equal(await retried.locator('.turn-end.outcome-end_turn').count(), 1);
    assert.equal(await conversation(retried).getByText(/Forked with transcript/).count(), 0, 'from the first message: a plain new session');
    const prompts = receivedPrompts(log).slice(before.length);
    assert.equal(prompts.length, 1, `one prompt sent by Retry: ${JSON.stringify(prompts)}`);
    assert.deepEqual(prompts[0]?.texts, ['Say hello to the team'], 'the message once, no transcript in front of it');
    assert.notEqual(prompts[0]?.sessionId, before[0]?.sessionId, 'in a new session, not the one that holds the failed prompt');
    await u.shot('ui38-retried');
  });

  test('fork from the first message: a plain new session with the message in its composer; sent, the agent gets just that', async () => {
    const u = session();
    const retried = await newestChatBeside(u, 2);
    const first = users(retried).first();
    await first.hover();
    await first.getByRole('button', { name: 'Fork from here' }).click();
    const fork = await newestChatBeside(u, 3);
    await waitUntil('the message in the composer', async () => (await composerBox(fork).inputValue()) === 'Say hello to the team', 15_000);
    assert.equal(await users(fork).count(), 0, 'nothing above it');
    assert.equal(await conversation(fork).locator('article.notice').count(), 0, 'no "carries the conversation above" notice');
    assert.equal(await fork.locator('.context-notes .chip').count(), 0, 'no transcript sent with it');
    assert.doesNotMatch((await fork.locator('.session-title').textContent()) ?? '', /Fork of/);
    await u.shot('ui38-fork-first-message');
    const before = receivedPrompts(log).length;
    await fork.getByRole('button', { name: 'Send', exact: true, disabled: false }).click();
    await conversation(fork).getByText('Hello from the fake model!').waitFor({ timeout: 60_000 });
    assert.deepEqual(receivedPrompts(log).slice(before).map((p) => p.texts), [['Say hello to the team']]);
    await u.command('View: Close All Editors');
  });

  test('after a cancel, the composer says before sending that the next message goes with the cancelled one; sent, it is marked so', async () => {
    const u = session();
    await u.command('Hermes: New Session');
    chat = await u.chat();
    await send(chat, '[slow] count for me');
    await conversation(chat).getByText(/tick 2/).waitFor({ timeout: 60_000 });
    await chat.getByRole('button', { name: 'Stop', exact: true }).click();
    const footer = footers(chat).last();
    await footer.locator('.outcome', { hasText: 'Cancelled' }).waitFor({ timeout: 30_000 });
    assert.match((await footer.textContent()) ?? '', /no token count reported/, 'not "0 tokens" after text streamed');
    const held = chat.locator('.composer-held');
    await held.waitFor({ timeout: 10_000 });
    assert.match((await held.textContent()) ?? '', /Hermes will send your next message together with the cancelled one: “\[slow\] count for me”/);
    await held.getByRole('button', { name: 'Start fresh' }).waitFor();
    await shotsAtTwoWidths(u, 'ui38-cancel-held', defaultWidth);
    const before = receivedPrompts(log).length;
    await send(chat, 'never mind, just say ok');
    await waitUntil('the second footer', async () => (await footers(chat).count()) === 2, 60_000);
    const merged = users(chat).last();
    assert.equal((await merged.locator('.user-body').textContent())?.trim(), 'never mind, just say ok', 'what the user typed');
    assert.match((await merged.locator('.merged-note').textContent()) ?? '', /sent together with the cancelled message/);
    assert.equal(await chat.locator('.composer-held').isVisible(), false, 'nothing held any more');
    // The client sent the message as typed; Hermes did the merging (cancel.jsonl line 59: the model got both).
    assert.deepEqual(receivedPrompts(log).slice(before).map((p) => p.texts), [['never mind, just say ok']]);
  });

  test('edit cards finish: an allowed patch and a new file Completed with their diffs, a denied write Denied (neutral), accept-edits Completed', async () => {
    const u = session();
    await u.command('Hermes: New Session');
    chat = await u.chat();
    const card = (file: string): Locator => conversation(chat).locator('article.tool-card').filter({ hasText: file }).last();
    await send(chat, '[edit] fix the greeting');
    await card('hello.txt').getByRole('button', { name: 'Allow edit' }).click();
    await card('hello.txt').locator('.tool-status.status-completed').waitFor({ timeout: 30_000 });
    await send(chat, '[write] write the notes');
    await card('notes.txt').getByRole('button', { name: 'Allow edit' }).click();
    await card('notes.txt').locator('.tool-status.status-completed').waitFor({ timeout: 30_000 });
    await send(chat, '[write] write another file');
    await card('denied.txt').getByRole('button', { name: 'Deny' }).click();
    await card('denied.txt').locator('.tool-status.status-denied').waitFor({ timeout: 30_000 });
    await chat.getByRole('combobox', { name: 'Mode', exact: true }).selectOption({ label: 'Accept Edits' });
    await send(chat, '[edit] fix it too');
    await card('auto.txt').locator('.tool-status.status-completed').waitFor({ timeout: 30_000 });

    for (const file of ['hello.txt', 'notes.txt', 'auto.txt']) {
      // (the transcript is virtualized: an earlier card is found by scrolling up to it)
      const c = await scrolledTo(conversation(chat), card(file), `the card of ${file}`);
      assert.equal(await c.locator('.tool-status.status-ended').count(), 0, `${file}: not "Ended without a result"`);
      assert.match((await c.locator('.tool-status').getAttribute('title')) ?? '', /the file holds the proposed change/);
      assert.equal(await c.locator('.diff-summary').count(), 1, `${file}: its diff is shown`);
    }
    const denied = await scrolledTo(conversation(chat), card('denied.txt'), 'the card of denied.txt');
    assert.equal((await denied.locator('.tool-status .status-text').textContent())?.trim(), 'Denied');
    const colorOf = (l: Locator): Promise<string> => l.evaluate((el) => (globalThis as unknown as { getComputedStyle(e: unknown): { color: string } }).getComputedStyle(el).color);
    const colors = { status: await colorOf(denied.locator('.tool-status')), muted: await colorOf(denied.locator('.tool-duration')) };
    assert.equal(colors.status, colors.muted, 'Denied in the neutral colour of the card, not the error colour');
    assert.equal(fs.existsSync(path.join(recordedWs, 'denied.txt')), false);
    // What the agent received: allow, allow, deny (edit-approval-1…3), and no request for accept_edits.
    assert.deepEqual(Object.values(receivedAnswers(log)).slice(-3), [
      { outcome: 'selected', optionId: 'allow_once' },
      { outcome: 'selected', optionId: 'allow_once' },
      { outcome: 'selected', optionId: 'deny' },
    ]);
    await shotsAtTwoWidths(u, 'ui38-edit-cards', defaultWidth, async () => {
      await scrolledTo(conversation(chat), card('hello.txt'), 'the card of hello.txt');
    });
  });
});

suite('issue 38: Restart Agent with the recorded Hermes is a start, and the next turn counts its own tokens', function () {
  this.timeout(300_000);
  const dir = tempDir('ui38-restart');
  const log = path.join(dir, 'received.jsonl');
  // restart.jsonl as recorded: two agent processes (the second loads the session); --next-segment
  // plays the second when the extension starts the agent again. --speed 3: the recorded pauses, a
  // third as long (Hermes' start took 3.6 s), so the restart can be watched.
  const fixture = writeFixture(path.join(dir, 'restart.jsonl'), recorded('restart', 0, 41));
  let ui: UiSession | undefined;
  suiteSetup(async () => {
    ui = await openVsCode({
      machineSettings: {
        'hermes.agents': [
          {
            id: 'hermes',
            name: 'Hermes',
            command: process.execPath,
            args: [replayAgentPath, fixture, '--lab', dir, '--stay', '--speed', '3', '--next-segment', path.join(dir, 'starts'), '--received', log],
          },
        ],
        'hermes.defaultAgent': 'hermes',
      },
    });
  });
  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await ui?.shot(shotName('FAILED-ui38-restart', this.currentTest.title));
    }
  });
  suiteTeardown(async () => {
    await ui?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('from the click to the restored session: "Restarting…", never "Agent exited"; then the footer shows this turn\'s tokens, not 0', async () => {
    assert.ok(ui !== undefined);
    await ui.command('Hermes: New Session');
    const chat = await ui.chat();
    await send(chat, '[plain] before the restart');
    await footers(chat).first().locator('.outcome', { hasText: 'Completed' }).waitFor({ timeout: 60_000 });
    assert.match((await footers(chat).first().textContent()) ?? '', /this turn: 1\.2k in · 56 out/);

    // Watch the header and the composer from the click until the session is back.
    const seen = new Set<string>();
    let watching = true;
    const watch = (async () => {
      while (watching) {
        const phase = ((await chat.locator('.topbar .phase').textContent().catch(() => '')) ?? '').trim();
        const hint = ((await chat.locator('.composer-hint').textContent().catch(() => '')) ?? '').trim();
        seen.add(`phase:${phase}`);
        seen.add(`hint:${hint}`);
        await new Promise((r) => setTimeout(r, 40));
      }
    })();
    await ui.command('Hermes: Restart Agent');
    await waitUntil('the restored session', async () => (await chat.locator('.topbar .phase').textContent())?.trim() === '' && fs.readFileSync(log, 'utf8').includes('session/load'), 60_000, 100);
    watching = false;
    await watch;
    const phases = [...seen].filter((s) => s.startsWith('phase:'));
    assert.ok(phases.includes('phase:Restarting…'), `the header said Restarting… (${phases.join(', ')})`);
    assert.ok(![...seen].some((s) => /Agent exited|has exited/.test(s)), `never an exit: ${[...seen].join(' | ')}`);
    assert.equal(await conversation(chat).locator('article.notice-error').count(), 0, 'no red card');

    await send(chat, '[plain] after the restart');
    await waitUntil('the second footer', async () => (await footers(chat).count()) === 2, 60_000);
    const second = footers(chat).nth(1);
    await second.locator('.outcome', { hasText: 'Completed' }).waitFor({ timeout: 30_000 });
    assert.match((await second.textContent()) ?? '', /this turn: 1\.2k in · 56 out · 1\.3k total tokens/, 'the new process counts from 0: not "0 tokens"');
    assert.deepEqual(receivedPrompts(log).map((p) => p.texts), [['[plain] before the restart'], ['[plain] after the restart']]);
    await ui.shot('ui38-after-restart');
  });
});
