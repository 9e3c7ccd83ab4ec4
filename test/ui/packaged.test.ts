/**
 * The extension as users get it (issue 37): every UI suite installs the packaged .vsix with
 * `code-server --install-extension` (test/ui/support.ts). This suite runs what `npm start` sets up
 * and what only the package can get wrong, in one code-server:
 *
 * - `npm start`'s Demo: the chat opens by itself, says how to reach Hermes, and shows no token figure
 *   before the agent reported one.
 * - Select Agent: the status bar names the new chat's agent at once (it kept the previous one); the
 *   "not found" notice of a Hermes that is not installed shows in full (it was cut off in its box).
 * - The orphan case: the extension host killed with SIGKILL (no exit hook runs) while an agent that
 *   ignores stdin EOF (Claude Agent ACP, Codex ACP) is idle. The agent's watchdog, a script the
 *   package must carry, ends it: no agent process may be left 5 s later. A .vsix without
 *   dist/watchdog.js fails here (issue 37: the orphan stayed for good).
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { groupMembers, isAlive, killTagged, liveProcesses, newTag, role, TAG_VAR, taggedProcesses, type ProcInfo } from '../unit/hardening/support';
import { scriptedAgentPath } from '../support/paths';
import type { PageElement } from './pageTypes';
import { openVsCode, type UiSession } from './support';
import { conversation, paletteCommand, send, shotName, waitUntil } from './uiHelpers';

suite('the packaged extension: npm start\'s Demo, Select Agent, and the orphan case', function () {
  this.timeout(240_000);
  const tag = newTag('packaged');
  let vs: UiSession | undefined;
  const ui = (): UiSession => {
    assert.ok(vs !== undefined, 'code-server is running');
    return vs;
  };

  suiteSetup(async () => {
    vs = await openVsCode({
      // What scripts/start.mjs sets up without Hermes on PATH: its Demo workspace (the marker file
      // activates the extension) and the environment that picks the Demo and opens its chat.
      files: { '.hermes-demo': 'npm start\'s Demo workspace\n', 'hello.txt': 'hello world\n' },
      serverEnv: { HERMES_ACP_DEFAULT_AGENT: 'demo', HERMES_ACP_OPEN_CHAT: '1' },
      machineSettings: {
        // An agent that, like Codex ACP, does not exit when its stdin closes.
        'hermes.agents': [
          { id: 'stubborn', name: 'Stubborn Scripted', command: process.execPath, args: [scriptedAgentPath], env: { SCRIPTED_AGENT_IGNORE_EOF: '1', [TAG_VAR]: tag } },
          { id: 'hermes', name: 'Hermes', command: 'hermes-not-installed-here', args: ['acp'] },
        ],
        'hermes.defaultAgent': '',
      },
    });
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(shotName('FAILED-packaged', this.currentTest.title));
    }
  });

  suiteTeardown(async () => {
    await vs?.close();
    killTagged(tag);
  });

  test('the Demo\'s chat opens by itself, says how to reach Hermes, and shows tokens only once the agent reported them', async () => {
    // No command run: the chat view opens on its own.
    const chat = await ui().chat();
    await conversation(chat).getByText('Ask Demo agent anything').waitFor({ timeout: 60_000 });
    await chat.getByText(/built-in Demo agent: its replies are scripted\. To chat with Hermes, install Hermes Agent/).waitFor({ timeout: 10_000 });
    assert.equal(await chat.getByText('Demo', { exact: true }).count(), 1, 'the header says Demo');
    await ui().shot('demo-opens-itself');
    assert.equal(await chat.getByRole('meter').count(), 0, 'no token gauge before the agent reported usage');
    assert.equal(await chat.getByText(/ tokens$/).count(), 0, 'no token figure before the agent reported usage');
    await send(chat, 'hello demo');
    await conversation(chat).getByText('You said: hello demo').waitFor({ timeout: 60_000 });
    await waitUntil('the usage the agent reported after the turn', async () => (await chat.getByRole('meter').count()) === 1, 15_000);
    await ui().shot('demo-after-a-turn');
  });

  test('Select Agent → Hermes, not installed: the status bar names Hermes, and the "not found" notice shows in full (not cut off in its box)', async () => {
    const page = ui().page;
    await paletteCommand(page, 'Hermes: Select Agent');
    const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: 'hermes-not-installed-here' }).first();
    await row.waitFor({ timeout: 15_000 });
    await row.click();
    const named = async (name: string): Promise<number> => page.locator('.statusbar-item').filter({ hasText: name }).count();
    await waitUntil('the status bar naming Hermes', async () => (await named('Hermes')) > 0 && (await named('Demo agent')) === 0, 15_000);
    const chat = await ui().chat();
    const notice = conversation(chat).getByRole('article', { name: /`hermes-not-installed-here` was not found on PATH/ });
    await notice.waitFor({ timeout: 30_000 });
    const text = notice.locator('.notice-text');
    assert.match((await text.textContent()) ?? '', /install Hermes Agent \(https:\/\/github\.com\/NousResearch\/hermes-agent\) on that machine\.$/);
    const box = await text.evaluate((el: PageElement) => ({
      scroll: el.scrollHeight,
      client: el.clientHeight,
      overflow: (globalThis as unknown as { getComputedStyle(e: PageElement): { overflowY: string } }).getComputedStyle(el).overflowY,
    }));
    assert.ok(box.scroll <= box.client + 1 && box.overflow !== 'auto' && box.overflow !== 'scroll', `the prose is not a scroll box: ${JSON.stringify(box)}`);
    await ui().shot('packaged-not-found-notice');
  });

  test('Select Agent: the status bar names the new chat\'s agent; SIGKILL of the extension host while that agent (ignoring stdin EOF) is idle → no agent process within 5 s', async () => {
    const page = ui().page;
    const statusItem = (name: string): ReturnType<typeof page.locator> => page.locator('.statusbar-item').filter({ hasText: name });
    await paletteCommand(page, 'Hermes: Select Agent');
    const row = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: 'Stubborn Scripted' }).first();
    await row.waitFor({ timeout: 15_000 });
    await row.click();
    await waitUntil('the status bar naming the selected agent', async () => (await statusItem('Stubborn Scripted').count()) > 0 && (await statusItem('Hermes').count()) === 0, 15_000);
    const chat = await ui().chat();
    await send(chat, 'Hello from the package');
    await conversation(chat).getByText('You said: Hello from the package').waitFor({ timeout: 60_000 });
    await ui().shot('packaged-stubborn-idle');

    // Installed the way a user installs it, and the agent's watchdog comes from that package.
    const installed = fs.readdirSync(path.join(ui().server.runDir, 'exts')).find((d) => d.startsWith('hermes-acp.hermes-acp-'));
    assert.ok(installed !== undefined, 'the .vsix is installed in code-server\'s extensions folder');
    const watchdogScript = path.join(ui().server.runDir, 'exts', installed, 'dist', 'watchdog.js');
    const agents = await waitUntil('the agent process', () => {
      const list = taggedProcesses(tag).filter((p) => p.cmdline.includes('scriptedAgent.js'));
      return Promise.resolve(list.length > 0 ? list : undefined);
    }, 15_000);
    const watchdogs = liveProcesses().filter((p) => agents.some((a) => p.cmdline.includes(`${watchdogScript} ${a.pid} `)));
    const hosts = liveProcesses().filter((p) => p.pgid === ui().server.pid && role(p) === 'extensionHost');
    assert.equal(hosts.length, 1, `one extension host in code-server's group: ${hosts.map((h) => h.cmdline.slice(0, 80)).join(' | ')}`);
    const host = hosts[0]!;

    const killedAt = Date.now();
    process.kill(host.pid, 'SIGKILL');
    const leftOf = (a: ProcInfo): boolean => isAlive(a.pid) || groupMembers(a.pgid).length > 0;
    let goneAfterMs: number | undefined;
    while (Date.now() - killedAt < 5_000) {
      if (!agents.some(leftOf)) {
        goneAfterMs = Date.now() - killedAt;
        break;
      }
      await new Promise((r) => setTimeout(r, 50));
    }
    const left = agents.filter(leftOf).map((a) => `${a.pid} (ppid now ${String(liveProcesses().find((p) => p.pid === a.pid)?.ppid ?? '?')}) ${a.cmdline.slice(0, 100)}`);
    assert.deepEqual(left, [], `agent processes left 5 s after the extension host was killed${watchdogs.length === 0 ? ' (no watchdog ran: is dist/watchdog.js in the package?)' : ''}`);
    assert.equal(watchdogs.length, agents.length, 'each agent had its watchdog from the package');
    assert.equal(isAlive(host.pid), false, 'the extension host is gone');
    console.log(`      [packaged] ${agents.length} agent(s) ignoring stdin EOF gone ${String(goneAfterMs)} ms after SIGKILL of the extension host (watchdog: ${path.relative(ui().server.runDir, watchdogScript)})`);
  });
});
