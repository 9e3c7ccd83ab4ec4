import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator, Locator } from 'playwright-core';
import { type UiSession, vsCodeForSuite } from './support';
import { sendAndWaitForFooter, waitUntil } from './uiHelpers';

const original = Array.from({ length: 12 }, (_, i) => `note line ${i + 1}\n`).join('');
const agentText = original.replace('note line 3\n', 'AGENT WROTE THREE\n').replace('note line 10\n', 'AGENT WROTE TEN\n');

async function waitForFile(file: string, expected: string, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (fs.readFileSync(file, 'utf8') !== expected) {
    if (Date.now() > deadline) {
      assert.equal(fs.readFileSync(file, 'utf8'), expected, what);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

suite('Changes view and per-hunk revert in code-server + Chromium', function () {
  this.timeout(240_000);
  let vs: UiSession | undefined;
  let chat: FrameLocator;

  const code = vsCodeForSuite('changes', {
      files: { 'notes.txt': original },
      // CodeLens in diff editors is off by default; the title actions below work either way.
      settings: { 'diffEditor.codeLens': true, 'hermes.review.openDiffs': 'onClick' },
    });
  suiteSetup(() => {
    vs = code.ui();
    chat = code.chat();
  });

  test('the agent’s file is listed with its counts; one hunk is reverted from the diff editor, then the other', async () => {
    const ui = vs;
    assert.ok(ui !== undefined);
    const file = path.join(ui.workspace, 'notes.txt');
    // The whole turn, not just its tool call: while a turn runs the view keeps refreshing.
    await sendAndWaitForFooter(chat, `[write path=notes.txt text="${agentText.replace(/\n/g, '\\n')}"]`);
    await chat.getByRole('log', { name: 'Conversation' }).getByText(/Completed/).first().waitFor({ timeout: 30_000 });
    assert.equal(fs.readFileSync(file, 'utf8'), agentText);

    // The Changes view shows up in the Hermes side bar with the turn and the file.
    const pane: Locator = ui.page.locator('.pane').filter({ has: ui.page.locator('.pane-header', { hasText: /^\s*Changes/i }) });
    const row = pane.locator('.monaco-list-row').filter({ has: ui.page.locator('.label-name', { hasText: /^\s*notes\.txt\s*$/ }) });
    await row.waitFor({ timeout: 30_000 });
    assert.match((await row.textContent()) ?? '', /\+2 \u22122/);
    const turnRow = pane.locator('.monaco-list-row', { hasText: /Turn 1/ });
    await waitUntil('the turn row to stop saying "running…"', async () => !((await turnRow.textContent().catch(() => null)) ?? 'running').includes('running'), 15_000);
    await ui.shot('changes-view');

    // Clicking the file opens before the turn ↔ now.
    // A click that lands while the tree re-renders the row is lost (VS Code's behaviour, not
    // ours): click again rather than wait out the whole timeout.
    const diff = ui.page.locator('.monaco-diff-editor.side-by-side');
    await waitUntil('the diff editor to open from the row', async () => {
      await row.click();
      return diff.waitFor({ timeout: 5000 }).then(() => true, () => false);
    }, 30_000, 0);
    await ui.page.locator('.tab', { hasText: /before turn 1 ↔ now/ }).first().waitFor({ timeout: 15_000 });
    const modified = diff.locator('.editor.modified');
    await modified.getByText('AGENT WROTE TEN').first().waitFor({ timeout: 15_000 });

    // CodeLens on each hunk of the file side: revert the second one only.
    const lenses = modified.locator('.codelens-decoration a', { hasText: 'Revert this hunk' });
    await lenses.nth(1).waitFor({ timeout: 15_000 });
    assert.equal(await lenses.count(), 2);
    await ui.shot('changes-diff-codelens');
    await lenses.nth(1).click();
    await waitForFile(file, original.replace('note line 3\n', 'AGENT WROTE THREE\n'), 'only the second hunk is reverted');
    await modified.getByText('note line 10').first().waitFor({ timeout: 15_000 });
    await ui.shot('changes-hunk-reverted');

    // The editor title action reverts the hunk under the cursor (whatever diffEditor.codeLens says).
    await modified.locator('.view-line', { hasText: 'AGENT WROTE THREE' }).click();
    await ui.page.locator('.editor-actions').getByRole('button', { name: /Revert This Hunk/ }).first().click();
    await waitForFile(file, original, 'both hunks reverted: the original text');
    await ui.shot('changes-title-action-reverted');

    // The view now offers the note for the next prompt; the file left the pending list.
    await pane.locator('.monaco-list-row', { hasText: 'Note for the next prompt' }).waitFor({ timeout: 15_000 });
    await pane.locator('.monaco-list-row', { hasText: 'all kept or reverted' }).waitFor({ timeout: 15_000 });
    await ui.shot('changes-view-after-revert');
    assert.deepEqual(ui.nonLoopback, [], 'no request left the machine');
  });
});
