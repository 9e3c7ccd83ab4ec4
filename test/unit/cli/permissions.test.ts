import type * as acp from '@agentclientprotocol/sdk';
import * as assert from 'node:assert/strict';
import { HeadlessPermissions } from '../../../src/cli/permissions';

const cwd = '/work/ws';

function request(toolCall: Partial<acp.ToolCallUpdate>, kinds: readonly acp.PermissionOptionKind[]): acp.RequestPermissionRequest {
  return {
    sessionId: 's',
    toolCall: { toolCallId: 'tc-1', ...toolCall },
    options: kinds.map((kind) => ({ optionId: `opt-${kind}`, name: kind, kind })),
  };
}

const allKinds: readonly acp.PermissionOptionKind[] = ['allow_once', 'allow_always', 'reject_once', 'reject_always'];

suite('hermes-acp-run permissions', () => {
  test('deny picks reject_once, else reject_always, else nothing (answered cancelled)', () => {
    const p = new HeadlessPermissions({ kind: 'deny' }, cwd);
    assert.deepEqual(p.decide(request({}, allKinds)), { optionId: 'opt-reject_once', rule: '--permissions deny' });
    assert.deepEqual(p.decide(request({}, ['allow_once', 'reject_always'])), { optionId: 'opt-reject_always', rule: '--permissions deny' });
    assert.equal(p.decide(request({}, ['allow_once'])), undefined);
    assert.match(p.takeRuleFor('tc-1') ?? '', /offered no reject option: answered cancelled/);
    assert.equal(p.takeRuleFor('tc-1'), undefined, 'read once');
  });

  test('allow picks allow_once, else allow_always; sensitive paths are still denied', () => {
    const p = new HeadlessPermissions({ kind: 'allow' }, cwd);
    assert.deepEqual(p.decide(request({ kind: 'execute' }, allKinds)), { optionId: 'opt-allow_once', rule: '--permissions allow' });
    assert.equal(p.decide(request({}, ['allow_always', 'reject_once']))?.optionId, 'opt-allow_always');
    const env = p.decide(request({ kind: 'edit', locations: [{ path: `${cwd}/.env` }] }, allKinds));
    assert.equal(env?.optionId, 'opt-reject_once');
    assert.match(env.rule, /\.env is a sensitive path.*denied: nobody to ask/);
  });

  test('rules: first match decides; reject rules pick a reject option; unmatched is denied', () => {
    const p = new HeadlessPermissions(
      {
        kind: 'rules',
        file: 'rules.json',
        rules: [
          { kind: ['read'], effect: 'allow', description: 'reads are fine' },
          { command: 'git push*', effect: 'reject', description: 'never push' },
        ],
      },
      cwd,
    );
    assert.deepEqual(p.decide(request({ kind: 'read', locations: [{ path: `${cwd}/a.ts` }] }, allKinds)), { optionId: 'opt-allow_once', rule: 'reads are fine' });
    assert.deepEqual(p.decide(request({ kind: 'execute', rawInput: { command: 'git push origin main' } }, allKinds)), { optionId: 'opt-reject_once', rule: 'never push' });
    const other = p.decide(request({ kind: 'execute', rawInput: { command: 'make' } }, allKinds));
    assert.equal(other?.optionId, 'opt-reject_once');
    assert.match(other.rule, /^no rule matched; denied/);
  });
});
