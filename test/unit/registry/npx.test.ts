import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { buildCatalog } from '../../../src/registry/catalog';
import { install } from '../../../src/registry/installer';
import { loadRegistry } from '../../../src/registry/registrySource';
import { definitionOf } from '../../../src/registry/updater';
import { npmPackageTarball } from '../../support/registryFixtures';
import { registryRig, thisPlatform, type RegistryRig } from './registryRig';

/**
 * `npx` entries run through the real npx, offline: the package is a local tarball (npm pack
 * layout around the scripted agent), npm's cache is a fresh temp folder and its registry a closed
 * loopback port — any attempt to reach a registry fails the test instead of quietly succeeding.
 */
suite('registry npx entries from a local package tarball (offline)', function () {
  this.timeout(120_000);
  let rig: RegistryRig;
  let env: Record<string, string>;
  let tarball: string;

  setup(async () => {
    rig = await registryRig();
    tarball = path.join(rig.storage, 'scripted-acp-agent-1.0.0.tgz');
    fs.writeFileSync(tarball, npmPackageTarball('scripted-acp-agent', '1.0.0'));
    env = {
      npm_config_cache: path.join(rig.storage, 'npm-cache'),
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    };
  });

  teardown(async () => {
    await rig.dispose();
  });

  test('`npx --yes <tarball path>` (as `file:` spec) from the registry entry starts the agent and it answers initialize', async () => {
    rig.server.set('/registry.json', JSON.stringify({ version: '1.0.0', agents: [{ id: 'scripted-npx', name: 'Scripted (npx)', version: '1.0.0', description: 'The scripted agent as an npm package.', distribution: { npx: { package: tarball } } }] }));
    const snap = await loadRegistry(rig.server.url('/registry.json'), { cacheFile: rig.layout.cacheFile });
    const item = buildCatalog(snap.registry, { platform: thisPlatform(), tools: { npx: true, uvx: false }, agents: [] }).items[0];
    assert.ok(item?.choice !== undefined);
    assert.equal(item.choice.kind, 'npx');
    const installed = await install(item.agent, item.choice, { layout: rig.layout });
    // npx would run a bare path as a command: a tarball path becomes a `file:` spec.
    assert.deepEqual([installed.command, ...installed.args], ['npx', '--yes', `file:${tarball}`]);
    assert.equal(fs.existsSync(rig.layout.agentsDir), false, 'npx packages are fetched by npx, nothing is unpacked here');
    assert.deepEqual(await rig.probe(definitionOf(installed), env), { ok: true, agentName: 'scripted-agent', agentVersion: '1.0.0' });
  });

  test('`npx --yes --package <file: spec> <cmd>` (an entry with cmd) works the same way', async () => {
    const agent = rig.agent({ id: 'scripted-npx-cmd', name: 'Scripted (npx cmd)', version: '1.0.0', description: 'd', distribution: { npx: { package: `file:${tarball}`, cmd: 'scripted-acp-agent' } } });
    const installed = await install(agent, rig.choice(agent), { layout: rig.layout });
    assert.deepEqual(installed.args, ['--yes', '--package', `file:${tarball}`, 'scripted-acp-agent']);
    assert.deepEqual(await rig.probe(definitionOf(installed), env), { ok: true, agentName: 'scripted-agent', agentVersion: '1.0.0' });
  });
});
