import * as assert from 'node:assert/strict';
import type { AgentDefinition } from '../../../src/host/agentHost';
import { buildCatalog, compareVersions, isHermesEntry } from '../../../src/registry/catalog';
import { parseRegistry } from '../../../src/registry/registryFormat';
import { findEntry, removeEntry, settingsEntry, upsertEntry } from '../../../src/registry/settingsEntry';

const entry = (id: string, name: string, version: string, distribution: unknown = { npx: { package: `${id}@${version}` } }): unknown => ({ id, name, version, description: `${name} agent`, distribution });

suite('registry catalog: marks, Hermes merge, settings entries', () => {
  test('semantic version order (semver.org §11), pre-releases before releases', () => {
    const sorted = ['1.0.0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '0.9.10', '0.10.0', '2.0.0+build.5'].sort(compareVersions);
    assert.deepEqual(sorted, ['0.9.10', '0.10.0', '1.0.0-alpha', '1.0.0-alpha.1', '1.0.0-alpha.beta', '1.0.0-beta', '1.0.0-beta.2', '1.0.0-beta.11', '1.0.0-rc.1', '1.0.0', '2.0.0+build.5']);
    assert.equal(compareVersions('1.2.3', 'v1.2.3'), 0);
    assert.equal(compareVersions('1.2.3+a', '1.2.3+b'), 0);
    assert.ok(compareVersions('nightly', '0.0.1') > 0, 'a non-semantic version sorts after the semantic ones');
  });

  test('installed and update-available marks come from hermes.agents entries with source "registry"', () => {
    const { registry } = parseRegistry({ agents: [entry('gemini', 'Gemini CLI', '0.27.3'), entry('codex-acp', 'Codex CLI', '0.9.2'), entry('qwen-code', 'Qwen Code', '0.5.0'), entry('opencode', 'OpenCode', '1.1.53')] });
    const agents: AgentDefinition[] = [
      { id: 'gemini', name: 'Gemini', command: 'npx', args: [], env: {}, source: 'registry', version: '0.27.0' },
      { id: 'codex-acp', name: 'Codex', command: '/x/codex-acp', args: [], env: {}, source: 'registry', version: '0.9.2' },
      // Same id, written by hand: not the registry's install, so no marks.
      { id: 'qwen-code', name: 'Qwen', command: 'qwen', args: ['--acp'], env: {} },
    ];
    const { items } = buildCatalog(registry, { platform: 'linux-x86_64', tools: { npx: true, uvx: false }, agents });
    const byId = new Map(items.map((i) => [i.agent.id, i]));
    assert.deepEqual(items.map((i) => i.agent.name), ['Codex CLI', 'Gemini CLI', 'OpenCode', 'Qwen Code'], 'sorted by name');
    assert.equal(byId.get('gemini')?.updateAvailable, true);
    assert.equal(byId.get('gemini')?.installed?.version, '0.27.0');
    assert.equal(byId.get('codex-acp')?.updateAvailable, false);
    assert.ok(byId.get('codex-acp')?.installed !== undefined);
    assert.equal(byId.get('qwen-code')?.installed, undefined);
    assert.equal(byId.get('opencode')?.choice?.kind, 'npx');
  });

  test('Hermes is listed once: its registry entry is merged into the built-in, whatever id it uses', () => {
    for (const hermes of [entry('hermes-agent', 'Hermes Agent', '0.20.3', { uvx: { package: 'hermes-agent', args: ['acp'] } }), entry('hermes', 'Hermes', '0.20.3'), entry('nous-hermes', 'Hermes', '1.0.0')]) {
      const { registry } = parseRegistry({ agents: [entry('gemini', 'Gemini CLI', '0.27.3'), hermes] });
      const catalog = buildCatalog(registry, { platform: 'linux-x86_64', tools: { npx: true, uvx: true }, agents: [] });
      assert.deepEqual(catalog.items.map((i) => i.agent.id), ['gemini']);
      assert.ok(catalog.hermes !== undefined);
    }
    assert.equal(isHermesEntry({ id: 'hermes-clone', name: 'Hermes Clone' }), false, 'a different agent that mentions Hermes stays listed');
  });

  test('the settings entry is an ordinary hermes.agents entry; an update keeps the user’s name and env', () => {
    const installed = { id: 'gemini', name: 'Gemini CLI', version: '0.28.0', kind: 'npx' as const, command: 'npx', args: ['--yes', '@google/gemini-cli@0.28.0', '--experimental-acp'], env: { GEMINI_ACP: '1' }, droppedEnv: [] };
    const fresh = settingsEntry(installed);
    assert.deepEqual(fresh, { id: 'gemini', name: 'Gemini CLI', command: 'npx', args: installed.args, env: { GEMINI_ACP: '1' }, source: 'registry', version: '0.28.0' });
    const before = [{ id: 'hermes', command: 'hermes', args: ['acp'] }, { id: 'gemini', name: 'My Gemini', command: 'npx', args: ['old'], env: { GEMINI_API_KEY: 'k', GEMINI_ACP: '0' }, source: 'registry', version: '0.27.3' }];
    const updated = settingsEntry(installed, findEntry(before, 'gemini'));
    assert.equal(updated.name, 'My Gemini');
    assert.deepEqual(updated.env, { GEMINI_ACP: '0', GEMINI_API_KEY: 'k' });
    assert.deepEqual(updated.args, installed.args);
    const list = upsertEntry(before, updated);
    assert.equal(list.length, 2);
    assert.deepEqual(list[1], updated, 'replaced in place');
    assert.equal(upsertEntry(undefined, fresh).length, 1, 'a missing setting counts as empty');
    assert.deepEqual(removeEntry(list, 'gemini'), [before[0]]);
  });
});
