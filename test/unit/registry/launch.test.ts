import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { chooseDistribution, describeCommand, filterEnv, findOnPath, missingToolMessage, npmSpec, npxLaunch, platformKey, uvxLaunch } from '../../../src/registry/launch';
import { parseAgentEntry, type RegistryAgent } from '../../../src/registry/registryFormat';

function agent(distribution: unknown): RegistryAgent {
  const r = parseAgentEntry({ id: 'a', name: 'A', version: '1.0.0', description: 'd', distribution });
  assert.ok('agent' in r, JSON.stringify(r));
  return r.agent;
}

const target = { archive: 'https://x.test/a.tar.gz', cmd: './a' };

suite('registry launch commands and platform choice', () => {
  test('platform keys for the registry’s six targets, none elsewhere', () => {
    assert.equal(platformKey('darwin', 'arm64'), 'darwin-aarch64');
    assert.equal(platformKey('darwin', 'x64'), 'darwin-x86_64');
    assert.equal(platformKey('linux', 'arm64'), 'linux-aarch64');
    assert.equal(platformKey('linux', 'x64'), 'linux-x86_64');
    assert.equal(platformKey('win32', 'arm64'), 'windows-aarch64');
    assert.equal(platformKey('win32', 'x64'), 'windows-x86_64');
    assert.equal(platformKey('freebsd', 'x64'), undefined);
    assert.equal(platformKey('linux', 'ia32'), undefined);
  });

  test('npx: `--yes <package> args`, or `--yes --package <package> <cmd> args` (FORMAT.md)', () => {
    assert.deepEqual(npxLaunch({ package: '@google/gemini-cli@0.27.3', args: ['--experimental-acp'], env: {} }).args, ['--yes', '@google/gemini-cli@0.27.3', '--experimental-acp']);
    const withCmd = npxLaunch({ package: '@scope/tools@1.0.0', cmd: 'tools-acp', args: ['--acp'], env: { TOOLS_MODE: 'acp' } });
    assert.equal(withCmd.command, 'npx');
    assert.deepEqual(withCmd.args, ['--yes', '--package', '@scope/tools@1.0.0', 'tools-acp', '--acp']);
    assert.deepEqual(withCmd.env, { TOOLS_MODE: 'acp' });
  });

  test('a package tarball named by path becomes an npm file: spec; registry names stay as they are', () => {
    assert.equal(npmSpec('/srv/agents/agent-1.0.0.tgz'), 'file:/srv/agents/agent-1.0.0.tgz');
    assert.equal(npmSpec('C:\\agents\\agent-1.0.0.tgz'), 'file:C:\\agents\\agent-1.0.0.tgz');
    for (const same of ['@scope/pkg@1.0.0', 'pkg', 'file:/a.tgz', 'github:org/repo', '/not/a/tarball', 'https://x.test/a.tgz']) {
      assert.equal(npmSpec(same), same);
    }
  });

  test('uvx: `<package> args`, or `--from <package> <cmd> args`', () => {
    assert.deepEqual(uvxLaunch({ package: 'hermes-agent', args: ['acp'], env: {} }), { command: 'uvx', args: ['hermes-agent', 'acp'], env: {}, droppedEnv: [] });
    assert.deepEqual(uvxLaunch({ package: 'tools==1.0.0', cmd: 'tools-acp', args: [], env: {} }).args, ['--from', 'tools==1.0.0', 'tools-acp']);
  });

  test('registry environment may not steer the runner, the loader or PATH; ordinary names pass', () => {
    const hostile = { PATH: '/tmp/evil', Path: 'x', NODE_OPTIONS: '--require /tmp/x.js', LD_PRELOAD: '/tmp/x.so', DYLD_INSERT_LIBRARIES: 'x', npm_config_registry: 'http://evil.test', NPM_CONFIG_USERCONFIG: 'x', UV_INDEX_URL: 'http://evil.test', PIP_INDEX_URL: 'x', PYTHONPATH: 'x', HOME: '/tmp', 'A=B': 'x' };
    const benign = { OPENAI_BASE_URL: 'https://api.example.test', RUST_LOG: 'warn', NODE_ENV: 'production', PATHWAY: 'x', MY_LD_LIBRARY: 'y', UVICORN_PORT: '1' };
    const { env, dropped } = filterEnv({ ...hostile, ...benign });
    assert.deepEqual(env, benign);
    assert.deepEqual(dropped.sort(), Object.keys(hostile).sort());
  });

  test('binary for this platform first, else a package kind whose runner is on PATH', () => {
    const all = agent({ binary: { 'linux-x86_64': target }, npx: { package: 'p' }, uvx: { package: 'q' } });
    assert.equal(chooseDistribution(all, 'linux-x86_64', { npx: true, uvx: true })?.kind, 'binary');
    assert.equal(chooseDistribution(all, 'darwin-aarch64', { npx: true, uvx: true })?.kind, 'npx');
    assert.equal(chooseDistribution(all, 'darwin-aarch64', { npx: false, uvx: true })?.kind, 'uvx');
    const neither = chooseDistribution(all, undefined, { npx: false, uvx: false });
    assert.deepEqual(neither?.kind === 'npx' ? neither.toolMissing : undefined, true, 'missing runner reported, not hidden');
    assert.equal(chooseDistribution(agent({ binary: { 'windows-x86_64': target } }), 'linux-x86_64', { npx: true, uvx: true }), undefined);
  });

  test('PATH lookup, POSIX and simulated Windows (PATHEXT, quoted folders, case-insensitive names)', () => {
    const posixFiles = new Set(['/usr/local/bin/npx']);
    assert.equal(findOnPath('npx', { platform: 'linux', PATH: '/usr/bin::/usr/local/bin', isFile: (p) => posixFiles.has(p), join: (...p: string[]) => path.posix.join(...p) }), '/usr/local/bin/npx');
    assert.equal(findOnPath('uvx', { platform: 'linux', PATH: '/usr/bin', isFile: (p) => posixFiles.has(p), join: (...p: string[]) => path.posix.join(...p) }), undefined);
    assert.equal(findOnPath('npx', { platform: 'linux', PATH: undefined, isFile: () => true, join: (...p: string[]) => path.posix.join(...p) }), undefined);
    const winFiles = new Set(['c:\\program files\\nodejs\\npx.cmd']);
    const isFile = (p: string): boolean => winFiles.has(p.toLowerCase());
    const found = findOnPath('npx', { platform: 'win32', PATH: 'C:\\Windows;"C:\\Program Files\\nodejs"', PATHEXT: '.COM;.EXE;.BAT;.CMD', isFile, join: (...p: string[]) => path.win32.join(...p) });
    assert.equal(found?.toLowerCase(), 'c:\\program files\\nodejs\\npx.cmd');
    assert.equal(findOnPath('npx', { platform: 'win32', PATH: 'C:\\Program Files\\nodejs', PATHEXT: '.EXE', isFile, join: (...p: string[]) => path.win32.join(...p) }), undefined);
  });

  test('missing runners say where to get them', () => {
    assert.match(missingToolMessage('npx'), /Node\.js/);
    assert.match(missingToolMessage('uvx'), /uv/);
    assert.match(missingToolMessage('uvx'), /restart VS Code/);
  });

  test('the command shown for consent is the exact command line, quoted where needed', () => {
    assert.equal(describeCommand({ command: 'npx', args: ['--yes', '@scope/a@1.0.0', '--flag=x'] }), 'npx --yes @scope/a@1.0.0 --flag=x');
    assert.equal(describeCommand({ command: '/opt/my agent/bin', args: ["it's"] }), `'/opt/my agent/bin' 'it'\\''s'`);
  });
});
