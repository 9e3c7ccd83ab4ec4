import * as assert from 'node:assert/strict';
import { execFileSync, spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type * as AcpConnectionChunk from '../../../src/acp/acpConnection';
import type { AgentExitedError } from '../../../src/agentPort/agentErrors';
import type * as McpServersChunk from '../../../src/mcp/mcpServers';
import { McpInputResolver, environmentInputs } from '../../../src/mcp/inputs';
import { TrafficLog } from '../../../src/wire/trafficLog';
import type * as ProcessSpawn from '../../../src/process/processSpawn';
import { defaultExtractLimits } from '../../../src/registry/extractLimits';
import { RegistryError } from '../../../src/registry/registryErrors';
import type * as RegistryUnpack from '../../../src/registry/registryUnpack';
import type * as TransportChunk from '../../../src/host/connectTransport';
import { loadChunk } from '../../../src/util/lazyChunk';
import { repoRoot } from '../../support/paths';
import { tar, zip } from '../../support/registryFixtures';

/**
 * The chunks the build ships beside the bundles (`dist/<name>.js`) and `loadChunk` requires on
 * first use: the ones in dist/ itself, loaded and run as the extension loads them, so a chunk that
 * is missing, empty or exports the wrong thing fails here rather than on a user's first install.
 */
suite('lazily loaded chunks (dist/)', function () {
  this.timeout(60_000);
  const dist = path.join(repoRoot, 'dist');
  let tmp: string;

  setup(() => {
    tmp = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-chunk-')));
  });
  teardown(() => {
    fs.rmSync(tmp, { recursive: true, force: true });
  });

  /** Every `loadChunk(__dirname, '<name>')` call site in src/: the chunks some bundle may require. */
  function chunkNames(): string[] {
    const names = new Set<string>();
    for (const f of fs.readdirSync(path.join(repoRoot, 'src'), { recursive: true, encoding: 'utf8' })) {
      if (f.endsWith('.ts')) {
        for (const m of fs.readFileSync(path.join(repoRoot, 'src', f), 'utf8').matchAll(/loadChunk<[^>]*>\(__dirname, '([A-Za-z0-9]+)'\)/g)) {
          names.add(m[1] ?? '');
        }
      }
    }
    return [...names].sort();
  }

  test('dist/registryUnpack.js unpacks a tar and a zip, and refuses a hostile name with a RegistryError', async () => {
    const unpack = loadChunk<typeof RegistryUnpack>(dist, 'registryUnpack');
    const limits = defaultExtractLimits(false);
    const members = [{ name: 'pkg/bin/tool', content: '#!/bin/sh\necho chunk\n', mode: 0o755 }, { name: 'pkg/README', content: 'read me' }];
    for (const dest of ['fromTar', 'fromZip', 'slip']) {
      fs.mkdirSync(path.join(tmp, dest));
    }
    fs.writeFileSync(path.join(tmp, 'a.tar'), tar(members));
    await unpack.extractTar(path.join(tmp, 'a.tar'), path.join(tmp, 'fromTar'), limits);
    assert.equal(fs.readFileSync(path.join(tmp, 'fromTar', 'pkg', 'bin', 'tool'), 'utf8'), '#!/bin/sh\necho chunk\n');
    fs.writeFileSync(path.join(tmp, 'a.zip'), await zip(members));
    await unpack.extractZip(path.join(tmp, 'a.zip'), path.join(tmp, 'fromZip'), limits);
    assert.equal(fs.readFileSync(path.join(tmp, 'fromZip', 'pkg', 'README'), 'utf8'), 'read me');
    fs.writeFileSync(path.join(tmp, 'slip.zip'), await zip([{ name: '../evil', content: 'x' }]));
    await assert.rejects(unpack.extractZip(path.join(tmp, 'slip.zip'), path.join(tmp, 'slip'), limits), (e) => RegistryError.is(e, 'unsafeArchive'));
    assert.equal(fs.existsSync(path.join(tmp, 'evil')), false, 'nothing written outside');
  });

  test('dist/processSpawn.js starts a process with execa and pipes its output', async () => {
    const { execa } = loadChunk<typeof ProcessSpawn>(dist, 'processSpawn');
    const r = await execa(process.execPath, ['-e', 'process.stdin.pipe(process.stdout)'], { input: 'through the chunk', reject: false });
    assert.equal(r.exitCode, 0);
    assert.equal(r.stdout, 'through the chunk');
  });

  test('dist/connectTransport.js holds the transports: a TUI Gateway that is not there is reported, not thrown at load', async () => {
    const { connectTransport } = loadChunk<typeof TransportChunk>(dist, 'connectTransport');
    const ports = { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' as const } }) } };
    await assert.rejects(
      connectTransport({ kind: 'tui-gateway', url: 'ws://127.0.0.1:9/api/ws' }, { cwd: os.tmpdir(), log: new TrafficLog(), ports }),
      (e: unknown) => e instanceof Error && e.message !== '',
    );
  });

  test('dist/acpConnection.js holds the ACP client: it initializes the scripted agent, a real process', async () => {
    const { AcpClient } = loadChunk<typeof AcpConnectionChunk>(dist, 'acpConnection');
    const child = spawn(process.execPath, [path.join(dist, 'agents', 'scriptedAgent.js')], { stdio: 'pipe' });
    const exited = new Promise<AgentExitedError>(() => undefined);
    const ports = { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' as const } }) } };
    const client = new AcpClient({ stdin: child.stdin, stdout: child.stdout, exited }, { clientInfo: { name: 'chunk-test', version: '0' }, ports, log: new TrafficLog() });
    try {
      const info = await client.initialize();
      assert.equal(info.protocolVersion, 1);
      const session = await client.newSession({ cwd: tmp, mcpServers: [] });
      assert.ok(session.sessionId !== '', 'a session from the agent');
    } finally {
      client.dispose();
      child.kill();
    }
  });

  test('dist/mcpServers.js reads MCP servers from a setting value: a stdio server found on PATH, a broken one skipped with its reason', async () => {
    const { loadMcpServers, nodeMcpHost } = loadChunk<typeof McpServersChunk>(dist, 'mcpServers');
    const value = { servers: { node: { command: 'node', args: ['server.js'] }, broken: { type: 'stdio' } } };
    const host = nodeMcpHost({ workspaceFolder: tmp, env: process.env, inputs: new McpInputResolver(environmentInputs({})) });
    const list = await loadMcpServers([{ kind: 'value', value, origin: 'test' }], host);
    assert.deepEqual(
      list.servers.map((s) => s.name),
      ['node'],
    );
    assert.ok(list.skipped.some((s) => s.name === 'broken') || list.warnings.length > 0, 'the server without a command is reported');
  });

  test('every bundle that names a chunk has it in its own folder', () => {
    const names = chunkNames();
    assert.deepEqual(names, ['acpConnection', 'connectTransport', 'extensionCore', 'mcpServers', 'processSpawn', 'registryBrowse', 'registryUnpack'], 'the chunks src/ loads lazily');
    const bundles = fs
      .readdirSync(dist, { recursive: true, encoding: 'utf8' })
      .filter((f) => f.endsWith('.js') && !f.startsWith(`webview${path.sep}`));
    let checked = 0;
    for (const bundle of bundles) {
      const text = fs.readFileSync(path.join(dist, bundle), 'utf8');
      for (const name of names) {
        if (text.includes(`"${name}"`)) {
          checked++;
          assert.ok(fs.existsSync(path.join(dist, path.dirname(bundle), `${name}.js`)), `${bundle} loads ${name}.js from its folder, which the build did not write`);
        }
      }
    }
    assert.ok(checked >= 4, `extension.js and cli.js name both chunks (found ${checked} references)`);
  });

  test('the .vsix ships every chunk next to the extension (vsce ls, as `npm run package` packs it)', () => {
    const listed = execFileSync(path.join(repoRoot, 'node_modules', '.bin', 'vsce'), ['ls', '--no-dependencies'], { cwd: repoRoot, encoding: 'utf8' }).split('\n');
    for (const name of chunkNames()) {
      assert.ok(listed.includes(`dist/${name}.js`), `dist/${name}.js is packaged`);
    }
    assert.ok(listed.includes('dist/extension.js'));
  });
});
