import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator, Page } from 'playwright-core';
import { vsCodeForSuite } from './support';
import { conversation, send, waitForCount } from './uiHelpers';

/** Editor tabs showing an agent's proposal ("<file> (proposed by Scripted)"). */
function proposalTabs(page: Page, file?: string): Locator {
  return page.locator('.tabs-container .tab', { hasText: file !== undefined ? `${file} (proposed by` : '(proposed by' });
}

/** The newest tool card whose permission is still waiting. */
function pendingCard(chat: FrameLocator): Locator {
  return conversation(chat).locator('article:has(.permission-pending)').last();
}

/** The turn ended: the Stop button is gone. */
async function idle(chat: FrameLocator): Promise<void> {
  await waitForCount(chat.getByRole('button', { name: 'Stop', exact: true }), 0, 'the turn to end');
}

/**
 * Issue 16 and issue 22 item 2 in a real VS Code and a real browser: "always" remembers exact
 * commands, a write waiting for review ends with its turn, and proposal tabs close with their
 * proposal (Allow, Deny, cancel, timeout). Screenshots: `proposals-*`.
 *
 * Frames: `[edit]` and `[command]` are the scripted agent's copies of Hermes 0.19's edit approval
 * (`edit-approval-N`: whole-file diff, `allow_once`/`deny`) and dangerous-command check
 * (`perm-check-N`, five options) from fixtures/hermes/main.jsonl. No recording has a permission
 * that times out: `[permission-timeout … cancel-request=yes]` builds one from the same edit frames
 * plus the `$/cancel_request` an agent sends when it stops waiting (Hermes itself denies silently
 * after 60 s; the client's own 60 s deadline for Hermes settles the request the same way).
 */
suite('permission memory, review writes and proposal tabs in code-server + Chromium', function () {
  this.timeout(300_000);
  const code = vsCodeForSuite('proposals', {
    files: { 'allow.txt': 'before allow\n', 'deny.txt': 'before deny\n', 'cancel.txt': 'before cancel\n', 'timeout.txt': 'before timeout\n', 'review.txt': 'before review\n' },
    settings: { 'hermes.review.openDiffs': 'background', 'hermes.review.writes': 'review' },
  });

  test('"Always allow" on ls -la does not allow ls -la; rm -rf ~ (the exact argv is remembered, not a pattern)', async () => {
    const ui = code.ui();
    const chat = code.chat();
    const log = conversation(chat);
    await send(chat, '[command cmd=ls -la]');
    const card = pendingCard(chat);
    await card.getByRole('button', { name: /^Allow always/ }).waitFor({ timeout: 30_000 });
    await card.getByRole('combobox', { name: '“Always” remembers' }).waitFor();
    await ui.shot('proposals-always-card');
    await card.getByRole('button', { name: /^Allow always/ }).click();
    await log.getByText('You chose allow_always.').waitFor({ timeout: 15_000 });
    await log.getByText(/Remembered: .*run ls -la/).waitFor({ timeout: 15_000 });
    await idle(chat);

    await send(chat, '[command cmd=ls -la; rm -rf ~]');
    const chained = pendingCard(chat);
    await chained.getByRole('button', { name: /^Deny$/ }).waitFor({ timeout: 30_000 });
    await chained.getByText('run rm -rf ~', { exact: true }).waitFor();
    await chained.getByText(/no rule allows run rm -rf ~/).waitFor();
    await ui.shot('proposals-chained-command-asked');
    await chained.getByRole('button', { name: /^Deny$/ }).click();
    await log.getByText('You chose deny.').waitFor({ timeout: 15_000 });
    await idle(chat);

    // The same argv written differently (the agent's own memory is by text) is answered by the rule.
    await send(chat, '[command cmd=ls  -la]');
    await log.getByText(/Answered “Allow once” by rule: you chose "Allow always" for run ls -la/).waitFor({ timeout: 30_000 });
    await idle(chat);
  });

  test('a review-mode write pending at cancel is rejected: the file is unchanged and its tab closes', async () => {
    const ui = code.ui();
    const chat = code.chat();
    const file = path.join(ui.workspace, 'review.txt');
    await send(chat, '[write path=review.txt text=written after cancel]');
    await proposalTabs(ui.page, 'review.txt').first().waitFor({ timeout: 30_000 });
    await ui.shot('proposals-review-write-pending');
    await chat.getByRole('button', { name: 'Stop', exact: true }).click();
    await waitForCount(proposalTabs(ui.page, 'review.txt'), 0, 'the review tab to close on cancel');
    await idle(chat);
    assert.equal(fs.readFileSync(file, 'utf8'), 'before review\n');
    await ui.shot('proposals-review-write-cancelled');
  });

  const cases: { name: string; file: string; prompt: string; act: (chat: FrameLocator) => Promise<void>; after: string }[] = [
    {
      name: 'Allow',
      file: 'allow.txt',
      prompt: '[edit path=allow.txt text=allowed]',
      act: (chat) => pendingCard(chat).getByRole('button', { name: /^Allow edit/ }).click(),
      after: 'allowed',
    },
    {
      name: 'Deny',
      file: 'deny.txt',
      prompt: '[edit path=deny.txt text=denied]',
      act: (chat) => pendingCard(chat).getByRole('button', { name: /^Deny/ }).click(),
      after: 'before deny\n',
    },
    {
      name: 'cancel',
      file: 'cancel.txt',
      prompt: '[edit path=cancel.txt text=cancelled]',
      act: (chat) => chat.getByRole('button', { name: 'Stop', exact: true }).click(),
      after: 'before cancel\n',
    },
    {
      name: 'timeout',
      file: 'timeout.txt',
      // The agent stops waiting after 3 s and withdraws the request ($/cancel_request).
      prompt: '[permission-timeout ms=3000 path=timeout.txt text=late cancel-request=yes]',
      act: () => Promise.resolve(),
      after: 'before timeout\n',
    },
  ];
  for (const c of cases) {
    test(`a proposal's diff tab closes on ${c.name}`, async () => {
      const ui = code.ui();
      const chat = code.chat();
      await send(chat, c.prompt);
      await pendingCard(chat).waitFor({ timeout: 30_000 });
      await proposalTabs(ui.page, c.file).first().waitFor({ timeout: 30_000 });
      await ui.shot(`proposals-tab-open-before-${c.name}`);
      await c.act(chat);
      await waitForCount(proposalTabs(ui.page, c.file), 0, `the proposal tab of ${c.file} to close on ${c.name}`);
      await ui.shot(`proposals-tab-closed-after-${c.name}`);
      await idle(chat);
      assert.equal(fs.readFileSync(path.join(ui.workspace, c.file), 'utf8'), c.after);
    });
  }
});
