import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { bunzip2File } from '../../../src/registry/bunzip2';
import { install, manifestName, type InstalledAgent } from '../../../src/registry/installer';
import { RegistryError, type RegistryErrorKind } from '../../../src/registry/registryErrors';
import { definitionOf } from '../../../src/registry/updater';
import { fixturesDir, repoRoot } from '../../support/paths';
import { binaryEntry, rawLauncher, scriptedCmd, scriptedRelease, sha256, tar, tarGz, zip, type Member } from '../../support/registryFixtures';
import { thisPlatform, useRegistryRig } from './registryRig';

suite('registry binary installs over a loopback server', function () {
  this.timeout(60_000);
  const rig = useRegistryRig();

  async function installArchive(file: string, body: Buffer, o: { id?: string; version?: string; cmd?: string; sha256?: string } = {}): Promise<InstalledAgent> {
    rig().server.set(`/dl/${file}`, body);
    const agent = rig().agent(binaryEntry({ id: o.id ?? 'scripted', version: o.version ?? '1.0.0', archive: rig().server.url(`/dl/${file}`), platform: thisPlatform(), ...(o.cmd !== undefined ? { cmd: o.cmd } : {}), ...(o.sha256 !== undefined ? { sha256: o.sha256 } : {}) }));
    return install(agent, rig().choice(agent), { layout: rig().layout });
  }

  async function assertStarts(installed: InstalledAgent): Promise<void> {
    const started = await rig().probe(definitionOf(installed));
    assert.deepEqual(started, { ok: true, agentName: 'scripted-agent', agentVersion: '1.0.0' }, 'started and answered initialize');
  }

  async function assertRefused(kind: RegistryErrorKind, file: string, body: Buffer, o: { cmd?: string; sha256?: string } = {}): Promise<RegistryError> {
    let error: unknown;
    try {
      await installArchive(file, body, o);
    } catch (e) {
      error = e;
    }
    assert.ok(RegistryError.is(error, kind), `expected ${kind}, got ${String(error)}`);
    assert.deepEqual(rig().leftovers(), [], 'no download or staging folder left behind');
    assert.equal(fs.existsSync(path.join(rig().layout.agentsDir, 'scripted')), false, 'nothing installed');
    assert.equal(fs.existsSync(path.join(rig().storage, 'evil')) || fs.existsSync(path.join(rig().layout.root, 'evil')) || fs.existsSync(path.join(rig().layout.tmpDir, 'evil')), false, 'nothing written outside');
    return error;
  }

  test('.tar.gz with a checksum: downloaded, verified, unpacked atomically, run bit set, starts and answers initialize', async () => {
    const archive = tarGz(scriptedRelease());
    const installed = await installArchive('scripted-1.0.0-linux.tar.gz', archive, { sha256: sha256(archive) });
    const dir = path.join(rig().layout.agentsDir, 'scripted', '1.0.0');
    assert.equal(installed.installDir, dir);
    assert.equal(installed.command, path.join(dir, 'scripted', 'bin', 'scripted-agent'));
    assert.ok((fs.statSync(installed.command).mode & 0o111) !== 0, 'run bit set (the archive had 0644)');
    const manifest = JSON.parse(fs.readFileSync(path.join(dir, manifestName), 'utf8')) as Record<string, unknown>;
    assert.equal(manifest.sha256, sha256(archive));
    assert.equal(manifest.checksumFromRegistry, true);
    assert.deepEqual(rig().leftovers(), []);
    await assertStarts(installed);
  });

  test('.zip (made without mode bits): unpacked, run bit set, starts and answers initialize', async () => {
    const installed = await installArchive('scripted-1.0.0-linux.zip', await zip(scriptedRelease()));
    assert.ok((fs.statSync(installed.command).mode & 0o100) !== 0);
    await assertStarts(installed);
  });

  test('.tar.bz2 (decompressed in a worker) and a raw binary', async () => {
    const bz = fs.readFileSync(path.join(fixturesDir, 'registry', 'hello-1.0.0.tar.bz2'));
    const hello = await installArchive('hello-1.0.0.tbz2', bz, { id: 'hello', cmd: 'hello/bin/hello' });
    assert.equal(execFileSync(hello.command, ['there'], { encoding: 'utf8' }), 'hello from a tar.bz2 release: there\n');
    assert.ok(fs.existsSync(path.join(path.dirname(hello.command), '..', 'README')));
    const raw = await installArchive('scripted-agent-linux', Buffer.from(rawLauncher()), { id: 'raw', cmd: './scripted-agent' });
    assert.equal(raw.command, path.join(rig().layout.agentsDir, 'raw', '1.0.0', 'scripted-agent'));
    await assertStarts(raw);
  });

  test('the bundled bzip2 worker the extension ships (dist/bunzip2Worker.js) decompresses the same release', async () => {
    const out = path.join(rig().storage, 'hello.tar');
    const bytes = await bunzip2File(path.join(fixturesDir, 'registry', 'hello-1.0.0.tar.bz2'), out, 1e6, undefined, path.join(repoRoot, 'dist', 'bunzip2Worker.js'));
    assert.equal(bytes, fs.statSync(out).size);
    assert.ok(fs.readFileSync(out).includes('hello from a tar.bz2 release'));
    await assert.rejects(bunzip2File(path.join(fixturesDir, 'registry', 'hello-1.0.0.tar.bz2'), `${out}.small`, 100, undefined, path.join(repoRoot, 'dist', 'bunzip2Worker.js')), (e) => RegistryError.is(e, 'tooLarge'));
    assert.equal(fs.existsSync(`${out}.small`), false, 'no partial output');
  });

  test('a reinstall of the same version replaces the folder only once the new copy is complete', async () => {
    const first = await installArchive('a.tar.gz', tarGz(scriptedRelease()));
    const marker = path.join(first.installDir ?? '', 'marker');
    fs.writeFileSync(marker, 'old');
    await assert.rejects(installArchive('b.tar.gz', Buffer.from('not an archive at all')), (e) => RegistryError.is(e, 'corruptArchive'));
    assert.ok(fs.existsSync(marker), 'a failed reinstall leaves the installed copy alone');
    await installArchive('c.tar.gz', tarGz(scriptedRelease()));
    assert.equal(fs.existsSync(marker), false, 'a good reinstall replaced it');
  });

  test('zip-slip: hostile names in .zip and .tar.gz are refused before anything is written', async () => {
    const slip: Member[] = [...scriptedRelease(), { name: '../../evil', content: 'pwned' }];
    await assertRefused('unsafeArchive', 'slip.zip', await zip(slip));
    await assertRefused('unsafeArchive', 'slip.tar.gz', tarGz(slip));
    await assertRefused('unsafeArchive', 'abs.tar.gz', tarGz([...scriptedRelease(), { name: '/tmp/evil', content: 'x' }]));
    await assertRefused('unsafeArchive', 'deep.zip', await zip([...scriptedRelease(), { name: 'scripted/../../../evil', content: 'x' }]));
  });

  test('links out of the folder are refused (by name, and by real path through a chain)', async () => {
    await assertRefused('unsafeArchive', 'link.tar.gz', tarGz([...scriptedRelease(), { name: 'scripted/etc', type: 'symlink', link: '/etc' }]));
    await assertRefused('unsafeArchive', 'link.zip', await zip([...scriptedRelease(), { name: 'scripted/up', type: 'symlink', link: '../../..' }]));
    // Each link looks inside on its own; together `esc` is the staging folder's parent.
    await assertRefused('unsafeArchive', 'chain.tar.gz', tarGz([...scriptedRelease(), { name: 'up', type: 'symlink', link: '.' }, { name: 'esc', type: 'symlink', link: 'up/..' }]));
    await assertRefused('unsafeArchive', 'chain.zip', await zip([...scriptedRelease(), { name: 'up', type: 'symlink', link: '.' }, { name: 'esc', type: 'symlink', link: 'up/..' }]));
    await assertRefused('unsafeArchive', 'fifo.tar.gz', tarGz([...scriptedRelease(), { name: 'scripted/pipe', type: 'fifo' }]));
  });

  test('benign links inside the folder are kept', async () => {
    const installed = await installArchive('links.tar.gz', tarGz([...scriptedRelease(), { name: 'scripted/current', type: 'symlink', link: 'bin' }]), { cmd: 'scripted/current/scripted-agent' });
    assert.ok(fs.lstatSync(path.dirname(installed.command)).isSymbolicLink());
    await assertStarts(installed);
  });

  test('a cmd outside the install folder, or missing from the archive, is refused', async () => {
    const release = tarGz(scriptedRelease());
    await assertRefused('cmdOutside', 'a.tar.gz', release, { cmd: '../../../../bin/sh' });
    await assertRefused('cmdOutside', 'b.tar.gz', release, { cmd: '/bin/sh' });
    await assertRefused('cmdMissing', 'c.tar.gz', release, { cmd: './scripted/bin/nope' });
    await assertRefused('cmdMissing', 'd.tar.gz', release, { cmd: 'scripted/bin' });
    // A link that stays inside by name can still not make the cmd a program outside.
    const viaLink = tarGz([...scriptedRelease(), { name: 'scripted/sh', type: 'symlink', link: '../../../../../../../../bin/sh' }]);
    await assertRefused('unsafeArchive', 'e.tar.gz', viaLink, { cmd: 'scripted/sh' });
    assert.equal(scriptedCmd, './scripted/bin/scripted-agent');
  });

  test('a checksum mismatch is refused and the download removed', async () => {
    const archive = tarGz(scriptedRelease());
    const error = await assertRefused('checksum', 'scripted.tar.gz', archive, { sha256: sha256(Buffer.from('something else')) });
    assert.match(error.message, new RegExp(sha256(archive)));
  });

  test('corrupt archives are refused with a message, not a crash', async () => {
    await assertRefused('corruptArchive', 'bad.zip', Buffer.from('PK\u0003\u0004 truncated'));
    await assertRefused('corruptArchive', 'bad.tar.gz', Buffer.concat([tarGz(scriptedRelease()).subarray(0, 200)]));
    await assertRefused('corruptArchive', 'bad.tar.bz2', Buffer.from('BZh91AY&SY garbage garbage garbage'));
    await assertRefused('corruptArchive', 'plain.tar.gz', tar(scriptedRelease()).subarray(0, 700));
  });

  test('installer formats are refused up front', async () => {
    await assertRefused('unsupportedArchive', 'agent.dmg', Buffer.from('x'));
    await assertRefused('unsupportedArchive', 'agent.msi', Buffer.from('x'));
  });
});
