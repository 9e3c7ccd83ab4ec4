/**
 * Issue 22 — Hermes as a user sees it — in code-server + Chromium with the packaged extension.
 *
 * The agents are the replay agent on recorded Hermes 0.19.0 frames (test/fixtures/hermes) and the
 * scripted agent. Where a scenario needs a sequence no single recording has, it is built from
 * recorded lines (test/support/composedFixture.ts: whole exchanges, byte for byte, in a new order),
 * and the suite says which. code-server is a remote window of its server (`vscode.env.remoteName`
 * is its `host:port`), so its Remote settings (`<user-data>/Machine/settings.json`) stand in for
 * those of an SSH/WSL/container window, and its User settings for the local ones.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { recorded, writeFixture } from '../support/composedFixture';
import { replayAgentPath, scriptedAgentPath } from '../support/paths';
import type { PageElement } from './pageTypes';
import { openVsCode, type UiOptions, type UiSession } from './support';
import { chatWebviews, composerBox, conversation, footers, hasClass, paletteCommand, send, sendAndWaitForFooter, shotName, transcriptEntries, waitUntil, type EntrySummary } from './uiHelpers';

function tempDir(prefix: string): string {
  return fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), `hermes-${prefix}-`)));
}

/** One code-server for a suite, closed (and `dir` removed) at the end; a screenshot of each failure. */
function suiteVsCode(prefix: string, dir: string, options: UiOptions): { ui: () => UiSession } {
  let vs: UiSession | undefined;
  suiteSetup(async () => {
    vs = await openVsCode(options);
  });
  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(shotName(`FAILED-${prefix}`, this.currentTest.title));
    }
  });
  suiteTeardown(async () => {
    await vs?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });
  return {
    ui: () => {
      assert.ok(vs !== undefined, 'code-server is running');
      return vs;
    },
  };
}

/** The Hermes entry of `hermes.agents` that runs the replay agent on `fixture` (kept alive at its end). */
function replayHermes(fixture: string, lab: string): Record<string, unknown> {
  return { 'hermes.agents': [{ id: 'hermes', name: 'Hermes', command: process.execPath, args: [replayAgentPath, fixture, '--lab', lab, '--stay'] }], 'hermes.defaultAgent': 'hermes' };
}

/** A shell script standing in for an installed `hermes` (it ignores `acp`). */
function executable(file: string, body: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `#!/bin/sh\n${body}\n`, { mode: 0o755 });
  return file;
}

/** The newest notice whose title matches. */
function notice(chat: FrameLocator, title: string | RegExp): Locator {
  return conversation(chat).locator('article.notice').filter({ has: chat.locator('.notice-title', { hasText: title }) }).last();
}

async function newChat(ui: UiSession): Promise<FrameLocator> {
  await ui.command('Hermes: New Session');
  const chat = await ui.chat();
  await composerBox(chat).waitFor({ timeout: 30_000 });
  return chat;
}

/** The chat opened in an editor tab beside the side bar's (a fork). */
async function chatBeside(ui: UiSession): Promise<FrameLocator> {
  const views = await waitUntil('a chat beside the side bar', async () => {
    const found = await chatWebviews(ui.page);
    return found.length >= 2 ? found : undefined;
  });
  const beside = views[views.length - 1]?.frame;
  assert.ok(beside !== undefined);
  return beside;
}

suite('issue 22: a remote window reads the Remote settings; Set Up Agent writes them; Restart is not a crash', function () {
  this.timeout(300_000);
  const dir = tempDir('ui22-remote');
  const decoyMarker = path.join(dir, 'user-settings-agent-ran');
  const decoy = executable(path.join(dir, 'user', 'hermes'), `touch '${decoyMarker}'; exec '${process.execPath}' '${scriptedAgentPath}'`);
  const installed = executable(path.join(dir, 'bin', 'hermes'), `SCRIPTED_AGENT_STATE_FILE='${path.join(dir, 'sessions.json')}' exec '${process.execPath}' '${scriptedAgentPath}'`);
  const s = suiteVsCode('ui22-remote', dir, {
    // The Remote settings name an agent that is not installed; the User settings (ignored by a
    // remote window for machine-scoped settings) name a command that leaves a marker if it runs.
    machineSettings: { 'hermes.agents': [{ id: 'hermes', name: 'Hermes', command: 'hermes-not-installed-ui22', args: ['acp'] }], 'hermes.defaultAgent': 'hermes' },
    settings: { 'hermes.agents': [{ id: 'hermes', name: 'Hermes', command: decoy, args: ['acp'] }] },
  });
  const settingsFile = (scope: 'Machine' | 'User'): string => path.join(s.ui().server.runDir, 'ud', scope, 'settings.json');
  let chat: FrameLocator;

  test('the notice names the Remote settings this window reads, and "Open Remote Settings" opens exactly that scope', async () => {
    const ui = s.ui();
    chat = await newChat(ui);
    const missing = notice(chat, /was not found on PATH/);
    await missing.waitFor({ timeout: 30_000 });
    const text = (await missing.textContent()) ?? '';
    assert.match(text, /`hermes-not-installed-ui22` was not found on PATH of the remote machine \(127\.0\.0\.1:\d+\)/);
    assert.match(text, /This remote window reads agent commands \("hermes\.agents"\) from the Remote settings \(127\.0\.0\.1:\d+\), not from your local User settings/);
    assert.doesNotMatch(text, /user setting\b/, 'no longer sends the user to the setting they already set');
    assert.equal(fs.existsSync(decoyMarker), false, 'the User settings value is not what this window runs');
    await ui.shot('ui22-remote-not-found');

    await missing.getByRole('button', { name: 'Open Remote Settings' }).click();
    const editor = ui.page.locator('.settings-editor');
    await editor.waitFor({ timeout: 30_000 });
    const scopeTab = editor.locator('.settings-tabs-widget .action-label.checked');
    await waitUntil('the Remote tab of the settings editor', async () => ((await scopeTab.first().textContent()) ?? '').includes('Remote'), 15_000);
    await editor.locator('.setting-item-contents').filter({ hasText: 'Agents' }).first().waitFor({ timeout: 15_000 });
    await ui.shot('ui22-remote-settings-opened');
    await ui.command('View: Close All Editors');
  });

  test('"Set Up Agent…" writes the executable to the Remote settings, never the User settings, and the chat starts it', async () => {
    const ui = s.ui();
    const userBefore = fs.readFileSync(settingsFile('User'), 'utf8');
    await notice(chat, /was not found on PATH/).getByRole('button', { name: 'Set Up Agent…' }).click();
    const pick = ui.page.locator('.quick-input-widget').filter({ hasText: 'Set Up Hermes' });
    await pick.waitFor({ timeout: 15_000 });
    await ui.shot('ui22-setup-agent-pick');
    await pick.locator('.monaco-list-row').filter({ hasText: 'Enter the path…' }).click();
    const input = ui.page.locator('.quick-input-widget .quick-input-box input').first();
    await input.fill(installed);
    await ui.shot('ui22-setup-agent-path');
    await input.press('Enter');

    const saved = await waitUntil('the Remote settings to name the executable', () => {
      const machine = JSON.parse(fs.readFileSync(settingsFile('Machine'), 'utf8')) as { 'hermes.agents'?: { id: string; command: string; args: string[] }[] };
      return Promise.resolve(machine['hermes.agents']?.find((a) => a.command === installed));
    }, 15_000);
    assert.deepEqual(saved, { id: 'hermes', name: 'Hermes', command: installed, args: ['acp'] });
    assert.equal(fs.readFileSync(settingsFile('User'), 'utf8'), userBefore, 'the User settings are untouched');

    chat = await ui.chat();
    await conversation(chat).getByText(/Ask Hermes anything/).waitFor({ timeout: 30_000 });
    await sendAndWaitForFooter(chat, 'hello after the setup');
    await conversation(chat).getByText('You said: hello after the setup').waitFor({ timeout: 15_000 });
    assert.equal(fs.existsSync(decoyMarker), false, 'still not the User settings value');
    await ui.shot('ui22-setup-agent-done');
  });

  test('"Restart Agent" shows a neutral "Restarting Hermes…" line, no red card, and the conversation goes on', async () => {
    const ui = s.ui();
    await ui.command('Hermes: Restart Agent');
    await notice(chat, 'Restarting Hermes…').waitFor({ timeout: 30_000 });
    await chat.getByRole('button', { name: 'Send', exact: true }).waitFor({ timeout: 30_000 });
    await sendAndWaitForFooter(chat, 'still there after the restart?');
    await conversation(chat).getByText('You said: still there after the restart?').waitFor({ timeout: 15_000 });
    const restartNotice = notice(chat, 'Restarting Hermes…');
    assert.match((await restartNotice.getAttribute('class')) ?? '', /notice-info/);
    assert.equal(await restartNotice.getByRole('button').count(), 0, 'no crash actions on it');
    assert.equal(await conversation(chat).locator('article.notice-error').count(), 0, 'no error card');
    assert.equal(await conversation(chat).getByText('The agent was stopped.').count(), 0);
    assert.deepEqual(
      (await conversation(chat).getByRole('article', { name: 'You', exact: true }).allTextContents()).map((t) => t.trim()),
      ['hello after the setup', 'still there after the restart?'],
      'restored once, nothing repeated',
    );
    await ui.shot('ui22-restart-neutral');
  });
});

suite('issue 22: a session opened from Show Sessions shows its prompts as the user’s', function () {
  this.timeout(240_000);
  // Built from recorded frames: load.jsonl's initialize (lines 1–2), main.jsonl's session/list with
  // the cwd filter (lines 177–178: the list Show Sessions asks for), then load.jsonl's session/load
  // with its replay, response and updates (lines 3–39).
  const dir = tempDir('ui22-load');
  const fixture = writeFixture(path.join(dir, 'list-then-load.jsonl'), [...recorded('load', 1, 2), ...recorded('main', 177, 178), ...recorded('load', 3, 39)]);
  const s = suiteVsCode('ui22-load', dir, { machineSettings: replayHermes(fixture, dir) });

  test('ten replayed prompts, each the user’s message at full width, no tag, no invented footer, no gap', async () => {
    const ui = s.ui();
    await paletteCommand(ui.page, 'Hermes: Show Sessions');
    const row = ui.page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: 'Fake Session Title' }).first();
    await row.waitFor({ timeout: 30_000 });
    await row.click();
    const chat = await ui.chat();
    // The transcript is virtualized (issue 43): it is read by scrolling through it.
    const read = (): Promise<EntrySummary[]> => transcriptEntries(chat, { any: '*' }, ['data-origin']);
    let entries: EntrySummary[] = [];
    await waitUntil('ten user messages', async () => (entries = await read()).filter((e) => hasClass(e, 'entry-user')).length === 10, 30_000, 300);
    await waitUntil('the reply', async () => (entries = await read()).some((e) => e.text.includes('Hello from the fake model!')), 10_000, 300);
    await chat.locator('.session-title').getByText('Fake Session Title').waitFor({ timeout: 10_000 });
    const users = entries.filter((e) => hasClass(e, 'entry-user'));
    assert.deepEqual(users.map((e) => e.attrs['data-origin']), Array(10).fill('replay'));
    assert.deepEqual(entries.flatMap((e) => (e.parts.any ?? []).filter((t) => /^(restored|sent by the agent)$/.test(t.trim()))), [], 'no origin tag');
    assert.equal(entries.filter((e) => hasClass(e, 'turn-end')).length, 0, 'the replay carries no usage: no footer is made up');
    // The recording's last prompt (`[error500] boom`) got no reply, and Hermes still holds it: said
    // above the composer (issue 38), no notice — and no error: the load was not raced by a session/new.
    assert.deepEqual(entries.filter((e) => hasClass(e, 'notice')).map((e) => e.text), []);
    assert.match((await chat.locator('.composer-held').textContent()) ?? '', /Hermes will send your next message together with the failed one: “\[error500\] boom”/);

    // Layout: the text keeps the card's width; a turn's last entry and the next prompt are as close as any two entries.
    const layout = await conversation(chat).evaluate((log: PageElement) => {
      const entries = Array.from(log.querySelectorAll('.transcript-list > .entry-row > .entry'));
      const out: { width: number; body: number; gap: number | undefined }[] = [];
      entries.forEach((e, i) => {
        if (!e.className.split(' ').includes('entry-user')) {
          return;
        }
        const box = e.getBoundingClientRect();
        const body = e.querySelector('.user-body')?.getBoundingClientRect();
        const prev = i > 0 ? entries[i - 1]?.getBoundingClientRect() : undefined;
        out.push({ width: box.width, body: body?.width ?? 0, gap: prev !== undefined && prev.bottom > 0 && box.top > 0 ? box.top - prev.bottom : undefined });
      });
      return out;
    });
    const laidOut = layout.filter((l) => l.width > 0);
    assert.ok(laidOut.length >= 3, `measured ${laidOut.length} prompts`);
    for (const l of laidOut) {
      assert.ok(l.body >= l.width - 40, `the prompt text keeps the card's width (${l.body} of ${l.width} px)`);
    }
    for (const l of laidOut.filter((x) => x.gap !== undefined)) {
      assert.ok((l.gap ?? 0) <= 16, `no empty gap before a replayed prompt (${l.gap} px)`);
    }
    await ui.shot('ui22-loaded-session');
  });
});

suite('issue 22: /help + one Enter sends; a fork is titled "Fork of …"', function () {
  this.timeout(240_000);
  // Built from recorded frames of main.jsonl: initialize (1–2), session/new (4–7), the [plain] turn
  // and its title (12–22), /help and /model (71–78), session/fork (179–181).
  const dir = tempDir('ui22-help');
  const fixture = writeFixture(path.join(dir, 'help-and-fork.jsonl'), [
    ...recorded('main', 1, 2),
    ...recorded('main', 4, 7),
    ...recorded('main', 12, 22),
    ...recorded('main', 71, 78),
    ...recorded('main', 179, 181),
  ]);
  const s = suiteVsCode('ui22-help', dir, { machineSettings: replayHermes(fixture, dir) });
  let chat: FrameLocator;

  test('/help and one Enter: the command is sent and answered; /mod + Tab only completes', async () => {
    const ui = s.ui();
    chat = await newChat(ui);
    await sendAndWaitForFooter(chat, '[plain] Say hello.');
    await conversation(chat).getByText('Hello from the fake model!').waitFor({ timeout: 15_000 });
    const box = composerBox(chat);
    await box.fill('/help');
    const menu = chat.getByRole('listbox', { name: 'Commands' });
    await menu.getByRole('option', { name: /\/help/ }).waitFor({ timeout: 15_000 });
    await ui.shot('ui22-help-menu');
    await box.press('Enter');
    await conversation(chat).getByText(/Available commands:/).waitFor({ timeout: 15_000 });
    assert.equal(await box.inputValue(), '', 'sent with the first Enter');
    // The transcript is virtualized (issue 43; /help's answer is long): read by scrolling through it.
    const userTexts = async (): Promise<string[]> => (await transcriptEntries(chat)).filter((e) => hasClass(e, 'entry-user')).map((e) => e.text.trim());
    assert.deepEqual(await userTexts(), ['[plain] Say hello.', '/help']);
    await waitUntil('the /help turn to end', async () => (await transcriptEntries(chat)).filter((e) => hasClass(e, 'turn-end')).length === 2, 15_000, 300);
    await ui.shot('ui22-help-sent');

    await box.fill('/mod');
    await menu.getByRole('option', { name: /\/model/ }).waitFor({ timeout: 15_000 });
    await box.press('Tab');
    assert.equal(await box.inputValue(), '/model ', 'Tab completes');
    await ui.page.waitForTimeout(500);
    assert.equal((await userTexts()).length, 2, 'and does not send');
    await box.fill('/model');
    await menu.getByRole('option', { name: /\/model/ }).waitFor({ timeout: 15_000 });
    await box.press('Enter');
    await conversation(chat).getByText(/Current model: fake-model/).waitFor({ timeout: 15_000 });
  });

  test('Fork Session: the fork’s header is "Fork of Fake Session Title" until the agent names it', async () => {
    const ui = s.ui();
    await chat.locator('.session-title').getByText('Fake Session Title').waitFor({ timeout: 15_000 });
    await ui.command('Hermes: Fork Session');
    const fork = await chatBeside(ui);
    await fork.locator('.session-title').getByText('Fork of Fake Session Title').waitFor({ timeout: 15_000 });
    await ui.page.locator('.tabs-container .tab').filter({ hasText: 'Fork of Fake Session Title' }).first().waitFor({ timeout: 15_000 });
    await ui.shot('ui22-fork-title');
  });
});

suite('issue 22/38: after a failed turn the composer says Hermes will resend it, and Start fresh is one click', function () {
  this.timeout(240_000);
  // ratelimit.jsonl lines 1–21 as recorded: the 429 turn, the merged follow-up that fails again,
  // and the next session/new (the fresh start's session).
  const dir = tempDir('ui22-ratelimit');
  const fixture = writeFixture(path.join(dir, 'ratelimit.jsonl'), recorded('ratelimit', 1, 21));
  const s = suiteVsCode('ui22-ratelimit', dir, { machineSettings: replayHermes(fixture, dir) });

  test('each failure is its footer; the next message is marked as sent with the failed one; Start fresh before the first held prompt is a plain new session', async () => {
    const ui = s.ui();
    const chat = await newChat(ui);
    await send(chat, '[ratelimit] hi');
    await footers(chat).first().getByRole('group', { name: 'What failed' }).waitFor({ timeout: 30_000 });
    const held = chat.locator('.composer-held');
    await held.waitFor({ timeout: 10_000 });
    assert.match((await held.textContent()) ?? '', /together with the failed one: “\[ratelimit\] hi”/);
    assert.equal(await conversation(chat).locator('article.notice').count(), 0, 'no notice cards');
    await ui.shot('ui22-failed-turn-notice');

    await send(chat, '[plain] are you there?');
    await waitUntil('the second footer', async () => (await footers(chat).count()) === 2, 30_000);
    assert.match((await conversation(chat).getByRole('article', { name: 'You', exact: true }).last().locator('.merged-note').textContent()) ?? '', /sent together with the failed message/);
    await chat.locator('.session-title').getByText('Fake Session Title #3').waitFor({ timeout: 15_000 });
    await footers(chat).last().getByRole('button', { name: 'Start fresh' }).click();

    const fresh = await chatBeside(ui);
    await waitUntil('the failed prompt in the composer', async () => (await composerBox(fresh).inputValue()) === '[ratelimit] hi', 15_000);
    assert.equal(await conversation(fresh).getByRole('article', { name: 'You', exact: true }).count(), 0, 'the fresh session starts before the failed prompt');
    assert.equal(await conversation(fresh).getByText(/Forked with transcript/).count(), 0, 'from the first message: nothing to carry');
    await ui.shot('ui22-start-fresh');
  });
});
