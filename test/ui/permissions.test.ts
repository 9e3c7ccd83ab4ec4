import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { type UiSession, vsCodeForSuite } from './support';
import { send } from './uiHelpers';

suite('permission prompts and diff review in code-server + Chromium', function () {
  this.timeout(240_000);
  let vs: UiSession | undefined;
  let chat: FrameLocator;

  const code = vsCodeForSuite('permissions', {
      files: { 'hello.txt': 'hello world\n', 'notes.md': '# Notes\n' },
      settings: { 'hermes.review.openDiffs': 'background' },
      machineSettings: {
        'hermes.permissions.rules': [{ kind: 'execute', command: 'npm test*', effect: 'allow', description: 'tests may run' }],
      },
    });
  suiteSetup(() => {
    vs = code.ui();
    chat = code.chat();
  });

  test('an edit permission opens the diff editor; Allow in its title answers allow_once and the card agrees', async () => {
    const ui = vs;
    assert.ok(ui !== undefined);
    await send(chat, '[edit path=hello.txt text=hello ACP]');
    const log = chat.getByRole('log', { name: 'Conversation' });
    await log.getByRole('button', { name: /Allow edit/ }).waitFor({ timeout: 30_000 });
    await ui.page.locator('.monaco-diff-editor.side-by-side').first().waitFor({ timeout: 30_000 });
    await ui.page.getByText('hello ACP').first().waitFor({ timeout: 15_000 });
    await ui.shot('permission-diff-editor');
    await ui.page.locator('.editor-actions').getByRole('button', { name: /Allow Proposed Edit/ }).click();
    await log.getByText(/Allowed|allow_once|Allow edit/).filter({ hasNotText: 'wants to run' }).first().waitFor({ timeout: 15_000 });
    await log.getByText(/Edited|wrote|written|The file/i).last().waitFor({ timeout: 15_000 });
    assert.equal(fs.readFileSync(path.join(ui.workspace, 'hello.txt'), 'utf8'), 'hello ACP');
    await ui.shot('permission-allowed-from-diff');
  });

  test('Reject on the card answers the reject option', async () => {
    const ui = vs;
    assert.ok(ui !== undefined);
    await send(chat, '[edit path=notes.md text=overwritten]');
    const log = chat.getByRole('log', { name: 'Conversation' });
    const deny = log.getByRole('button', { name: /^Deny/ }).last();
    await deny.waitFor({ timeout: 30_000 });
    await ui.shot('permission-card');
    await deny.click();
    await log.getByText(/denied|Deny/).last().waitFor({ timeout: 15_000 });
    await chat.getByRole('button', { name: 'Send' }).waitFor();
    assert.equal(fs.readFileSync(path.join(ui.workspace, 'notes.md'), 'utf8'), '# Notes\n');
  });

  test('a five-option command permission shows all five and answers the exact optionId chosen', async () => {
    await send(chat, '[command cmd=rm -r build]');
    const log = chat.getByRole('log', { name: 'Conversation' });
    for (const name of ['Allow once', 'Allow for session', 'Allow always', 'Deny', 'Deny always']) {
      await log.getByRole('button', { name: new RegExp(`^${name}`) }).last().waitFor({ timeout: 30_000 });
    }
    await log.getByRole('button', { name: /^Allow for session/ }).last().click();
    await log.getByText('You chose allow_session.').waitFor({ timeout: 15_000 });
  });

  test('cancel with a permission pending answers it cancelled', async () => {
    const ui = vs;
    assert.ok(ui !== undefined);
    await send(chat, '[command cmd=rm -r dist]');
    const log = chat.getByRole('log', { name: 'Conversation' });
    await log.getByRole('button', { name: /^Deny always/ }).last().waitFor({ timeout: 30_000 });
    await chat.getByRole('button', { name: 'Stop' }).click();
    await log.getByText(/Cancelled/).last().waitFor({ timeout: 15_000 });
    await chat.getByRole('button', { name: 'Send' }).waitFor();
  });

  test('a policy rule answers a matching request and the card says which rule', async () => {
    await send(chat, '[command cmd=npm test]');
    const log = chat.getByRole('log', { name: 'Conversation' });
    await log.getByText('You chose allow_once.').waitFor({ timeout: 30_000 });
    await log.getByText(/tests may run/).first().waitFor({ timeout: 15_000 });
  });

  test('a permission while the chat is hidden raises a notification whose button answers it', async () => {
    const ui = vs;
    assert.ok(ui !== undefined);
    await send(chat, '[command cmd=rm -r tmp]');
    // The request arrives while the chat is on screen (a focused window raises no notification
    // then); hiding the chat must raise it, since nobody sees the card any more.
    await chat.getByRole('button', { name: 'Deny always' }).first().waitFor({ timeout: 30_000 });
    await ui.page.locator('.statusbar').getByText('permission needed').waitFor({ timeout: 30_000 });
    // Hide the chat: show the Explorer in the side bar instead.
    await ui.command('View: Show Explorer');
    // Headless Chromium never has OS focus, so the workbench keeps toasts in the notification
    // center rather than popping them: open it and answer from the notification there.
    await ui.command('Notifications: Show Notifications');
    const item = ui.page.locator('.notifications-center .notification-list-item').filter({ hasText: 'asks for permission' });
    await item.waitFor({ timeout: 15_000 });
    await ui.shot('permission-notification');
    await item.getByRole('button', { name: 'Deny always' }).click();
    await ui.command('Hermes: Open Chat');
    const again = await ui.chat();
    await again.getByRole('log', { name: 'Conversation' }).getByText('You chose deny_always.').waitFor({ timeout: 15_000 });
  });
});
