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
    assert.equal(p.decide(request({}, ['allow_once'])).optionId, undefined);
    assert.match(p.takeRuleFor('tc-1') ?? '', /offered no reject option: answered cancelled/);
    assert.equal(p.takeRuleFor('tc-1'), undefined, 'read once');
  });

  test('allow picks allow_once, else allow_always; sensitive paths and unreadable requests are still denied', () => {
    const p = new HeadlessPermissions({ kind: 'allow' }, cwd);
    const ls = { kind: 'execute' as const, rawInput: { command: 'ls' } };
    assert.deepEqual(p.decide(request(ls, allKinds)), { optionId: 'opt-allow_once', rule: '--permissions allow', check: { targets: ['run ls'], decision: 'rule: --permissions allow', argv: ['ls'] } });
    assert.equal(p.decide(request({ kind: 'think' }, ['allow_always', 'reject_once'])).optionId, 'opt-allow_always');
    const env = p.decide(request({ kind: 'edit', locations: [{ path: `${cwd}/.env` }] }, allKinds));
    assert.equal(env.optionId, 'opt-reject_once');
    assert.match(env.rule, /\.env .*sensitive.*denied: nobody to ask/);
    assert.deepEqual(env.check?.targets, ['write .env (sensitive: .env*)']);
    assert.equal(p.decide(request({ kind: 'execute' }, allKinds)).optionId, 'opt-reject_once', 'a command that cannot be read');
  });

  test('rules: reject rules first, allow rules must cover every target, the rest is denied', () => {
    const p = new HeadlessPermissions(
      {
        kind: 'rules',
        file: 'rules.json',
        rules: [
          { kind: ['read'], effect: 'allow', description: 'reads are fine' },
          { command: 'git push *', effect: 'reject', description: 'never push' },
        ],
      },
      cwd,
    );
    assert.equal(p.decide(request({ kind: 'read', locations: [{ path: `${cwd}/a.ts` }] }, allKinds)).optionId, 'opt-allow_once');
    assert.equal(p.takeRuleFor('tc-1'), 'reads are fine');
    assert.deepEqual(p.decide(request({ kind: 'execute', rawInput: { command: 'git push origin main' } }, allKinds)).optionId, 'opt-reject_once');
    assert.equal(p.takeRuleFor('tc-1'), 'never push');
    const other = p.decide(request({ kind: 'execute', rawInput: { command: 'make' } }, allKinds));
    assert.equal(other.optionId, 'opt-reject_once');
    assert.match(other.rule, /^no rule allows run make; denied: nobody to ask/);
  });

  test('extra sensitive paths from the rules file', () => {
    const p = new HeadlessPermissions({ kind: 'rules', file: 'rules.json', rules: [{ effect: 'allow' }], sensitivePaths: ['*.secret'] }, cwd);
    assert.match(p.decide(request({ kind: 'read', locations: [{ path: `${cwd}/a.SECRET` }] }, allKinds)).rule, /sensitive/);
    assert.equal(p.decide(request({ kind: 'read', locations: [{ path: `${cwd}/a.txt` }] }, allKinds)).optionId, 'opt-allow_once');
  });
});
