import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { FrameLocator } from 'playwright-core';
import { LoopbackServer } from '../support/loopbackServer';
import { binaryEntry, scriptedRelease, sha256, tarGz } from '../support/registryFixtures';
import { platformKey } from '../../src/registry/launch';
import { notice, paletteCommand, registryRow } from './registryHelpers';
import { openVsCode, type UiSession } from './support';
import { chatWebviews, conversation, send, shotName, waitUntil } from './uiHelpers';

const agentName = 'Scripted Registry Agent';
const icon = '<svg xmlns="http://www.w3.org/2000/svg" width="16" height="16" viewBox="0 0 16 16"><circle cx="8" cy="8" r="6" fill="currentColor"/></svg>';

/**
 * The registry in a real VS Code: a loopback server plays the ACP Registry (index, icon, a
 * `.tar.gz` release of the scripted agent for this platform); the user browses it, installs the
 * agent with one consent, and chats with it.
 */
suite('ACP Registry in code-server + Chromium', function () {
  this.timeout(300_000);
  let server: LoopbackServer | undefined;
  let vs: UiSession | undefined;
  const ui = (): UiSession => {
    assert.ok(vs !== undefined, 'code-server is running');
    return vs;
  };

  suiteSetup(async () => {
    const platform = platformKey();
    assert.ok(platform !== undefined, 'a registry platform for this machine');
    const archive = tarGz(scriptedRelease());
    server = await LoopbackServer.start({ '/dl/scripted-registry-1.0.0.tar.gz': archive, '/icons/scripted-registry.svg': icon });
    const registry = {
      version: '1.0.0',
      agents: [
        binaryEntry({ id: 'scripted-registry', name: agentName, version: '1.0.0', archive: server.url('/dl/scripted-registry-1.0.0.tar.gz'), platform, sha256: sha256(archive), icon: server.url('/icons/scripted-registry.svg') }),
        { id: 'npx-demo', name: 'Npx Demo Agent', version: '2.0.0', description: 'Listed only: an npm package agent.', distribution: { npx: { package: '@example/npx-demo@2.0.0', args: ['--acp'] } } },
        { id: 'hermes-agent', name: 'Hermes Agent', version: '0.20.3', description: 'Hermes’ own registry entry.', distribution: { uvx: { package: 'hermes-agent', args: ['acp'] } } },
        { id: 'Broken Entry', name: 'Broken', version: 'latest', description: 'x', distribution: {} },
      ],
    };
    server.set('/registry.json', JSON.stringify(registry));
    vs = await openVsCode({ machineSettings: { 'hermes.registry.url': server.url('/registry.json') } });
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(shotName('FAILED-registry', this.currentTest.title));
    }
  });

  suiteTeardown(async () => {
    await vs?.close();
    await server?.close();
  });

  test('browse the registry, install the scripted binary agent with one consent, chat with it', async () => {
    const page = ui().page;
    await paletteCommand(page, 'Hermes: Add Agent from ACP Registry…');
    const row = registryRow(page, agentName);
    await row.first().waitFor({ timeout: 30_000 });
    const description = (await row.first().locator('.label-description').textContent()) ?? '';
    assert.match(description, /v1\.0\.0/);
    assert.match((await row.first().textContent()) ?? '', new RegExp(`binary for ${platformKey() ?? ''} \\(\\.tar\\.gz\\)`), 'says which distribution is used here');
    assert.equal(await registryRow(page, 'Hermes').count(), 1, 'Hermes listed once (built-in, merged with its registry entry)');
    assert.equal(await registryRow(page, 'Hermes Agent').count(), 0);
    assert.match((await registryRow(page, 'Hermes').first().textContent()) ?? '', /built-in · registry 0\.20\.3/);
    assert.equal(await registryRow(page, 'Npx Demo Agent').count(), 1);
    // Filter as you type.
    await page.locator('.quick-input-widget .quick-input-box input').first().fill('scripted');
    await waitUntil('the filter to hide the other agents', async () => (await registryRow(page, 'Npx Demo Agent').count()) === 0);
    await ui().shot('registry-quick-pick');
    await row.first().click();

    const consent = page.locator('.monaco-dialog-box').filter({ hasText: `Install ${agentName} 1.0.0 from the ACP Registry?` });
    await consent.waitFor({ timeout: 15_000 });
    const detail = (await consent.textContent()) ?? '';
    assert.ok(detail.includes(server?.url('/dl/scripted-registry-1.0.0.tar.gz') ?? '?'), 'the consent names the exact archive URL');
    assert.match(detail, /SHA-256 \(from the registry, verified\)/);
    await ui().shot('registry-consent');
    await consent.getByRole('button', { name: 'Install and Start' }).click();

    const chat = await waitUntil('the chat with the installed agent', async () => {
      for (const v of await chatWebviews(page)) {
        if ((await conversation(v.frame).getByText(`Ask ${agentName} anything`).count()) > 0) {
          return v.frame;
        }
      }
      return undefined;
    }, 60_000, 250);
    await send(chat, 'Hello from the registry');
    const reply = conversation(chat).getByRole('article', { name: agentName }).last();
    await reply.getByText('You said: Hello from the registry').waitFor({ timeout: 30_000 });
    await ui().shot('registry-chat-reply');

    const settings = JSON.parse(fs.readFileSync(path.join(ui().server.runDir, 'ud', 'Machine', 'settings.json'), 'utf8')) as Record<string, unknown>;
    const entries = (settings['hermes.agents'] as Record<string, unknown>[] | undefined) ?? [];
    const entry = entries.find((e) => e.id === 'scripted-registry');
    assert.ok(entry !== undefined, `hermes.agents has the installed agent: ${JSON.stringify(entries)}`);
    assert.equal(entry.source, 'registry');
    assert.equal(entry.version, '1.0.0');
    assert.match(String(entry.command), /globalStorage\/hermes-acp\.hermes-acp\/registry\/agents\/scripted-registry\/1\.0\.0\/scripted\/bin\/scripted-agent$/);
    assert.ok(fs.existsSync(String(entry.command)), 'installed where the entry says');
    assert.deepEqual(ui().nonLoopback, [], 'no request left the machine');
    assert.ok(server?.requests.includes('/dl/scripted-registry-1.0.0.tar.gz'));
    await notice(ui(), /1 registry entries are not listed because they are invalid/);
  });

  test('reopened, the list marks the agent installed; an update that does not start is rolled back', async () => {
    const page = ui().page;
    assert.ok(server !== undefined);
    const broken = tarGz(scriptedRelease({ broken: 'scripted-agent 1.1.0: libacp.so.2 not found' }));
    server.set('/dl/scripted-registry-1.1.0.tar.gz', broken);
    const platform = platformKey() ?? 'linux-x86_64';
    server.set('/registry.json', JSON.stringify({ version: '1.0.0', agents: [binaryEntry({ id: 'scripted-registry', name: agentName, version: '1.1.0', archive: server.url('/dl/scripted-registry-1.1.0.tar.gz'), platform, sha256: sha256(broken) })] }));
    await paletteCommand(page, 'Hermes: Add Agent from ACP Registry…');
    const row = registryRow(page, agentName).first();
    await row.waitFor({ timeout: 30_000 });
    assert.match((await row.locator('.label-description').textContent()) ?? '', /v1\.1\.0 · update available \(installed 1\.0\.0\)/);
    await row.click();
    const update = page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: 'Update to 1.1.0' }).first();
    await update.waitFor({ timeout: 15_000 });
    await update.click();
    const consent = page.locator('.monaco-dialog-box').filter({ hasText: `Install ${agentName} 1.1.0 from the ACP Registry?` });
    await consent.waitFor({ timeout: 15_000 });
    await consent.getByRole('button', { name: 'Install and Start' }).click();
    await notice(ui(), /1\.1\.0 did not start: .*libacp\.so\.2 not found.*stays in use/);
    await ui().shot('registry-update-rolled-back');
    const settings = JSON.parse(fs.readFileSync(path.join(ui().server.runDir, 'ud', 'Machine', 'settings.json'), 'utf8')) as Record<string, unknown>;
    const entry = ((settings['hermes.agents'] as Record<string, unknown>[] | undefined) ?? []).find((e) => e.id === 'scripted-registry');
    assert.equal(entry?.version, '1.0.0', 'the setting still runs the old version');
    assert.ok(fs.existsSync(String(entry?.command)), 'the old version’s files are still there');
    assert.equal(fs.existsSync(String(entry?.command).replace('/1.0.0/', '/1.1.0/')), false, 'the failed version was removed');
    const chats: FrameLocator[] = (await chatWebviews(page)).map((v) => v.frame);
    assert.ok(chats.length > 0);
  });
});
