import * as assert from 'node:assert/strict';
import { parseRegistry, RegistryFormatError } from '../../../src/registry/registryFormat';

const base = 'https://registry.example.test/v1/registry.json';

/** Shapes of real entries (agentclientprotocol/registry at 172d5034…: codex-acp, gemini, opencode). */
const codex = {
  id: 'codex-acp',
  name: 'Codex CLI',
  version: '0.9.2',
  description: "ACP adapter for OpenAI's coding assistant",
  repository: 'https://github.com/zed-industries/codex-acp',
  authors: ['OpenAI', 'Zed Industries'],
  license: 'Apache-2.0',
  icon: 'https://cdn.example.test/codex-acp.svg',
  distribution: {
    binary: {
      'linux-x86_64': { archive: 'https://github.com/zed-industries/codex-acp/releases/download/v0.9.2/codex-acp-0.9.2-x86_64-unknown-linux-gnu.tar.gz', cmd: './codex-acp' },
      'windows-x86_64': { archive: 'https://github.com/zed-industries/codex-acp/releases/download/v0.9.2/codex-acp-0.9.2-x86_64-pc-windows-msvc.zip', cmd: './codex-acp.exe', sha256: 'AB'.repeat(32) },
    },
  },
};
const gemini = { id: 'gemini', name: 'Gemini CLI', version: '0.27.3', description: "Google's official CLI for Gemini", authors: ['Google'], license: 'Apache-2.0', distribution: { npx: { package: '@google/gemini-cli@0.27.3', args: ['--experimental-acp'] } } };
const withCmd = { id: 'pkg-cmd', name: 'Pkg', version: '1.0.0', description: 'd', distribution: { npx: { package: '@scope/tools@1.0.0', cmd: 'tools-acp' }, uvx: { package: 'tools==1.0.0', cmd: 'tools-acp', args: ['serve'] } } };

suite('registry format (schema from agentclientprotocol/registry)', () => {
  test('valid entries are listed with defaults filled and checksums lower-cased', () => {
    const { registry, skipped } = parseRegistry({ version: '1.0.0', agents: [codex, gemini, withCmd], extensions: [] }, base);
    assert.deepEqual(skipped, []);
    assert.equal(registry.version, '1.0.0');
    assert.deepEqual(registry.agents.map((a) => a.id), ['codex-acp', 'gemini', 'pkg-cmd']);
    const c = registry.agents[0];
    assert.equal(c?.distribution.binary?.['linux-x86_64']?.cmd, './codex-acp');
    assert.deepEqual(c?.distribution.binary?.['linux-x86_64']?.args, []);
    assert.equal(c?.distribution.binary?.['windows-x86_64']?.sha256, 'ab'.repeat(32));
    assert.deepEqual(registry.agents[1]?.distribution.npx, { package: '@google/gemini-cli@0.27.3', args: ['--experimental-acp'], env: {} });
    assert.equal(registry.agents[2]?.distribution.uvx?.cmd, 'tools-acp');
  });

  test('invalid entries are skipped with a reason; the rest still load', () => {
    const bad: unknown[] = [
      'not an object',
      { ...gemini, id: '../../etc' },
      { ...gemini, id: 'Gemini' },
      { ...gemini, id: 'no-version', version: 'latest' },
      { ...gemini, id: 'slash-version', version: '1.0.0/../../x' },
      { ...gemini, id: 'no-dist', distribution: {} },
      { ...gemini, id: 'bad-npx', distribution: { npx: { package: '--registry=http://evil.test' } } },
      { ...gemini, id: 'bad-cmd', distribution: { npx: { package: 'ok', cmd: '-c' } } },
      { ...gemini, id: 'no-name', name: '' },
      { ...codex, id: 'bad-sha', distribution: { binary: { 'linux-x86_64': { archive: 'https://x.test/a.tgz', cmd: './a', sha256: 'xyz' } } } },
      { ...codex, id: 'ftp', distribution: { binary: { 'linux-x86_64': { archive: 'ftp://x.test/a.tgz', cmd: './a' } } } },
      { ...codex, id: 'no-cmd', distribution: { binary: { 'linux-x86_64': { archive: 'https://x.test/a.tgz' } } } },
      { ...gemini, id: 'env-number', distribution: { npx: { package: 'x', env: { A: 1 } } } },
      { ...gemini, id: 'only-unknown-platform', distribution: { binary: { 'plan9-mips': { archive: 'https://x.test/a', cmd: 'a' } } } },
    ];
    const { registry, skipped } = parseRegistry({ version: '1.0.0', agents: [codex, ...bad, gemini, withCmd, { ...gemini, name: 'Second Gemini' }] }, base);
    assert.deepEqual(registry.agents.map((a) => a.id), ['codex-acp', 'gemini', 'pkg-cmd']);
    assert.equal(registry.agents[1]?.name, 'Gemini CLI');
    assert.equal(skipped.length, bad.length + 1);
    const reason = (id: string): string => skipped.find((s) => s.id === id)?.reason ?? '(not skipped)';
    assert.match(reason('../../etc'), /^id: /);
    assert.match(reason('no-version'), /version/);
    assert.match(reason('slash-version'), /version/);
    assert.match(reason('bad-npx'), /must not start with "-"/);
    assert.match(reason('bad-sha'), /sha256/);
    assert.match(reason('ftp'), /binary\.linux-x86_64/);
    assert.match(reason('only-unknown-platform'), /no platform or kind/);
    assert.match(reason('gemini'), /duplicate id/);
    assert.equal(skipped[0]?.index, 1);
    assert.equal(skipped[0]?.id, undefined);
  });

  test('unknown fields, kinds and platforms are ignored, not fatal (the registry grows)', () => {
    const grown = { ...gemini, id: 'grown', license_url: 'https://x.test/l', future: { x: 1 }, distribution: { npx: { package: 'p@1.0.0', extras: ['acp'] }, docker: { image: 'x' }, binary: { 'plan9-mips': {} } } };
    const { registry, skipped } = parseRegistry({ version: '2.0.0', agents: [grown] });
    assert.deepEqual(skipped, []);
    assert.deepEqual(Object.keys(registry.agents[0]?.distribution ?? {}), ['npx']);
  });

  test('relative icons resolve against the index URL; non-web icons are dropped', () => {
    const { registry } = parseRegistry({ agents: [{ ...gemini, icon: './gemini.svg' }, { ...gemini, id: 'js', icon: 'javascript:alert(1)' }, { ...gemini, id: 'local', icon: 'file:///home/u/.ssh/id_rsa' }] }, base);
    assert.equal(registry.agents[0]?.icon, 'https://registry.example.test/v1/gemini.svg');
    assert.equal(registry.agents[1]?.icon, undefined);
    assert.equal(registry.agents[2]?.icon, undefined, 'a web registry cannot point at local files');
    const local = parseRegistry({ agents: [{ ...gemini, icon: './gemini.svg' }] }, 'file:///opt/acp/registry.json');
    assert.equal(local.registry.agents[0]?.icon, 'file:///opt/acp/gemini.svg', 'a local registry may ship local icons');
  });

  test('a document without an agents list is a format error (nothing to list)', () => {
    for (const doc of [null, [], { version: '1.0.0' }, { agents: {} }, 'registry']) {
      assert.throws(() => parseRegistry(doc), RegistryFormatError);
    }
  });
});
