import * as assert from 'node:assert/strict';
import { vsCodeForSuite } from './support';
import { conversation, footers, sendAndWaitForFooter, waitUntil } from './uiHelpers';

/**
 * Issue 18: a turn the model provider failed looks failed in the chat, as it does to the runner
 * (exit 75). The scripted agent's `[server-error-text]` sends Hermes' recorded HTTP 500 reply
 * ("API call failed after 3 retries: HTTP 500: Fake upstream exploded", test/fixtures/hermes/main.jsonl)
 * with `end_turn`, and answers the next such turn.
 */
suite('provider errors in the chat (code-server + Chromium)', function () {
  this.timeout(180_000);
  const vs = vsCodeForSuite('provider-errors');

  test('the recorded HTTP 500 turn shows the error state and Retry, not Completed; Retry sends the prompt again', async () => {
    const chat = vs.chat();
    const log = conversation(chat);
    const prompt = 'Summarize the file [server-error-text]';
    const footer = await sendAndWaitForFooter(chat, prompt);
    await footer.getByText('Failed: the model provider failed (HTTP 500)').waitFor({ timeout: 10_000 });
    // The error text shows once, in the footer's failure block (issue 38: one failure, one message), not as a reply.
    const errorText = 'API call failed after 3 retries: HTTP 500: Fake upstream exploded';
    await footer.getByText(errorText).waitFor({ timeout: 5000 });
    assert.equal(await log.getByText(errorText).count(), 1, 'the provider error is shown once');
    assert.equal(await log.locator('article.notice').count(), 0, 'no notice beside the footer');
    await footer.getByText(/This is usually temporary: try again in a moment\./).waitFor({ timeout: 5000 });
    assert.equal(await footer.getByText('Completed').count(), 0, 'the failed turn does not say Completed');
    const retry = footer.getByRole('button', { name: 'Retry', exact: true });
    await retry.waitFor({ timeout: 5000 });
    await vs.ui().shot('provider-error-500-footer');

    const before = await footers(chat).count();
    await retry.click();
    await waitUntil('the retried turn\'s footer', async () => (await footers(chat).count()) > before, 30_000, 200);
    const retried = footers(chat).nth(before);
    await retried.getByText('Completed').waitFor({ timeout: 10_000 });
    assert.equal(await retried.getByRole('button', { name: 'Retry', exact: true }).count(), 0, 'a completed turn offers no Retry');
    await log.getByText('The provider answered this time.').waitFor({ timeout: 10_000 });
    // The same prompt went out again: two user messages with its text.
    assert.equal(await log.getByText(prompt, { exact: true }).count(), 2);
  });
});
