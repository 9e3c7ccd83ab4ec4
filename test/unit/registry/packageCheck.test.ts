import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { install } from '../../../src/registry/installer';
import { checkNpmPackage } from '../../../src/registry/packageCheck';
import { RegistryError, type RegistryErrorKind } from '../../../src/registry/registryErrors';
import { NpmRegistryDouble } from '../../support/npmRegistryDouble';
import { npmPackageTarball } from '../../support/registryFixtures';
import { useRegistryRig } from './registryRig';

async function refusal(p: Promise<unknown>): Promise<RegistryError> {
  try {
    await p;
  } catch (e) {
    if (RegistryError.is(e)) {
      return e;
    }
    throw e;
  }
  assert.fail('expected a RegistryError');
}

/**
 * npx packages are checked with the real npm (`npm view <spec> version --json`) against a loopback
 * npm registry that serves what registry.npmjs.org answered (test/fixtures/registry/npm): the
 * registry's Gemini CLI entry names 0.27.3, which npm does not have.
 */
suite('registry npx packages are checked on the npm registry before they are called installed', function () {
  this.timeout(120_000);
  const rig = useRegistryRig();
  let npm: NpmRegistryDouble;
  let env: Record<string, string>;

  setup(async () => {
    npm = await NpmRegistryDouble.start();
    env = npm.env(path.join(rig().storage, 'npm-cache'));
  });

  teardown(async () => {
    await npm.close();
  });

  test('a version the registry does not have is refused with npm\'s answer; the published one next to it resolves', async () => {
    const missing = await refusal(checkNpmPackage('@google/gemini-cli@0.27.3', { cwd: rig().cwd, env }));
    assert.equal(missing.kind, 'packageMissing' satisfies RegistryErrorKind);
    assert.match(missing.message, /^@google\/gemini-cli@0\.27\.3 is not on the npm registry your npm uses: npm answered E404 "No match found for version 0\.27\.3"/);
    // Benign twin: the same package, a published version.
    assert.deepEqual(await checkNpmPackage('@google/gemini-cli@0.27.4', { cwd: rig().cwd, env }), { spec: '@google/gemini-cli@0.27.4', version: '0.27.4' });
    assert.deepEqual(await checkNpmPackage('@zed-industries/claude-code-acp@0.16.0', { cwd: rig().cwd, env }), { spec: '@zed-industries/claude-code-acp@0.16.0', version: '0.16.0' });
    assert.deepEqual(await checkNpmPackage('@google/gemini-cli@^0.27.0', { cwd: rig().cwd, env }), { spec: '@google/gemini-cli@^0.27.0', version: '0.27.4' }, 'a range resolves to its highest match');
    assert.ok(npm.server.requests.includes('/@google%2fgemini-cli'), `npm asked the double: ${npm.server.requests.join(', ')}`);
  });

  test('a package the registry does not know: E404 with the URL npm asked', async () => {
    const e = await refusal(checkNpmPackage('@example-does-not-exist-xyz/agent@1.0.0', { cwd: rig().cwd, env }));
    assert.equal(e.kind, 'packageMissing');
    assert.match(e.message, /npm answered E404 "Not Found - GET http:\/\/127\.0\.0\.1:\d+\/@example-does-not-exist-xyz%2fagent"/);
  });

  test('an unreachable registry, or no npm at all, is "could not be checked", never "installed"', async () => {
    // npm waits 10 s before its one retry; the test shortens that wait, not the behaviour.
    const quickRetry = { npm_config_fetch_retry_mintimeout: '100', npm_config_fetch_retry_maxtimeout: '200' };
    const closed = await refusal(checkNpmPackage('@google/gemini-cli@0.27.4', { cwd: rig().cwd, env: { ...env, ...quickRetry, npm_config_registry: 'http://127.0.0.1:9/' } }));
    assert.equal(closed.kind, 'packageUnchecked');
    assert.match(closed.message, /ECONNREFUSED/);
    const noNpm = await refusal(checkNpmPackage('@google/gemini-cli@0.27.4', { cwd: rig().cwd, env: { ...env, PATH: path.join(os.tmpdir(), 'no-such-dir') } }));
    assert.equal(noNpm.kind, 'packageUnchecked');
    assert.match(noNpm.message, /`npm` was not found on PATH/);
  });

  test('a local tarball (a self-hosted entry) must exist; git and URL specs are not taken', async () => {
    const tarball = path.join(rig().storage, 'agent-1.0.0.tgz');
    fs.writeFileSync(tarball, npmPackageTarball('scripted-acp-agent', '1.0.0'));
    assert.deepEqual(await checkNpmPackage(`file:${tarball}`, { cwd: rig().cwd, env }), { spec: `file:${tarball}` });
    assert.equal((await refusal(checkNpmPackage(`file:${tarball}.gone`, { cwd: rig().cwd, env }))).kind, 'packageMissing');
    assert.equal((await refusal(checkNpmPackage('github:evil/agent', { cwd: rig().cwd, env }))).kind, 'packageUnchecked');
    assert.equal((await refusal(checkNpmPackage('https://example.com/agent.tgz', { cwd: rig().cwd, env }))).kind, 'packageUnchecked');
  });

  test('install() of an npx entry checks first: the missing version installs nothing, the twin installs', async () => {
    const entry = (version: string): unknown => ({ id: 'gemini', name: 'Gemini CLI', version, description: 'd', distribution: { npx: { package: `@google/gemini-cli@${version}`, args: ['--experimental-acp'] } } });
    const missing = rig().agent(entry('0.27.3'));
    const e = await refusal(install(missing, rig().choice(missing), { layout: rig().layout, cwd: rig().cwd, env }));
    assert.equal(e.kind, 'packageMissing');
    const steps: string[] = [];
    const ok = rig().agent(entry('0.27.4'));
    const installed = await install(ok, rig().choice(ok), { layout: rig().layout, cwd: rig().cwd, env, onProgress: (s) => steps.push(s.step === 'checkPackage' ? `${s.step} ${s.spec}` : s.step) });
    assert.deepEqual([installed.command, ...installed.args], ['npx', '--yes', '@google/gemini-cli@0.27.4', '--experimental-acp']);
    assert.deepEqual(steps, ['checkPackage @google/gemini-cli@0.27.4']);
  });
});
