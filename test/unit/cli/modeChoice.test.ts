/**
 * Which mode a headless run uses and when a policy could not hold, per agent profile (pure: the
 * scripted-agent runs in agentShapes.test.ts check the wire).
 */
import * as assert from 'node:assert/strict';
import { chooseMode, modeAsks, permissionsEnforced, type ModeView } from '../../../src/cli/modeChoice';
import { agentProfiles, genericProfile } from '../../../src/session/agentProfiles';

function profile(id: string): (typeof agentProfiles)[number] {
  const p = agentProfiles.find((x) => x.id === id);
  assert.ok(p !== undefined, id);
  return p;
}

const view = (current: string, available: readonly string[]): ModeView => ({ current, available, via: { kind: 'modes' } });
const deny = { kind: 'deny' } as const;

suite('hermes-acp-run mode choice', () => {
  test('auto-approving start modes are left for the asking mode under deny or rules, kept under allow', () => {
    assert.deepEqual(chooseMode(profile('qwen'), view('auto', ['plan', 'default', 'auto-edit', 'auto', 'yolo']), deny, undefined), {
      kind: 'switch',
      to: 'default',
      why: 'mode "auto" does not ask before edits and commands, so --permissions deny could not hold',
    });
    assert.equal(chooseMode(profile('claude'), view('bypassPermissions', ['default', 'acceptEdits', 'plan', 'dontAsk', 'bypassPermissions']), { kind: 'rules', file: '/r.json', rules: [] }, undefined).kind, 'switch');
    assert.deepEqual(chooseMode(profile('qwen'), view('auto', ['default', 'auto']), { kind: 'allow' }, undefined), { kind: 'keep' });
    assert.deepEqual(chooseMode(profile('hermes'), view('default', ['default', 'accept_edits', 'dont_ask']), deny, undefined), { kind: 'keep' });
    assert.deepEqual(chooseMode(profile('gemini'), view('yolo', ['yolo']), deny, undefined), { kind: 'keep' }, 'no asking mode offered');
  });

  test('--mode wins, and must be offered', () => {
    assert.deepEqual(chooseMode(profile('hermes'), view('default', ['default', 'dont_ask']), deny, 'dont_ask'), { kind: 'switch', to: 'dont_ask', why: '--mode' });
    assert.equal(chooseMode(profile('hermes'), view('default', ['default']), deny, 'turbo').kind, 'error');
    assert.equal(chooseMode(profile('opencode'), undefined, deny, 'build').kind, 'error');
  });

  test('which modes ask: per profile, by name for unknown agents, never for pi, unknown for opencode', () => {
    assert.equal(modeAsks(profile('claude'), 'plan'), true);
    assert.equal(modeAsks(profile('gemini'), 'autoEdit'), false);
    assert.equal(modeAsks(genericProfile, 'yolo'), false);
    assert.equal(modeAsks(genericProfile, 'auto_edit'), false);
    assert.equal(modeAsks(genericProfile, 'careful'), true);
    assert.equal(modeAsks(profile('pi'), 'off'), false);
    assert.equal(modeAsks(profile('opencode'), 'build'), undefined);
  });

  test('permissions_enforced is false only when the policy needed asking, nothing asked, something changed, and no asking mode', () => {
    const acted = { permissionsAsked: 0, guardedCalls: 1 };
    assert.equal(permissionsEnforced(profile('pi'), view('off', ['off']), deny, acted), false);
    assert.equal(permissionsEnforced(profile('opencode'), view('build', ['build', 'plan']), deny, acted), false);
    assert.equal(permissionsEnforced(profile('hermes'), view('default', ['default']), deny, acted), true);
    assert.equal(permissionsEnforced(profile('pi'), undefined, { kind: 'allow' }, acted), true);
    assert.equal(permissionsEnforced(profile('pi'), undefined, deny, { permissionsAsked: 1, guardedCalls: 1 }), true);
    assert.equal(permissionsEnforced(profile('pi'), undefined, deny, { permissionsAsked: 0, guardedCalls: 0 }), true);
  });
});
