import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { AgentDefinition } from '../../../src/host/agentHost';
import { buildCatalog } from '../../../src/registry/catalog';
import { install } from '../../../src/registry/installer';
import { archiveUrl, planInstall } from '../../../src/registry/installPlan';
import { registryLayout } from '../../../src/registry/installPaths';
import { chooseDistribution } from '../../../src/registry/launch';
import { parseAgentEntry, parseRegistry, type RegistryAgent } from '../../../src/registry/registryFormat';
import { RegistryError } from '../../../src/registry/registryErrors';
import { loadRegistry, maxIndexBytes } from '../../../src/registry/registrySource';
import { LoopbackServer } from '../../support/loopbackServer';
import { tempDir } from '../../support/tempDirs';

const layout = registryLayout(path.join(os.tmpdir(), 'hermes-plan-storage'));
const codexUrl = 'https://github.com/zed-industries/codex-acp/releases/download/v0.9.2/codex-acp-0.9.2-x86_64-unknown-linux-gnu.tar.gz';
const sha = 'a'.repeat(64);

function agent(o: { archive?: string; sha256?: string; cmd?: string; version?: string; npx?: string } = {}): RegistryAgent {
  const distribution =
    o.npx !== undefined
      ? { npx: { package: o.npx } }
      : { binary: { 'linux-x86_64': { archive: o.archive ?? codexUrl, cmd: o.cmd ?? './codex-acp', ...(o.sha256 !== undefined ? { sha256: o.sha256 } : {}) } } };
  const r = parseAgentEntry({ id: 'codex-acp', name: 'Codex CLI', version: o.version ?? '0.9.2', description: 'd', distribution });
  if ('reason' in r) {
    throw new Error(r.reason);
  }
  return r.agent;
}

function plan(a: RegistryAgent): ReturnType<typeof planInstall> {
  const choice = chooseDistribution(a, 'linux-x86_64', { npx: true, uvx: true });
  assert.ok(choice !== undefined);
  return planInstall(a, choice, layout, 'linux');
}

function refusedBy(kind: string, run: () => unknown): RegistryError {
  try {
    run();
  } catch (e) {
    assert.ok(RegistryError.is(e), String(e));
    assert.equal(e.kind, kind, e.message);
    return e;
  }
  assert.fail(`expected ${kind}`);
}

suite('registry install plans: what the consent covers, and what is refused before asking', () => {
  test('consent is per archive: the same id@version with another URL or checksum is another plan; the same archive is the same', () => {
    const base = plan(agent({ sha256: sha }));
    assert.equal(plan(agent({ sha256: sha })).consentKey, base.consentKey, 'benign twin: same archive, same consent');
    assert.notEqual(plan(agent({ sha256: 'b'.repeat(64) })).consentKey, base.consentKey, 'another checksum asks again');
    assert.notEqual(plan(agent({})).consentKey, base.consentKey, 'no checksum asks again');
    assert.notEqual(plan(agent({ sha256: sha, archive: codexUrl.replace('v0.9.2', 'v0.9.3') })).consentKey, base.consentKey, 'another archive URL asks again');
    assert.notEqual(plan(agent({ sha256: sha, cmd: './bin/codex-acp' })).consentKey, base.consentKey, 'another command asks again');
    assert.notEqual(plan(agent({ npx: '@zed-industries/codex-acp@0.9.2' })).consentKey, base.consentKey);
    assert.equal(plan(agent({ npx: '@zed-industries/codex-acp@0.9.2' })).consentKey, plan(agent({ npx: '@zed-industries/codex-acp@0.9.2' })).consentKey);
    assert.notEqual(plan(agent({ npx: '@zed-industries/codex-acp@0.9.2' })).consentKey, plan(agent({ npx: '@zed-industries/codex-acp@0.9.3' })).consentKey, 'another package spec asks again');
  });

  test('the plan shows the URL as fetched and the command resolved inside the install folder', () => {
    const p = plan(agent({ sha256: sha }));
    assert.deepEqual(p.archive, { url: codexUrl, sha256: sha });
    assert.equal(p.installDir, path.join(layout.agentsDir, 'codex-acp', '0.9.2'));
    assert.equal(p.command.command, path.join(layout.agentsDir, 'codex-acp', '0.9.2', 'codex-acp'));
    const npx = plan(agent({ npx: '@zed-industries/codex-acp@0.9.2' }));
    assert.equal(npx.package, '@zed-industries/codex-acp@0.9.2');
    assert.deepEqual([npx.command.command, ...npx.command.args], ['npx', '--yes', '@zed-industries/codex-acp@0.9.2']);
  });

  test('refused before asking: "..", plain http off this machine, a cmd outside the folder, an installer', () => {
    const dots = refusedBy('urlRefused', () => plan(agent({ archive: `${codexUrl.replace('codex-acp-0.9.2', '../../../../../../evil/codex-acp-0.9.2')}` })));
    assert.match(dots.message, /has "\." or "\.\." segments, so it would download https:\/\/github\.com\/evil\/codex-acp-0\.9\.2/);
    refusedBy('urlRefused', () => plan(agent({ archive: 'https://github.com/x/%2e%2e/y/a.tar.gz' })));
    refusedBy('urlRefused', () => plan(agent({ archive: 'https://github.com/x/./a.tar.gz' })));
    const http = refusedBy('urlRefused', () => plan(agent({ archive: 'http://example.com/../vibe.zip' })));
    assert.match(http.message, /only https \(or http on this machine\)/);
    refusedBy('urlRefused', () => plan(agent({ archive: 'http://example.com/vibe.zip' })));
    refusedBy('cmdOutside', () => plan(agent({ cmd: '../../../../bin/sh' })));
    refusedBy('cmdOutside', () => plan(agent({ cmd: '/bin/sh' })));
    refusedBy('unsupportedArchive', () => plan(agent({ archive: 'https://example.com/agent.dmg' })));
    // Benign twins: http on loopback, a dot inside a name, a query with "..".
    assert.equal(plan(agent({ archive: 'http://127.0.0.1:8080/dl/a.tar.gz' })).archive?.url, 'http://127.0.0.1:8080/dl/a.tar.gz');
    assert.equal(plan(agent({ archive: 'https://example.com/v1..2/agent.tar.gz' })).archive?.url, 'https://example.com/v1..2/agent.tar.gz');
    assert.equal(archiveUrl('https://example.com/dl/agent.tar.gz?ref=../x'), 'https://example.com/dl/agent.tar.gz?ref=../x');
    assert.equal(plan(agent({ cmd: './bin/codex-acp' })).command.command, path.join(layout.agentsDir, 'codex-acp', '0.9.2', 'bin', 'codex-acp'), 'a cmd inside');
  });

  test('the installer refuses a dotted archive URL too, without a request', async () => {
    const server = await LoopbackServer.start({ '/evil/a.tar.gz': 'x' });
    try {
      const a = agent({ archive: server.url('/dl/../evil/a.tar.gz') });
      const choice = chooseDistribution(a, 'linux-x86_64', { npx: true, uvx: true });
      assert.ok(choice !== undefined);
      await assert.rejects(install(a, choice, { layout: registryLayout(tempDir('hermes-plan-')) }), (e) => RegistryError.is(e, 'urlRefused'));
      assert.deepEqual(server.requests, []);
    } finally {
      await server.close();
    }
  });
});

suite('registry catalog and index: downgrades, orphans, causes, the size cap', function () {
  this.timeout(30_000);

  test('a lower registry version is a downgrade, not a reinstall; an equal one neither', () => {
    const { registry } = parseRegistry({ agents: [{ id: 'a', name: 'A', version: '1.0.0', description: 'd', distribution: { npx: { package: 'a@1.0.0' } } }, { id: 'b', name: 'B', version: '2.0.0', description: 'd', distribution: { npx: { package: 'b@2.0.0' } } }] });
    const installed: AgentDefinition[] = [
      { id: 'a', name: 'A', command: 'npx', args: [], env: {}, source: 'registry', version: '1.2.0' },
      { id: 'b', name: 'B', command: 'npx', args: [], env: {}, source: 'registry', version: '2.0.0' },
    ];
    const items = buildCatalog(registry, { platform: 'linux-x86_64', tools: { npx: true, uvx: false }, agents: installed }).items;
    assert.deepEqual(items.map((i) => [i.agent.id, i.updateAvailable, i.downgrade]), [['a', false, true], ['b', false, false]]);
  });

  test('an installed agent whose entry went bad (or away) stays listed as installed-only, with why', () => {
    const { registry, skipped } = parseRegistry({ agents: [{ id: 'gone-bad', name: 'X', version: 'latest', description: 'd', distribution: {} }, { id: 'ok', name: 'OK', version: '1.0.0', description: 'd', distribution: { npx: { package: 'ok@1.0.0' } } }] });
    const installed: AgentDefinition[] = [
      { id: 'gone-bad', name: 'Gone Bad', command: '/x/agent', args: [], env: {}, source: 'registry', version: '1.0.0' },
      { id: 'removed', name: 'Removed', command: '/y/agent', args: [], env: {}, source: 'registry', version: '0.1.0' },
      { id: 'mine', name: 'Mine', command: 'mine', args: [], env: {} },
      { id: 'ok', name: 'OK', command: 'npx', args: [], env: {}, source: 'registry', version: '1.0.0' },
    ];
    const catalog = buildCatalog(registry, { platform: 'linux-x86_64', tools: { npx: true, uvx: false }, agents: installed }, skipped);
    assert.deepEqual(catalog.installedOnly.map((o) => [o.definition.id, o.reason.replace(/:.*/, '')]), [['gone-bad', 'its registry entry is invalid'], ['removed', 'the registry no longer lists it']]);
    assert.deepEqual(catalog.items.map((i) => i.agent.id), ['ok'], 'the benign twin is an ordinary item');
  });

  test('index errors name their cause: invalid JSON and too large say so, not "check the network"', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-index-'));
    const server = await LoopbackServer.start({ '/bad.json': '{"agents": [', '/not-registry.json': '{"hello": 1}', '/ok.json': '{"version":"1.0.0","agents":[]}' });
    try {
      const cacheFile = path.join(dir, 'cache.json');
      const reasons = async (url: string): Promise<[string, string]> => {
        try {
          await loadRegistry(url, { cacheFile: path.join(dir, `none-${Math.random()}.json`) });
        } catch (e) {
          return [RegistryError.is(e) ? e.kind : 'other', e instanceof Error ? e.message : ''];
        }
        return ['ok', ''];
      };
      const [badKind, bad] = await reasons(server.url('/bad.json'));
      assert.equal(badKind, 'invalidIndex');
      assert.match(bad, /answered, but not with valid JSON/);
      assert.doesNotMatch(bad, /network/);
      const [notKind, not] = await reasons(server.url('/not-registry.json'));
      assert.equal(notKind, 'invalidIndex');
      assert.match(not, /not with a registry index/);
      const [downKind, down] = await reasons('http://127.0.0.1:9/registry.json');
      assert.equal(downKind, 'unreachable');
      assert.match(down, /Check the network/);
      // With a saved copy: a reachable registry that serves invalid JSON is not "offline".
      await loadRegistry(server.url('/ok.json'), { cacheFile });
      server.set('/ok.json', 'not json');
      const snap = await loadRegistry(server.url('/ok.json'), { cacheFile });
      assert.equal(snap.fromCache, true);
      assert.equal(snap.fetchFailure, 'invalid');
      const offline = await loadRegistry(server.url('/ok.json'), { cacheFile }).then(async () => {
        await server.close();
        return loadRegistry(server.url('/ok.json'), { cacheFile });
      });
      assert.equal(offline.fetchFailure, 'unreachable');
    } finally {
      await server.close().catch(() => undefined);
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a file: index has the same cap as http, refused by its size before it is read', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-index-'));
    try {
      const big = path.join(dir, 'big.json');
      // A sparse file of 1 GB: reading it whole would take seconds and a gigabyte of memory.
      const fd = fs.openSync(big, 'w');
      fs.ftruncateSync(fd, 1024 * 1024 * 1024);
      fs.closeSync(fd);
      const before = process.memoryUsage().rss;
      const started = Date.now();
      await assert.rejects(loadRegistry(`file://${big}`, { cacheFile: path.join(dir, 'c.json') }), (e) => RegistryError.is(e, 'tooLarge') && e.message.includes('more than the 16777216 bytes'));
      assert.ok(Date.now() - started < 1000, `refused in ${Date.now() - started} ms`);
      assert.ok(process.memoryUsage().rss - before < 64 * 1024 * 1024, 'nothing read into memory');
      // Benign twin: an index just under the cap is read.
      const ok = path.join(dir, 'ok.json');
      const agents = '{"version":"1.0.0","agents":[]}';
      fs.writeFileSync(ok, agents + ' '.repeat(maxIndexBytes - agents.length));
      const snap = await loadRegistry(`file://${ok}`, { cacheFile: path.join(dir, 'c.json') });
      assert.equal(snap.registry.agents.length, 0);
      assert.equal(snap.fromCache, false);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
