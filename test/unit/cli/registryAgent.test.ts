import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { platformKey } from '../../../src/registry/launch';
import { LoopbackServer } from '../../support/loopbackServer';
import { NpmRegistryDouble } from '../../support/npmRegistryDouble';
import { scriptedAgentPath } from '../../support/paths';
import { binaryEntry, scriptedRelease, sha256, tarGz, zip } from '../../support/registryFixtures';
import { cliPath, events, perTestDir, resultOf, runCli, tempDir, type CliRun } from './cliHarness';

/**
 * `--agent ID` (issue 41): agents of the ACP Registry, installed by the runner with the extension's
 * registry code, against a registry served on loopback (an index and archives built here), npm
 * against a loopback npm registry (NpmRegistryDouble: recordings of registry.npmjs.org's answers),
 * and the real npx. Nothing reaches the network: npm's registry is the double, its cache a temp folder.
 */
suite('hermes-acp-run --agent ID: agents from the ACP Registry', function () {
  this.timeout(120_000);
  const work = perTestDir('hermes-cli-registry-');
  let server: LoopbackServer;
  let data = '';
  let env: Record<string, string> = {};
  const platform = platformKey() ?? 'linux-x86_64';

  setup(async () => {
    server = await LoopbackServer.start();
    data = tempDir('hermes-cli-data-');
    env = {
      HERMES_ACP_REGISTRY_URL: server.url('/registry.json'),
      HERMES_ACP_RUN_DATA_DIR: data,
      // npm, should anything ask it, reaches a closed port instead of the network.
      npm_config_registry: 'http://127.0.0.1:9/',
      npm_config_cache: path.join(data, 'npm-cache'),
      npm_config_update_notifier: 'false',
      npm_config_audit: 'false',
      npm_config_fund: 'false',
    };
  });
  teardown(async () => {
    await server.close();
    fs.rmSync(data, { recursive: true, force: true });
  });

  function serve(agents: unknown[]): void {
    server.set('/registry.json', JSON.stringify({ version: '1.0.0', agents }));
  }

  function run(id: string, extra: readonly string[] = [], more: Record<string, string> = {}): Promise<CliRun> {
    return runCli(['-q', 'hello [plain]', '--format', 'stream-json', '--agent', id, ...extra], { cwd: work.path, env: { ...env, ...more }, timeoutMs: 90_000 });
  }

  function completed(r: CliRun): string {
    assert.equal(r.code, 0, r.stderr);
    const evs = events(r);
    const result = resultOf(evs);
    assert.match(String(result.text), /Hello from the scripted agent/);
    return String(result.session_id);
  }

  const installedVersions = (id: string): string[] => {
    const dir = path.join(data, 'registry', 'agents', id);
    return fs.existsSync(dir) ? fs.readdirSync(dir) : [];
  };

  test('a binary agent (tar.gz with SHA-256): without --yes exit 2 and nothing installed; with --yes installed and run; then runs without --yes', async () => {
    const archive = tarGz(scriptedRelease());
    server.set('/dl/scripted-1.0.0.tar.gz', archive);
    serve([binaryEntry({ id: 'scripted-bin', version: '1.0.0', archive: server.url('/dl/scripted-1.0.0.tar.gz'), platform, sha256: sha256(archive) })]);

    const refused = await run('scripted-bin');
    assert.equal(refused.code, 2, refused.stderr);
    assert.equal(refused.stdout, '', 'a usage error writes no events');
    assert.match(refused.stderr, /--agent scripted-bin: Scripted scripted-bin 1\.0\.0 is not installed, and installing runs code from the network: http:\/\/127\.0\.0\.1:\d+\/dl\/scripted-1\.0\.0\.tar\.gz \(SHA-256 [0-9a-f]{64}\)/);
    assert.match(refused.stderr, /Run again with --yes to install it/);
    assert.deepEqual(installedVersions('scripted-bin'), []);
    assert.ok(!server.requests.includes('/dl/scripted-1.0.0.tar.gz'), 'nothing was downloaded');

    const first = await run('scripted-bin', ['--yes']);
    completed(first);
    assert.match(first.stderr, /installing Scripted scripted-bin 1\.0\.0 from the ACP Registry/);
    assert.deepEqual(installedVersions('scripted-bin'), ['1.0.0']);
    const manifest = JSON.parse(fs.readFileSync(path.join(data, 'registry', 'agents', 'scripted-bin', '1.0.0', '.hermes-registry.json'), 'utf8')) as { sha256: string; checksumFromRegistry: boolean };
    assert.equal(manifest.sha256, sha256(archive));
    assert.equal(manifest.checksumFromRegistry, true);
    const launcher = fs.statSync(path.join(data, 'registry', 'agents', 'scripted-bin', '1.0.0', 'scripted', 'bin', 'scripted-agent'));
    assert.ok((launcher.mode & 0o100) !== 0, 'the installer set the run bit');

    const downloads = server.requests.filter((r) => r.startsWith('/dl/')).length;
    const again = await run('scripted-bin');
    completed(again);
    assert.equal(server.requests.filter((r) => r.startsWith('/dl/')).length, downloads, 'an installed agent is not downloaded again');
    assert.ok(!again.stderr.includes('installing'), again.stderr);
  });

  test('at a terminal the runner asks instead: no installs nothing (exit 2), yes installs and runs', async function () {
    const script = ['/usr/bin/script', '/bin/script'].find((p) => fs.existsSync(p));
    if (script === undefined) {
      this.skip(); // util-linux `script` gives the run a terminal; without it there is none to ask at
    }
    const archive = tarGz(scriptedRelease());
    server.set('/dl/tty.tar.gz', archive);
    serve([binaryEntry({ id: 'scripted-tty', version: '1.0.0', archive: server.url('/dl/tty.tar.gz'), platform, sha256: sha256(archive) })]);
    const atTerminal = (answer: string): Promise<CliRun> =>
      new Promise((resolve, reject) => {
        const command = `${process.execPath} ${cliPath} -q '[plain] hi' --agent scripted-tty`;
        const child = spawn(script, ['-qec', command, '/dev/null'], { cwd: work.path, env: { ...process.env, ...env }, stdio: ['pipe', 'pipe', 'pipe'] });
        let out = '';
        child.stdout.setEncoding('utf8').on('data', (d: string) => {
          out += d;
          if (d.includes('[y/N]')) {
            child.stdin.write(`${answer}\n`);
          }
        });
        const timer = setTimeout(() => {
          child.kill('SIGKILL');
          reject(new Error(`no exit: ${out}`));
        }, 60_000);
        child.once('close', (code) => {
          clearTimeout(timer);
          resolve({ code, signal: null, stdout: out, stderr: '', startedAt: 0, endedAt: 0 });
        });
      });
    const no = await atTerminal('n');
    assert.equal(no.code, 2, no.stdout);
    assert.match(no.stdout, /Install Scripted scripted-tty 1\.0\.0 from the ACP Registry\? It downloads http:\/\/127\.0\.0\.1:\d+\/dl\/tty\.tar\.gz \(SHA-256 [0-9a-f]{64}\)/);
    assert.match(no.stdout, /Not installed: the answer was no\./);
    assert.deepEqual(installedVersions('scripted-tty'), []);
    const yes = await atTerminal('y');
    assert.equal(yes.code, 0, yes.stdout);
    assert.match(yes.stdout, /Hello from the scripted agent/);
    assert.deepEqual(installedVersions('scripted-tty'), ['1.0.0']);
  });

  test('sessions of a registry agent are its own across runs (--name, --resume, sessions list --agent)', async () => {
    const archive = tarGz(scriptedRelease());
    server.set('/dl/scripted-1.0.0.tar.gz', archive);
    serve([binaryEntry({ id: 'scripted-bin', version: '1.0.0', archive: server.url('/dl/scripted-1.0.0.tar.gz'), platform, sha256: sha256(archive) })]);
    const state = { SCRIPTED_AGENT_STATE_FILE: path.join(work.path, '.agent-state.json') };
    const named = completed(await run('scripted-bin', ['--yes', '--name', 'reg'], state));
    const resumed = await runCli(['-q', '[recall]', '--format', 'stream-json', '--agent', 'scripted-bin', '--resume', 'reg'], { cwd: work.path, env: { ...env, ...state } });
    assert.equal(resumed.code, 0, resumed.stderr);
    const result = resultOf(events(resumed));
    assert.equal(result.session_id, named);
    assert.match(String(result.text), /1\) hello \[plain\]/);
    const listed = await runCli(['sessions', 'list', '--format', 'stream-json', '--agent', 'scripted-bin'], { cwd: work.path, env: { ...env, ...state } });
    assert.equal(listed.code, 0, listed.stderr);
    const lines = listed.stdout.trim().split('\n').map((l) => JSON.parse(l) as { session_id: string; name: string | null; listed_by_agent: boolean | null });
    assert.deepEqual(lines.map((l) => [l.session_id, l.name, l.listed_by_agent]), [[named, 'reg', true]]);
    const notInstalled = await runCli(['sessions', 'list', '--agent', 'scripted-other'], { cwd: work.path, env });
    assert.equal(notInstalled.code, 1);
    assert.match(notInstalled.stderr, /--agent scripted-other is not installed in .* \(a run with --agent scripted-other --yes installs it\)/);
  });

  test('a zip whose SHA-256 does not match is refused (exit 1, result names the checksum); nothing is installed; a newer listed version needs --yes', async () => {
    const good = await zip(scriptedRelease());
    server.set('/dl/scripted.zip', good);
    serve([binaryEntry({ id: 'scripted-zip', version: '1.0.0', archive: server.url('/dl/scripted.zip'), platform, sha256: sha256(Buffer.from('something else')) })]);
    const bad = await run('scripted-zip', ['--yes']);
    assert.equal(bad.code, 1);
    const result = resultOf(events(bad));
    assert.match(String(result.error), /--agent scripted-zip: installing Scripted scripted-zip 1\.0\.0 failed \(checksum\)/);
    assert.deepEqual(installedVersions('scripted-zip'), []);
    assert.deepEqual(fs.readdirSync(path.join(data, 'registry', 'tmp')), [], 'no staging left behind');

    // Benign twin: the right checksum installs and runs.
    serve([binaryEntry({ id: 'scripted-zip', version: '1.0.0', archive: server.url('/dl/scripted.zip'), platform, sha256: sha256(good) })]);
    completed(await run('scripted-zip', ['--yes']));

    // The registry moves on: the installed version keeps running until --yes installs the new one.
    server.set('/dl/scripted-1.1.zip', good);
    serve([binaryEntry({ id: 'scripted-zip', version: '1.1.0', archive: server.url('/dl/scripted-1.1.zip'), platform, sha256: sha256(good) })]);
    const kept = await run('scripted-zip');
    completed(kept);
    assert.match(kept.stderr, /lists Scripted scripted-zip 1\.1\.0 \(installed: 1\.0\.0\); running the installed 1\.0\.0/);
    completed(await run('scripted-zip', ['--yes']));
    assert.deepEqual(installedVersions('scripted-zip'), ['1.1.0'], 'the older version is removed');
  });

  test('an npx agent: its package is checked on the npm registry npm uses (a missing version: exit 1), the published one runs through npx', async () => {
    const npm = await NpmRegistryDouble.start();
    try {
      npm.publish('scripted-acp-agent', '1.0.0');
      const npmEnv = npm.env(path.join(data, 'npm-cache'));
      const entry = (version: string): unknown => ({ id: 'scripted-npx', name: 'Scripted (npx)', version, description: 'The scripted agent as an npm package.', distribution: { npx: { package: `scripted-acp-agent@${version}` } } });
      serve([entry('2.0.0')]);
      const missing = await run('scripted-npx', ['--yes'], npmEnv);
      assert.equal(missing.code, 1, missing.stderr);
      assert.match(String(resultOf(events(missing)).error), /installing Scripted \(npx\) 2\.0\.0 failed \(packageMissing\): scripted-acp-agent@2\.0\.0 is not on the npm registry your npm uses: npm answered E404/);

      serve([entry('1.0.0')]);
      const first = await run('scripted-npx', [], npmEnv);
      assert.equal(first.code, 2, 'a first install of an npx agent needs --yes too');
      assert.match(first.stderr, /the npx package scripted-acp-agent@1\.0\.0; it runs as: npx --yes scripted-acp-agent@1\.0\.0/);
      completed(await run('scripted-npx', ['--yes'], npmEnv));
      assert.ok(npm.server.requests.includes('/scripted-acp-agent/-/scripted-acp-agent-1.0.0.tgz'), `npx fetched the package from the double: ${npm.server.requests.join(', ')}`);
      completed(await run('scripted-npx', [], npmEnv));
    } finally {
      await npm.close();
    }
  });

  test('the registry unreachable: its last good copy is used (said on stderr); with no copy, exit 1 naming the registry', async () => {
    const archive = tarGz(scriptedRelease());
    server.set('/dl/a.tar.gz', archive);
    serve([binaryEntry({ id: 'scripted-bin', version: '1.0.0', archive: server.url('/dl/a.tar.gz'), platform, sha256: sha256(archive) }), binaryEntry({ id: 'scripted-other', version: '1.0.0', archive: server.url('/dl/a.tar.gz'), platform, sha256: sha256(archive) })]);
    completed(await run('scripted-bin', ['--yes']));
    server.set('/registry.json', (_req, res) => void res.writeHead(503).end('down'));
    // An agent not installed yet, known only from the saved copy: installed from it.
    const offline = await run('scripted-other', ['--yes']);
    completed(offline);
    assert.match(offline.stderr, /the ACP Registry could not be read \(.*503.*\); using its copy saved \d{4}-/);

    const fresh = tempDir('hermes-cli-data-');
    try {
      const none = await run('scripted-bin', ['--yes'], { HERMES_ACP_RUN_DATA_DIR: fresh });
      assert.equal(none.code, 1);
      assert.match(String(resultOf(events(none)).error), /--agent scripted-bin: The agent registry could not be reached \(.*\)\. There is no saved copy of http:\/\/127\.0\.0\.1:\d+\/registry\.json/);
    } finally {
      fs.rmSync(fresh, { recursive: true, force: true });
    }
  });

  test('--agent hermes is `hermes acp` from PATH, not the registry; an unknown id and --agent with a command are usage errors', async () => {
    const bin = path.join(work.path, 'bin');
    fs.mkdirSync(bin);
    const argsFile = path.join(work.path, 'hermes-args.txt');
    // A stand-in `hermes` that records its arguments and runs the scripted agent.
    fs.writeFileSync(path.join(bin, 'hermes'), `#!/bin/sh\necho "$@" > "${argsFile}"\nexec "${process.execPath}" "${scriptedAgentPath}"\n`, { mode: 0o755 });
    serve([]);
    const hermes = await run('hermes', [], { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` });
    completed(hermes);
    assert.equal(fs.readFileSync(argsFile, 'utf8').trim(), 'acp');
    assert.ok(!server.requests.includes('/registry.json'), 'Hermes is not looked up in the registry');
    const flagged = await run('hermes', ['--ignore-rules'], { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}` });
    completed(flagged);
    assert.equal(fs.readFileSync(argsFile, 'utf8').trim(), '--ignore-rules acp', "Hermes' flags go before acp");

    serve([binaryEntry({ id: 'scripted-bin', version: '1.0.0', archive: server.url('/dl/x.tar.gz'), platform })]);
    const unknown = await run('no-such-agent', ['--yes']);
    assert.equal(unknown.code, 2);
    assert.equal(unknown.stdout, '');
    assert.match(unknown.stderr, /--agent no-such-agent: the ACP Registry at http:\/\/127\.0\.0\.1:\d+\/registry\.json: it lists no agent "no-such-agent" \(it lists: scripted-bin\)/);
    const both = await runCli(['-q', 'x', '--agent', 'scripted-bin', '--', 'node', 'agent.js'], { cwd: work.path, env });
    assert.equal(both.code, 2);
    assert.match(both.stderr, /use either --agent scripted-bin or an agent command after "--", not both/);
    const hermesFlag = await run('scripted-bin', ['--safe-mode']);
    assert.equal(hermesFlag.code, 2);
    assert.match(hermesFlag.stderr, /--safe-mode is a Hermes flag; the agent "scripted-bin" is not `hermes acp`/);
  });
});
