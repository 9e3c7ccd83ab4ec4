/**
 * The extension as users get it (issue 37): every UI suite installs the packaged .vsix with
 * `code-server --install-extension` (test/ui/support.ts). These tests check what only the package
 * can get wrong, and what a first run shows.
 *
 * - The orphan case: the extension host killed with SIGKILL (no exit hook runs) while an agent that
 *   ignores stdin EOF (Claude Agent ACP, Codex ACP) is idle. The agent's watchdog, a script the
 *   package must carry, ends it: no agent process may be left 5 s later. A .vsix without
 *   dist/watchdog.js fails here (issue 37: the orphan stayed for good).
 * - `npm start`'s Demo: the chat opens by itself, says how to reach Hermes, and shows no token figure
 *   before the agent reported one.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { groupMembers, isAlive, killTagged, liveProcesses, newTag, role, TAG_VAR, taggedProcesses, type ProcInfo } from '../unit/hardening/support';
import { openVsCode, type UiSession } from './support';
import { conversation, send, shotName, waitUntil } from './uiHelpers';

suite('the packaged extension: an agent that ignores stdin EOF is ended when the extension host is SIGKILLed', function () {
  this.timeout(240_000);
  const tag = newTag('packaged');
  let vs: UiSession | undefined;

  suiteSetup(async () => {
    vs = await openVsCode({ agentEnv: { SCRIPTED_AGENT_IGNORE_EOF: '1', [TAG_VAR]: tag } });
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

  test('a chat with the scripted agent from the installed .vsix; SIGKILL the extension host while it is idle → no agent process within 5 s', async () => {
    assert.ok(vs !== undefined);
    const ui = vs;
    // Installed the way a user installs it: into the extensions folder, not a development path.
    const installed = fs.readdirSync(path.join(ui.server.runDir, 'exts')).find((d) => d.startsWith('hermes-acp.hermes-acp-'));
    assert.ok(installed !== undefined, 'the .vsix is installed in code-server\'s extensions folder');
    const extensionDir = path.join(ui.server.runDir, 'exts', installed);

    await ui.command('Hermes: New Session');
    const chat = await ui.chat();
    await send(chat, 'Hello from the package [plain]');
    await conversation(chat).getByText('You said: Hello from the package').waitFor({ timeout: 60_000 });
    await ui.shot('packaged-chat-idle');

    const agents = await waitUntil('the agent process', () => {
      const list = taggedProcesses(tag).filter((p) => p.cmdline.includes('scriptedAgent.js'));
      return Promise.resolve(list.length > 0 ? list : undefined);
    }, 15_000);
    // The watchdog of each agent, from the installed package (recorded now, asserted after the kill).
    const watchdogs = liveProcesses().filter((p) => agents.some((a) => p.cmdline.includes(`${path.join(extensionDir, 'dist', 'watchdog.js')} ${a.pid} `)));
    const hosts = liveProcesses().filter((p) => p.pgid === ui.server.pid && role(p) === 'extensionHost');
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
    console.log(`      [packaged] ${agents.length} agent(s) that ignore stdin EOF gone ${String(goneAfterMs)} ms after SIGKILL of the extension host (watchdog from ${path.relative(ui.server.runDir, path.join(extensionDir, 'dist', 'watchdog.js'))})`);
  });
});

suite('npm start\'s Demo in the packaged extension', function () {
  this.timeout(180_000);
  let vs: UiSession | undefined;

  suiteSetup(async () => {
    vs = await openVsCode({
      // What scripts/start.mjs sets up without Hermes on PATH: its Demo workspace (the marker file
      // activates the extension) and the environment that picks the Demo and opens its chat.
      files: { '.hermes-demo': 'npm start\'s Demo workspace\n', 'hello.txt': 'hello world\n' },
      serverEnv: { HERMES_ACP_DEFAULT_AGENT: 'demo', HERMES_ACP_OPEN_CHAT: '1' },
      machineSettings: { 'hermes.defaultAgent': '' },
    });
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(shotName('FAILED-demo', this.currentTest.title));
    }
  });

  suiteTeardown(async () => {
    await vs?.close();
  });

  test('the chat opens by itself with the Demo, says how to reach Hermes, and shows tokens only once the agent reported them', async () => {
    assert.ok(vs !== undefined);
    // No command run: the chat view opens on its own.
    const chat = await vs.chat();
    await conversation(chat).getByText('Ask Demo agent anything').waitFor({ timeout: 60_000 });
    await chat.getByText(/built-in Demo agent: its replies are scripted\. To chat with Hermes, install Hermes Agent/).waitFor({ timeout: 10_000 });
    assert.equal(await chat.getByText('Demo', { exact: true }).count(), 1, 'the header says Demo');
    await vs.shot('demo-opens-itself');
    assert.equal(await chat.getByRole('meter').count(), 0, 'no token gauge before the agent reported usage');
    assert.equal(await chat.getByText(/tokens$/).count(), 0, 'no token figure before the agent reported usage');
    await send(chat, 'hello demo [plain]');
    await conversation(chat).getByText('You said: hello demo').waitFor({ timeout: 60_000 });
    await waitUntil('the usage the agent reported after the turn', async () => (await chat.getByRole('meter').count()) === 1, 15_000);
    await vs.shot('demo-after-a-turn');
  });
});
