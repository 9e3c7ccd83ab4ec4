import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { scriptedAgentPath } from '../support/paths';
import { openVsCode, type UiSession } from './support';
import {
  chatWebviews,
  composerBox,
  conversation,
  describeWebviews,
  footers,
  highestTick,
  paletteCommand,
  readAgentState,
  send,
  sendAndWaitForFooter,
  shotName,
  storedUserTexts,
  waitForCount,
  waitUntil,
} from './uiHelpers';

/** The user messages a chat shows, in order. */
async function userTexts(chat: FrameLocator): Promise<string[]> {
  return (await conversation(chat).getByRole('article', { name: 'You' }).locator('.user-body').allTextContents()).map((t) => t.trim());
}

/** The text of the chat's newest agent message. */
async function lastReply(chat: FrameLocator): Promise<string> {
  const replies = conversation(chat).getByRole('article', { name: 'Scripted' });
  return (await replies.count()) === 0 ? '' : ((await replies.last().textContent()) ?? '');
}

/**
 * Session-level behaviour in code-server + Chromium with the scripted agent: cancel, fork from a
 * message, opening history, modes, slash commands, and recovery from an agent crash. The agent
 * persists its sessions (SCRIPTED_AGENT_STATE_FILE), so a restarted agent can load them.
 */
suite('sessions in code-server + Chromium', function () {
  this.timeout(240_000);
  let vs: UiSession | undefined;
  let chat: FrameLocator;
  const stateDir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-ui-sessions-'));
  const stateFile = path.join(stateDir, 'agent-state.json');

  const ui = (): UiSession => {
    assert.ok(vs !== undefined, 'code-server is running');
    return vs;
  };

  /** The chat in the side bar (the leftmost chat webview on screen). */
  const sidebarChat = async (): Promise<FrameLocator> => {
    const views = await waitUntil('the side bar chat', async () => {
      const found = await chatWebviews(ui().page);
      return found.length > 0 ? found : undefined;
    });
    const first = views[0];
    assert.ok(first !== undefined);
    return first.frame;
  };

  /** "Hermes: New Session" in the side bar, and waits for the empty chat. */
  const newSession = async (): Promise<void> => {
    await ui().command('Hermes: New Session');
    chat = await sidebarChat();
    await conversation(chat).getByText(/Ask Scripted anything/).waitFor({ timeout: 30_000 });
  };

  suiteSetup(async () => {
    vs = await openVsCode({
      machineSettings: {
        // A second agent for the hand-off: another process of the scripted agent, under another name.
        'hermes.agents': [
          { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: { SCRIPTED_AGENT_STATE_FILE: stateFile } },
          { id: 'second', name: 'Second Agent', command: process.execPath, args: [scriptedAgentPath], env: {} },
        ],
      },
    });
    await newSession();
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(shotName('FAILED-sessions', this.currentTest.title));
      if (vs !== undefined) {
        const replies = await Promise.all((await chatWebviews(vs.page)).map(async (v) => (await lastReply(v.frame)).slice(-160)));
        console.log(`      newest reply per chat webview: ${JSON.stringify(replies)}`);
        console.log(`      webviews at the failure:\n${(await describeWebviews(vs.page)).map((l) => `        ${l}`).join('\n')}`);
      }
    }
  });

  suiteTeardown(async () => {
    await vs?.close();
    fs.rmSync(stateDir, { recursive: true, force: true });
  });

  test('Stop mid-stream ends the turn "Cancelled", brings Send back, and the ticks stop', async () => {
    await send(chat, 'Count slowly [slow n=60 ms=150]');
    await waitUntil('a few ticks', async () => highestTick(await lastReply(chat)) >= 4, 20_000);
    await ui().shot('ui-sessions-cancel-streaming');
    await chat.getByRole('button', { name: 'Stop' }).click();
    const footer = footers(chat).last();
    await footer.getByText('Cancelled', { exact: true }).waitFor({ timeout: 10_000 });
    await chat.getByRole('button', { name: 'Send' }).waitFor({ state: 'visible', timeout: 10_000 });
    assert.equal(await chat.getByRole('button', { name: 'Stop' }).isVisible(), false, 'Stop is gone');
    const ticks = (s: string): number => (s.match(/tick \d+/g) ?? []).length;
    const atCancel = ticks(await lastReply(chat));
    await ui().page.waitForTimeout(1500); // ten more ticks' time
    const later = ticks(await lastReply(chat));
    assert.equal(later, atCancel, 'no tick arrived after the cancel');
    assert.ok(atCancel >= 4 && atCancel < 60, `stopped mid-stream (${atCancel} ticks)`);
    // The composer takes a new prompt.
    await composerBox(chat).fill('next');
    await chat.getByRole('button', { name: 'Send', disabled: false }).waitFor({ timeout: 5000 });
    await composerBox(chat).fill('');
    await ui().shot('ui-sessions-cancelled');
  });

  test('Fork from here opens an editor chat with the earlier exchange, a notice, and the message as draft', async () => {
    await newSession();
    await sendAndWaitForFooter(chat, 'First question [plain]');
    await sendAndWaitForFooter(chat, 'Second question');
    const before = await conversation(chat).textContent();
    const second = conversation(chat).getByRole('article', { name: 'You' }).nth(1);
    await second.getByRole('button', { name: 'Fork from here' }).click();

    const views = await waitUntil('a second chat webview', async () => {
      const found = await chatWebviews(ui().page);
      return found.length >= 2 ? found : undefined;
    });
    const fork = views[views.length - 1];
    assert.ok(fork !== undefined && fork.x > (views[0]?.x ?? 0), 'the fork is in the editor area, right of the side bar');
    const forkChat = fork.frame;
    await conversation(forkChat).getByText(/Forked with transcript/).waitFor({ timeout: 30_000 });
    assert.deepEqual(await userTexts(forkChat), ['First question [plain]'], 'the fork shows the exchange before the fork point');
    await conversation(forkChat).getByText(/Hello from the scripted agent!/).waitFor({ timeout: 5000 });
    assert.equal(await composerBox(forkChat).inputValue(), 'Second question', 'the forked message waits in the composer');
    // The editor tab is a Hermes chat.
    assert.ok((await ui().page.locator('.tabs-container .tab').count()) >= 1, 'an editor tab opened');
    await ui().shot('ui-sessions-fork');

    // The original is untouched.
    assert.deepEqual(await userTexts(chat), ['First question [plain]', 'Second question']);
    assert.equal(await conversation(chat).getByText(/Forked with transcript/).count(), 0);
    assert.equal(await conversation(chat).textContent(), before);
    await ui().command('View: Close All Editors');
    await waitUntil('the fork tab to close', async () => (await chatWebviews(ui().page)).length === 1, 15_000);
  });

  test('Continue with Another Agent… hands the conversation to a second agent, which receives it whole; the new chat links back', async () => {
    await newSession();
    await sendAndWaitForFooter(chat, 'Plan the work [plan]');
    await sendAndWaitForFooter(chat, 'Then say hello');
    await paletteCommand(ui().page, 'Hermes: Continue with Another Agent…');
    const pickRow = (label: string) => ui().page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ has: ui().page.locator('.label-name', { hasText: label }) }).first();
    await pickRow('Second Agent').click({ timeout: 30_000 });
    await pickRow('Hand over the conversation').click({ timeout: 30_000 });

    const views = await waitUntil('the second agent’s chat', async () => {
      const found = await chatWebviews(ui().page);
      return found.length >= 2 ? found : undefined;
    });
    const second = views[views.length - 1]?.frame;
    assert.ok(second !== undefined);
    await conversation(second).getByText('Continued from “Plan the work [plan]” with Scripted.').waitFor({ timeout: 30_000 });
    await conversation(second).getByText(/Your next message carries the conversation so far \(2 turn\(s\)\), as an attached document/).waitFor({ timeout: 5000 });
    await second.getByText('The conversation handed over from Scripted').first().waitFor({ timeout: 10_000 });
    await ui().shot('ui-sessions-handoff-ready');

    await sendAndWaitForFooter(second, 'Carry on [received]');
    const reply = (await conversation(second).getByRole('article', { name: 'Second Agent' }).last().textContent()) ?? '';
    assert.match(reply, /Received 2 block\(s\):/);
    // (The reply is rendered Markdown: its list items read without their dashes.)
    assert.match(reply, /resource hermes-acp:\/\/handoff\/\S+?\.md text\/markdown, \d+ chars/);
    assert.match(reply, /chars\s*text, 19 chars/, 'then what the user typed');
    for (const part of ['another coding agent, Scripted', 'Plan the work [plan]', 'Then say hello', 'You said: Then say hello', 'Current plan', 'Run the tests']) {
      assert.ok(reply.includes(part), `the second agent received “${part}”: ${reply.slice(0, 400)}`);
    }
    await ui().shot('ui-sessions-handoff-received');

    // The first chat says where the work went, and the link back shows it.
    await conversation(chat).getByText('Handed off to Second Agent in a new chat.').waitFor({ timeout: 5000 });
    await conversation(second).getByRole('button', { name: 'Open the original chat' }).click();
    await waitUntil('the original chat shown', async () => (await conversation(chat).getByText('Handed off to Second Agent in a new chat.').isVisible()) || undefined, 10_000);
    await ui().command('View: Close All Editors');
    await waitUntil('the hand-off tab to close', async () => (await chatWebviews(ui().page)).length === 1, 15_000);
  });

  test('Show Sessions opens an earlier session and replays it once', async () => {
    await newSession();
    await sendAndWaitForFooter(chat, 'Remember this one [title text=Historic session]');
    await chat.locator('.session-title').getByText('Historic session').waitFor({ timeout: 15_000 });
    await newSession();
    assert.deepEqual(await userTexts(chat), []);

    // The command opens a second quick pick at once, so run it from the palette without waiting for it to close.
    await paletteCommand(ui().page, 'Hermes: Show Sessions');
    const row = ui().page.locator('.quick-input-widget .monaco-list-row').filter({ hasText: 'Historic session' }).first();
    await row.waitFor({ timeout: 30_000 });
    await ui().shot('ui-sessions-history-pick');
    await row.click();
    chat = await sidebarChat();
    await conversation(chat).getByText('Remember this one [title text=Historic session]').waitFor({ timeout: 30_000 });
    await conversation(chat).getByText('I will name this session "Historic session".').waitFor({ timeout: 10_000 });
    await ui().page.waitForTimeout(1000); // anything replayed twice would have arrived by now
    assert.deepEqual(await userTexts(chat), ['Remember this one [title text=Historic session]'], 'replayed once');
    assert.equal(await conversation(chat).getByRole('article', { name: 'Scripted' }).count(), 1, 'one agent message');
    assert.equal(await conversation(chat).getByText('I will name this session "Historic session".').count(), 1);
    await chat.locator('.session-title').getByText('Historic session').waitFor({ timeout: 10_000 });
    // The restored session takes a new prompt.
    await sendAndWaitForFooter(chat, 'and now?');
    await conversation(chat).getByText('You said: and now?').waitFor({ timeout: 10_000 });
    await ui().shot('ui-sessions-history-opened');
  });

  test('switching the Mode selector to Accept Edits changes the session mode: an edit goes through without asking', async () => {
    await newSession();
    const mode = chat.getByRole('combobox', { name: 'Mode', exact: true });
    assert.equal(await mode.inputValue(), 'default');
    await mode.selectOption({ label: 'Accept Edits' });
    const prompt = '[edit path=x.txt text=y]';
    // The mode reaches the agent (session/set_mode): it persists it with the session.
    await waitUntil('the agent to store the mode', () =>
      Promise.resolve(readAgentState(stateFile).some((s) => s.modeId === 'accept_edits' && s.turns.length === 0)),
    15_000);
    await sendAndWaitForFooter(chat, prompt);
    assert.equal(await mode.inputValue(), 'accept_edits');
    const log = conversation(chat);
    assert.equal(await log.getByRole('button', { name: /Allow edit|Deny/ }).count(), 0, 'no permission asked');
    assert.equal(fs.readFileSync(path.join(ui().workspace, 'x.txt'), 'utf8'), 'y', 'the agent wrote the file');
    const stored = readAgentState(stateFile).find((s) => storedUserTexts(s).includes(prompt));
    assert.equal(stored?.modeId, 'accept_edits');
    await ui().shot('ui-sessions-mode-accept-edits');
  });

  test('typing "/" lists the agent\'s commands; ArrowDown + Enter inserts /model; /he + one Enter sends /help', async () => {
    const box = composerBox(chat);
    const turnsBefore = await footers(chat).count();
    await box.fill('');
    await box.pressSequentially('/');
    const menu = chat.getByRole('listbox', { name: 'Commands' });
    await menu.waitFor({ state: 'visible', timeout: 10_000 });
    const options = (await menu.getByRole('option').locator('.slash-name').allInnerTexts()).map((t) => t.trim());
    // The agent's commands, then the chat's own (run by the client, issue 38).
    assert.deepEqual(options, ['/help', '/model', '/plan', '/review', '/new', '/sessions', '/restart', '/traffic', '/copy']);
    assert.equal(await menu.getByRole('option', { selected: true }).locator('.slash-name').innerText(), '/help');
    await ui().shot('ui-sessions-slash-menu');
    await box.press('ArrowDown');
    assert.equal(await menu.getByRole('option', { selected: true }).locator('.slash-name').innerText(), '/model');
    await box.press('Enter');
    assert.equal(await box.inputValue(), '/model ');
    assert.equal(await menu.isVisible(), false, 'the menu closed');
    assert.equal(await footers(chat).count(), turnsBefore, 'choosing a command does not send it');

    // "/he" filters to /help, which takes no argument: one Enter completes and sends it (issue 22).
    await box.fill('');
    await box.pressSequentially('/he');
    await waitForCount(menu.getByRole('option'), 1, 'only /help matches');
    const notes = footers(chat);
    const before = await notes.count();
    await box.press('Enter');
    await waitForCount(notes, before + 1, 'the /help turn to end');
    assert.equal(await box.inputValue(), '', 'sent with one Enter');
    const reply = conversation(chat).getByRole('article', { name: 'Scripted' }).last();
    await reply.getByText('Available commands:').waitFor({ timeout: 10_000 });
    const items = (await reply.getByRole('listitem').allInnerTexts()).map((t) => t.trim());
    assert.deepEqual(items, ['/help: List available commands', '/model: Show current model, or switch models', '/plan: Show a sample plan', '/review: Review the current changes']);
    await ui().shot('ui-sessions-slash-help');
  });

  test('agent crash mid-turn: exit notice with stderr, auto-restart restores the chat once, the unsent draft survives', async () => {
    await newSession();
    await sendAndWaitForFooter(chat, 'before the crash [plain]');
    const crashPrompt = 'crash soon [slow n=15 ms=100] [crash when=mid mode=kill]';
    await send(chat, crashPrompt);
    await waitUntil('ticks to stream', async () => highestTick(await lastReply(chat)) >= 3, 15_000);
    // A draft typed while the turn runs, never sent.
    const box = composerBox(chat);
    await box.fill('my unsent draft');
    const log = conversation(chat);
    const notice = log.getByRole('article').filter({ hasText: 'about to crash' });
    await notice.waitFor({ timeout: 30_000 });
    assert.match(await notice.locator('.notice-log').innerText(), /about to crash/);
    await log.getByRole('note').filter({ hasText: 'Interrupted' }).waitFor({ timeout: 10_000 });
    await ui().shot('ui-sessions-crash-notice');

    // Auto-restart (1 s backoff) and session/load into the same chat.
    await waitUntil('the agent to restart and the chat to be idle', async () => {
      const phase = await chat.locator('.phase').isVisible() ? await chat.locator('.phase').innerText() : '';
      return phase === '' && (await chat.getByRole('button', { name: 'Send', disabled: false }).count()) === 1;
    }, 40_000, 200);
    await ui().page.waitForTimeout(1000);
    assert.deepEqual(await userTexts(chat), ['before the crash [plain]', crashPrompt], 'each message exactly once');
    assert.equal(await log.getByText(/Hello from the scripted agent!/).count(), 1, 'the earlier reply once');
    assert.equal(await log.getByRole('note').filter({ hasText: 'Interrupted' }).count(), 1, 'the interrupted turn is marked');
    assert.equal(await box.inputValue(), 'my unsent draft', 'the draft is still in the composer');
    await ui().shot('ui-sessions-crash-restored');

    // A new prompt works on the restarted agent.
    await sendAndWaitForFooter(chat, 'after the restart [plain]');
    await footers(chat).last().getByText('Completed').waitFor({ timeout: 10_000 });
    assert.deepEqual(await userTexts(chat), ['before the crash [plain]', crashPrompt, 'after the restart [plain]']);
    await ui().shot('ui-sessions-crash-after');
  });
});
