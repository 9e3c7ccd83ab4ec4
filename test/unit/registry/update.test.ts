import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { install, pruneVersions } from '../../../src/registry/installer';
import { probeInitialize } from '../../../src/registry/probe';
import { loadRegistry } from '../../../src/registry/registrySource';
import { RegistryError } from '../../../src/registry/registryErrors';
import { definitionOf, installChecked } from '../../../src/registry/updater';
import { binaryEntry, scriptedRelease, sha256, tarGz, zip } from '../../support/registryFixtures';
import { thisPlatform, useRegistryRig } from './registryRig';

suite('registry index, updates with rollback, offline start', function () {
  this.timeout(60_000);
  const rig = useRegistryRig();

  function serveRelease(version: string, archive: Buffer): Record<string, unknown> {
    rig().server.set(`/dl/scripted-${version}.tar.gz`, archive);
    return binaryEntry({ id: 'scripted', version, archive: rig().server.url(`/dl/scripted-${version}.tar.gz`), platform: thisPlatform(), sha256: sha256(archive) });
  }

  function serveIndex(agents: unknown[]): void {
    rig().server.set('/registry.json', JSON.stringify({ version: '1.0.0', agents }));
  }

  test('the index: valid entries listed, invalid ones skipped with reasons, the good copy cached', async () => {
    const good = serveRelease('1.0.0', tarGz(scriptedRelease()));
    serveIndex([good, { id: 'broken', name: 'Broken' }, { ...good, id: 'evil', distribution: { npx: { package: '--registry=http://evil.test' } } }, 42]);
    const snap = await loadRegistry(rig().server.url('/registry.json'), { cacheFile: rig().layout.cacheFile, now: () => 1_000 });
    assert.equal(snap.fromCache, false);
    assert.deepEqual(snap.registry.agents.map((a) => a.id), ['scripted']);
    assert.deepEqual(snap.skipped.map((s) => [s.index, s.id]), [[1, 'broken'], [2, 'evil'], [3, undefined]]);
    assert.ok(fs.existsSync(rig().layout.cacheFile));
  });

  test('offline: the cached index is listed with its age and why, and the installed agent starts without the server', async () => {
    serveIndex([serveRelease('1.0.0', tarGz(scriptedRelease()))]);
    const url = rig().server.url('/registry.json');
    const online = await loadRegistry(url, { cacheFile: rig().layout.cacheFile, now: () => 1_000 });
    const agent = online.registry.agents[0];
    assert.ok(agent !== undefined);
    const installed = await install(agent, rig().choice(agent), { layout: rig().layout });
    await rig().server.close();
    const offline = await loadRegistry(url, { cacheFile: rig().layout.cacheFile, now: () => 99_000, timeoutMs: 2_000 });
    assert.equal(offline.fromCache, true);
    assert.equal(offline.fetchedAt, 1_000, 'the age is the cached copy’s');
    assert.match(offline.fetchError ?? '', /Could not download|did not answer/);
    assert.deepEqual(offline.registry.agents, online.registry.agents);
    assert.deepEqual(await rig().probe(definitionOf(installed)), { ok: true, agentName: 'scripted-agent', agentVersion: '1.0.0' });
    // Another registry URL has no saved copy: a clear error, not somebody else's list.
    await assert.rejects(loadRegistry(url.replace('registry.json', 'other.json'), { cacheFile: rig().layout.cacheFile, timeoutMs: 2_000 }), (e) => RegistryError.is(e, 'unreachable') && e.message.includes('hermes.registry.url'));
  });

  test('a damaged index falls back to the cached copy; a file: URL works as a registry', async () => {
    serveIndex([serveRelease('1.0.0', tarGz(scriptedRelease()))]);
    const url = rig().server.url('/registry.json');
    await loadRegistry(url, { cacheFile: rig().layout.cacheFile });
    rig().server.set('/registry.json', '{"agents": [ truncated');
    const snap = await loadRegistry(url, { cacheFile: rig().layout.cacheFile });
    assert.equal(snap.fromCache, true);
    assert.match(snap.fetchError ?? '', /not valid JSON/);
    const file = path.join(rig().storage, 'local-registry.json');
    fs.writeFileSync(file, JSON.stringify({ agents: [binaryEntry({ id: 'local', version: '2.0.0', archive: 'https://x.test/a.zip', platform: thisPlatform() })] }));
    const local = await loadRegistry(pathToFileURL(file).href, { cacheFile: rig().layout.cacheFile });
    assert.deepEqual(local.registry.agents.map((a) => a.id), ['local']);
  });

  test('an update that does not start is rolled back: the old version stays installed and starts', async () => {
    const v1 = rig().agent(serveRelease('1.0.0', tarGz(scriptedRelease())));
    const first = await installChecked(v1, rig().choice(v1), { layout: rig().layout, probe: (d) => rig().probe(d) });
    assert.ok(first.ok);
    const current = first.definition;
    const v2 = rig().agent(serveRelease('2.0.0', tarGz(scriptedRelease({ broken: 'scripted-agent 2.0.0: libacp.so.2 not found' }))));
    const update = await installChecked(v2, rig().choice(v2), { layout: rig().layout, probe: (d) => rig().probe(d) }, current);
    assert.equal(update.ok, false);
    assert.match(update.ok ? '' : update.reason, /2\.0\.0 did not start: The agent exited with code 1\. .*libacp\.so\.2 not found/);
    assert.match(update.ok ? '' : update.reason, /stays in use/);
    assert.deepEqual(fs.readdirSync(path.join(rig().layout.agentsDir, 'scripted')), ['1.0.0'], 'the new version’s folder was removed');
    assert.deepEqual(await rig().probe(current), { ok: true, agentName: 'scripted-agent', agentVersion: '1.0.0' });
    assert.deepEqual(rig().leftovers(), []);
  });

  test('cancel while the new version is being started: it is stopped, its folder removed, nothing changed', async () => {
    const archive = tarGz(scriptedRelease());
    rig().server.set('/dl/slow.tar.gz', archive);
    // The registry's own env reaches the agent: here, a slow `initialize`.
    const slow = rig().agent(binaryEntry({ id: 'scripted', version: '3.0.0', archive: rig().server.url('/dl/slow.tar.gz'), platform: thisPlatform(), env: { SCRIPTED_AGENT_INIT_DELAY_MS: '20000' } }));
    const abort = new AbortController();
    const started = Date.now();
    await assert.rejects(
      installChecked(slow, rig().choice(slow), {
        layout: rig().layout,
        signal: abort.signal,
        probe: (d) => {
          setTimeout(() => abort.abort(), 300);
          return probeInitialize(d, { cwd: rig().cwd, clientVersion: '0.0.0-test', signal: abort.signal });
        },
      }),
      (e) => RegistryError.is(e, 'cancelled'),
    );
    assert.ok(Date.now() - started < 10_000, 'cancel did not wait for the slow initialize');
    assert.equal(fs.existsSync(path.join(rig().layout.agentsDir, 'scripted', '3.0.0')), false);
    assert.deepEqual(rig().leftovers(), []);
  });

  test('an update that starts replaces the old version, which is then pruned', async () => {
    const v1 = rig().agent(serveRelease('1.0.0', tarGz(scriptedRelease())));
    const first = await installChecked(v1, rig().choice(v1), { layout: rig().layout, probe: (d) => rig().probe(d) });
    assert.ok(first.ok);
    rig().server.set('/dl/scripted-1.1.0.zip', await zip(scriptedRelease()));
    const v11 = rig().agent(binaryEntry({ id: 'scripted', version: '1.1.0', archive: rig().server.url('/dl/scripted-1.1.0.zip'), platform: thisPlatform() }));
    const update = await installChecked(v11, rig().choice(v11), { layout: rig().layout, probe: (d) => rig().probe(d) }, first.definition);
    assert.ok(update.ok);
    assert.equal(update.definition.version, '1.1.0');
    assert.deepEqual(fs.readdirSync(path.join(rig().layout.agentsDir, 'scripted')).sort(), ['1.0.0', '1.1.0'], 'both kept until the setting switches');
    await pruneVersions(rig().layout, 'scripted', ['1.1.0']);
    assert.deepEqual(fs.readdirSync(path.join(rig().layout.agentsDir, 'scripted')), ['1.1.0']);
    const repaired = await installChecked(v11, rig().choice(v11), { layout: rig().layout, probe: (d) => rig().probe(d) }, update.definition);
    assert.ok(repaired.ok, 'a reinstall of the same version repairs it in place');
    assert.deepEqual(fs.readdirSync(path.join(rig().layout.agentsDir, 'scripted')), ['1.1.0']);
  });
});
