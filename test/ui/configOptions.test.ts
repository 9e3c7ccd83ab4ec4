/**
 * Issue 17 — config options first — in code-server + Chromium with the packaged extension.
 *
 * The agent is the replay agent on the recorded Claude Agent ACP 0.23.1 transcript
 * (test/fixtures/agents/claude-main.jsonl, first agent process), behind agentTap, which records every
 * line the extension writes to the agent. Claude answers `session/new` with the legacy `modes` and
 * `models` AND with `configOptions` for the same two settings; the composer must show one mode and
 * one model selector, driven by the config options, and a choice must reach the agent as
 * `session/set_config_option`.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { fixturesDir, replayAgentPath } from '../support/paths';
import { agentTapPath } from '../unit/hardening/support';
import { readTap } from '../unit/hardening/tapFile';
import type { PageElement } from './pageTypes';
import { openVsCode, type UiSession } from './support';
import { composerBox, waitUntil } from './uiHelpers';

/** JSON-RPC messages the extension wrote to the agent, from the tap file. */
function clientMessages(tapFile: string): { method?: string; params?: Record<string, unknown> }[] {
  return readTap(tapFile)
    .filter((l) => l.kind === 'in')
    .flatMap((l) => {
      try {
        return [JSON.parse(l.text) as { method?: string; params?: Record<string, unknown> }];
      } catch {
        return [];
      }
    });
}

suite('issue 17: config options first — the recorded Claude transcript in the real composer', function () {
  this.timeout(300_000);
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-ui17-')));
  const tapFile = path.join(dir, 'tap.jsonl');
  let ui: UiSession | undefined;

  suiteSetup(async () => {
    const fixture = path.join(fixturesDir, 'agents', 'claude-main.jsonl');
    ui = await openVsCode({
      machineSettings: {
        'hermes.agents': [
          { id: 'claude', name: 'Claude Agent', command: process.execPath, args: [agentTapPath, tapFile, replayAgentPath, fixture, '--segment', '1', '--stay'] },
        ],
        'hermes.defaultAgent': 'claude',
      },
    });
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await ui?.shot(`FAILED-ui17-${this.currentTest.title.replace(/\W+/g, '-')}`.slice(0, 120));
    }
  });

  suiteTeardown(async () => {
    await ui?.close();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  test('exactly one mode and one model selector, from configOptions; choosing one sends session/set_config_option', async () => {
    assert.ok(ui !== undefined);
    await ui.command('Hermes: New Session');
    const chat = await ui.chat();
    await composerBox(chat).waitFor({ timeout: 30_000 });
    const controls = chat.locator('.session-controls');
    const mode = controls.getByRole('combobox', { name: 'Mode', exact: true });
    const model = controls.getByRole('combobox', { name: 'Model', exact: true });
    await model.waitFor({ timeout: 30_000 });
    await ui.shot('ui17-claude-selectors');

    assert.equal(await mode.count(), 1, 'one mode selector');
    assert.equal(await model.count(), 1, 'one model selector');
    assert.equal(await controls.getByRole('combobox').count(), 2, 'no other selector');
    assert.deepEqual(
      await mode.locator('option').evaluateAll((els: PageElement[]) => els.map((o) => o.getAttribute('value'))),
      ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions'],
    );
    assert.deepEqual(
      await model.locator('option').evaluateAll((els: PageElement[]) => els.map((o) => o.getAttribute('value'))),
      ['default', 'sonnet[1m]', 'opus[1m]', 'haiku'],
    );
    assert.equal(await mode.inputValue(), 'default');

    await mode.selectOption('plan');
    const sent = await waitUntil(
      'session/set_config_option in what the extension wrote to the agent',
      () => Promise.resolve(clientMessages(tapFile).find((m) => m.method === 'session/set_config_option')),
      30_000,
    );
    assert.equal(sent.params?.configId, 'mode');
    assert.equal(sent.params?.value, 'plan');
    assert.equal(typeof sent.params?.sessionId, 'string');
    const methods = clientMessages(tapFile).map((m) => m.method);
    assert.ok(!methods.includes('session/set_mode'), `no legacy session/set_mode: ${methods.join(', ')}`);
    await ui.shot('ui17-claude-mode-chosen');
  });
});
