import * as assert from 'node:assert/strict';
import { openVsCode, type UiSession } from './support';

suite('chat UI in code-server + Chromium', function () {
  this.timeout(180_000);
  let vs: UiSession | undefined;

  suiteSetup(async () => {
    vs = await openVsCode();
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(`FAILED-${this.currentTest.title.replace(/\W+/g, '-')}`);
    }
  });

  suiteTeardown(async () => {
    await vs?.close();
  });

  test('New Session, type a prompt, see the streamed reply', async () => {
    const ui = vs;
    assert.ok(ui !== undefined);
    await ui.command('Hermes: New Session');
    const chat = await ui.chat();
    const box = chat.getByRole('textbox', { name: 'Message' });
    await box.waitFor({ timeout: 30_000 });
    await box.fill('Hello from the browser [markdown]');
    await box.press('Enter');
    const log = chat.getByRole('log', { name: 'Conversation' });
    await log.getByText('Hello from the browser').first().waitFor({ timeout: 30_000 });
    await log.locator('pre code').first().waitFor({ timeout: 30_000 });
    await chat.getByRole('button', { name: 'Send' }).waitFor();
    const footer = log.getByText(/Completed/).first();
    await footer.waitFor({ timeout: 30_000 });
    await ui.shot('chat-streamed-markdown');
    assert.deepEqual(ui.nonLoopback, [], 'no request left the machine');
  });
});
