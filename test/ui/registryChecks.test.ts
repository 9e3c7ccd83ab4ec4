/**
 * What the registry install must check, in a real VS Code (issue 37), each with a benign twin:
 * consent is for exactly what runs (the same archive asks once, another archive for the same
 * id@version asks again); what would be refused is refused before anyone is asked; an npx package
 * is checked on the npm registry the user's npm uses (a loopback double answering as
 * registry.npmjs.org did: Gemini CLI 0.27.3 is not there); a lower version is a downgrade; an
 * installed agent whose entry goes bad stays removable; an unusable answer is not "offline".
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { Page } from 'playwright-core';
import { platformKey } from '../../src/registry/launch';
import { LoopbackServer } from '../support/loopbackServer';
import { NpmRegistryDouble } from '../support/npmRegistryDouble';
import { binaryEntry, scriptedRelease, sha256, tarGz } from '../support/registryFixtures';
import { notice, paletteCommand, registryRow } from './registryHelpers';
import { openVsCode, type UiSession } from './support';
import { chatWebviews, conversation, send, shotName, waitUntil } from './uiHelpers';

const archName = 'Archive Agent';

suite('ACP Registry checks in code-server + Chromium', function () {
  this.timeout(300_000);
  let server: LoopbackServer | undefined;
  let npm: NpmRegistryDouble | undefined;
  let vs: UiSession | undefined;
  const npmCache = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-ui-npm-'));
  const archive = tarGz(scriptedRelease());
  const platform = platformKey() ?? 'linux-x86_64';

  const ui = (): UiSession => {
    assert.ok(vs !== undefined, 'code-server is running');
    return vs;
  };
  const srv = (): LoopbackServer => {
    assert.ok(server !== undefined);
    return server;
  };
  const serve = (agents: unknown[]): void => srv().set('/registry.json', JSON.stringify({ version: '1.0.0', agents }));
  const arch = (version: string, file = '/dl/a/arch.tar.gz', extra: Record<string, unknown> = {}): Record<string, unknown> => ({
    ...binaryEntry({ id: 'arch', name: archName, version, archive: srv().url(file), platform, sha256: sha256(archive) }),
    ...extra,
  });
  const settingsEntry = (id: string): Record<string, unknown> | undefined => {
    const file = path.join(ui().server.runDir, 'ud', 'Machine', 'settings.json');
    const settings = JSON.parse(fs.readFileSync(file, 'utf8')) as Record<string, unknown>;
    return ((settings['hermes.agents'] as Record<string, unknown>[] | undefined) ?? []).find((e) => e.id === id);
  };
  const dialog = (page: Page, text: string): ReturnType<Page['locator']> => page.locator('.monaco-dialog-box').filter({ hasText: text });

  async function pick(label: string): Promise<void> {
    const page = ui().page;
    await paletteCommand(page, 'Hermes: Add Agent from ACP Registry…');
    const row = registryRow(page, label).first();
    await row.waitFor({ timeout: 30_000 });
    await row.click();
  }

  async function action(label: RegExp): Promise<void> {
    const row = ui().page.locator('.quick-input-widget .quick-input-list .monaco-list-row').filter({ hasText: label }).first();
    await row.waitFor({ timeout: 15_000 });
    await row.click();
  }

  async function chatWith(name: string): Promise<void> {
    await waitUntil(`the chat with ${name}`, async () => {
      for (const v of await chatWebviews(ui().page)) {
        if ((await conversation(v.frame).getByText(`Ask ${name} anything`).count()) > 0) {
          return true;
        }
      }
      return false;
    }, 90_000, 250);
  }

  suiteSetup(async () => {
    server = await LoopbackServer.start({ '/dl/a/arch.tar.gz': archive, '/dl/b/arch.tar.gz': archive });
    npm = await NpmRegistryDouble.start();
    npm.publish('scripted-acp-agent', '1.0.0');
    serve([arch('1.0.0')]);
    vs = await openVsCode({
      machineSettings: { 'hermes.registry.url': srv().url('/registry.json') },
      // The extension host's npm (npm view, and npx when the agent starts) uses the double.
      serverEnv: npm.env(npmCache),
    });
  });

  teardown(async function () {
    if (this.currentTest?.state === 'failed') {
      await vs?.shot(shotName('FAILED-registry-checks', this.currentTest.title));
    }
  });

  suiteTeardown(async () => {
    await vs?.close();
    await server?.close();
    await npm?.close();
    fs.rmSync(npmCache, { recursive: true, force: true });
  });

  test('consent is for the archive: the same archive installs again without asking; another archive for the same id@version asks again', async () => {
    const page = ui().page;
    await pick(archName);
    const first = dialog(page, `Install ${archName} 1.0.0 from the ACP Registry?`);
    await first.waitFor({ timeout: 15_000 });
    assert.ok(((await first.textContent()) ?? '').includes(srv().url('/dl/a/arch.tar.gz')));
    await first.getByRole('button', { name: 'Install and Start' }).click();
    await chatWith(archName);

    // Benign twin: the same id@version and the same archive: reinstalled, not asked.
    await pick(archName);
    await action(/Reinstall 1\.0\.0/);
    await notice(ui(), new RegExp(`${archName} is now at 1\\.0\\.0`));
    assert.equal(await page.locator('.monaco-dialog-box').count(), 0, 'asked once for one archive');

    // The same id@version from another URL: asked again, naming the new URL.
    serve([arch('1.0.0', '/dl/b/arch.tar.gz')]);
    await pick(archName);
    await action(/Reinstall 1\.0\.0/);
    const again = dialog(page, `Install ${archName} 1.0.0 from the ACP Registry?`);
    await again.waitFor({ timeout: 15_000 });
    assert.ok(((await again.textContent()) ?? '').includes(srv().url('/dl/b/arch.tar.gz')), 'the dialog names the new archive');
    await ui().shot('registry-consent-another-archive');
    await again.getByRole('button', { name: 'Cancel' }).click();
    assert.equal(srv().requests.filter((r) => r === '/dl/b/arch.tar.gz').length, 0, 'nothing fetched without consent');
  });

  test('refused before asking: "..", plain http off this machine, a command outside the folder; the dialog shows the URL as fetched', async () => {
    const page = ui().page;
    serve([
      { ...arch('2.0.0'), id: 'dots', name: 'Dots Agent', distribution: { binary: { [platform]: { archive: `${srv().url('/dl/a/')}../../evil/arch.tar.gz`, cmd: './scripted/bin/scripted-agent' } } } },
      { ...arch('2.0.0'), id: 'plain', name: 'Plain Agent', distribution: { binary: { [platform]: { archive: 'http://example.com/../vibe.zip', cmd: './vibe' } } } },
      { ...arch('2.0.0'), id: 'shell', name: 'Shell Agent', distribution: { binary: { [platform]: { archive: srv().url('/dl/a/arch.tar.gz'), cmd: '../../../../bin/sh' } } } },
    ]);
    const cases: [string, RegExp][] = [
      ['Dots Agent', /Dots Agent 2\.0\.0 was not installed: .*has "\." or "\.\." segments, so it would download http:\/\/127\.0\.0\.1:\d+\/evil\/arch\.tar\.gz/],
      ['Plain Agent', /Plain Agent 2\.0\.0 was not installed: http:\/\/example\.com\/vibe\.zip was refused: only https/],
      ['Shell Agent', /Shell Agent 2\.0\.0 was not installed: .*its command "\.\.\/\.\.\/\.\.\/\.\.\/bin\/sh" is not inside the install folder/],
    ];
    for (const [name, message] of cases) {
      await pick(name);
      await notice(ui(), message);
      assert.equal(await page.locator('.monaco-dialog-box').count(), 0, `${name}: refused without asking`);
    }
    assert.deepEqual(srv().requests.filter((r) => r.startsWith('/evil')), [], 'nothing fetched');
    assert.equal(settingsEntry('dots') ?? settingsEntry('plain') ?? settingsEntry('shell'), undefined);
  });

  test('npx: a version the npm registry lacks is an install error with npm\'s answer; a published package installs and chats', async () => {
    const page = ui().page;
    serve([
      { id: 'gemini', name: 'Gemini CLI', version: '0.27.3', description: 'Google\'s official CLI for Gemini', distribution: { npx: { package: '@google/gemini-cli@0.27.3', args: ['--experimental-acp'] } } },
      { id: 'scripted-npx', name: 'Scripted Npx Agent', version: '1.0.0', description: 'The scripted agent as an npm package', distribution: { npx: { package: 'scripted-acp-agent@1.0.0' } } },
    ]);
    await pick('Gemini CLI');
    const consent = dialog(page, 'Install Gemini CLI 0.27.3 from the ACP Registry?');
    await consent.waitFor({ timeout: 15_000 });
    assert.match((await consent.textContent()) ?? '', /Package: @google\/gemini-cli@0\.27\.3.*checked on the npm registry your npm uses/s);
    await consent.getByRole('button', { name: 'Install and Start' }).click();
    await notice(ui(), /@google\/gemini-cli@0\.27\.3 is not on the npm registry your npm uses: npm answered E404 "No match found for version 0\.27\.3"/);
    assert.equal(settingsEntry('gemini'), undefined, 'not called installed');

    // Benign twin: a package the registry has.
    await pick('Scripted Npx Agent');
    await dialog(page, 'Install Scripted Npx Agent 1.0.0 from the ACP Registry?').getByRole('button', { name: 'Install and Start' }).click();
    await chatWith('Scripted Npx Agent');
    const chat = (await chatWebviews(page)).at(-1)?.frame;
    assert.ok(chat !== undefined);
    await send(chat, 'Hello over npx');
    await conversation(chat).getByText('You said: Hello over npx').waitFor({ timeout: 120_000 });
    assert.deepEqual(settingsEntry('scripted-npx')?.args, ['--yes', 'scripted-acp-agent@1.0.0']);
    assert.ok(npm?.server.requests.includes('/@google%2fgemini-cli'), 'npm asked the registry it is configured with');
  });

  test('a lower version offers "Downgrade"; an installed agent whose entry went bad stays listed and removable', async () => {
    const page = ui().page;
    serve([arch('0.9.0')]);
    await pick(archName);
    await action(/Downgrade to 0\.9\.0/);
    const consent = dialog(page, `Install ${archName} 0.9.0 from the ACP Registry?`);
    await consent.waitFor({ timeout: 15_000 });
    await consent.getByRole('button', { name: 'Cancel' }).click();

    serve([{ ...arch('1.0.0'), version: 'latest' }]);
    await paletteCommand(page, 'Hermes: Add Agent from ACP Registry…');
    const row = registryRow(page, archName).first();
    await row.waitFor({ timeout: 30_000 });
    assert.match((await row.textContent()) ?? '', /installed · not in the registry.*its registry entry is invalid: version: version must be a semantic version/);
    await ui().shot('registry-installed-only');
    await row.click();
    await action(/Remove/);
    await dialog(page, `Remove ${archName}?`).getByRole('button', { name: 'Remove' }).click();
    const installDir = path.join(ui().server.runDir, 'ud', 'User', 'globalStorage', 'hermes-acp.hermes-acp', 'registry', 'agents', 'arch');
    // The entry goes first, then the files (RegistryInstaller.remove).
    await waitUntil('the entry and its files removed', () => Promise.resolve(settingsEntry('arch') === undefined && !fs.existsSync(installDir)), 15_000);
  });

  test('a registry that answers with invalid JSON is named as such, not "offline"', async () => {
    srv().set('/registry.json', '{"agents": [');
    await paletteCommand(ui().page, 'Hermes: Add Agent from ACP Registry…');
    const title = ui().page.locator('.quick-input-widget .quick-input-title');
    await waitUntil('the list title', async () => /saved copy from .* \(the registry's answer was unusable\)/.test((await title.textContent()) ?? ''), 30_000);
    await ui().page.keyboard.press('Escape');
    await notice(ui(), /The agent registry answered with something unusable \(The registry at .* answered, but not with valid JSON/);
  });
});
