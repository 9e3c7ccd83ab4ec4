import * as assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import { parseRules, PermissionPolicy } from '../../../src/session/permissionPolicy';
import { classifyRpcFailure, detectProviderFailureText } from '../../../src/session/providerErrors';

const hermesCommandOptions: acp.PermissionOption[] = [
  { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
  { optionId: 'allow_session', name: 'Allow for session', kind: 'allow_always' },
  { optionId: 'allow_always', name: 'Allow always', kind: 'allow_always' },
  { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
  { optionId: 'deny_always', name: 'Deny always', kind: 'reject_always' },
];

function request(toolCall: acp.ToolCallUpdate, options = hermesCommandOptions): acp.RequestPermissionRequest {
  return { sessionId: 's', toolCall, options };
}

suite('permission policy', () => {
  const cwd = '/ws';

  test('asks for everything by default', () => {
    const p = new PermissionPolicy([], { cwd });
    assert.deepEqual(p.evaluate(request({ toolCallId: 'a', kind: 'execute', rawInput: { command: 'ls' } })), { effect: 'ask', reason: 'no rule matched' });
  });

  test('allows a matching command with a one-time allow option, by optionId', () => {
    const p = new PermissionPolicy(parseRules([{ kind: 'execute', command: 'npm test*', effect: 'allow' }]).rules, { cwd });
    const d = p.evaluate(request({ toolCallId: 'a', kind: 'execute', rawInput: { command: 'npm test -- --grep x' } }));
    assert.deepEqual(d, { effect: 'allow', optionId: 'allow_once', rule: 'allow execute command npm test*' });
    assert.equal(p.evaluate(request({ toolCallId: 'b', kind: 'execute', rawInput: { command: 'rm -rf /' } })).effect, 'ask');
  });

  test('rejects with the reject option and stops at the first matching rule', () => {
    const p = new PermissionPolicy(
      parseRules([
        { command: '/rm\\s+-r/', effect: 'reject', description: 'no recursive deletes' },
        { kind: ['execute'], effect: 'allow' },
      ]).rules,
      { cwd },
    );
    const d = p.evaluate(request({ toolCallId: 'a', kind: 'execute', rawInput: { command: 'rm -r build' } }));
    assert.deepEqual(d, { effect: 'reject', optionId: 'deny', rule: 'no recursive deletes' });
  });

  test('matches workspace-relative path globs from diffs and locations', () => {
    const p = new PermissionPolicy(parseRules([{ kind: 'edit', path: 'src/**', effect: 'allow' }]).rules, { cwd });
    const edit = (path: string): acp.RequestPermissionRequest =>
      request({ toolCallId: 'e', kind: 'edit', content: [{ type: 'diff', path, oldText: 'a', newText: 'b' }] }, [
        { optionId: 'allow_once', name: 'Allow edit', kind: 'allow_once' },
        { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
      ]);
    assert.equal(p.evaluate(edit('/ws/src/a/b.ts')).effect, 'allow');
    assert.equal(p.evaluate(edit('/ws/README.md')).effect, 'ask');
    assert.equal(p.evaluate(edit('/elsewhere/src/a.ts')).effect, 'ask');
  });

  test('always asks about sensitive paths even when a rule allows', () => {
    const p = new PermissionPolicy(parseRules([{ kind: 'edit', effect: 'allow' }]).rules, { cwd });
    for (const path of ['/ws/.env', '/ws/config/.env.local', '/ws/.git/config', '/home/u/.ssh/id_rsa', '/ws/keys/server.pem']) {
      const d = p.evaluate(request({ toolCallId: 'e', kind: 'edit', locations: [{ path }] }));
      assert.equal(d.effect, 'ask', path);
    }
  });

  test('reports invalid rules instead of guessing', () => {
    const { rules, problems } = parseRules([{ effect: 'maybe' }, { kind: 'teleport', effect: 'allow' }]);
    assert.equal(rules.length, 1);
    assert.equal(problems.length, 2);
  });
});

suite('provider failures', () => {
  test('recognizes Hermes provider failures reported as text', () => {
    assert.deepEqual(detectProviderFailureText('API call failed after 3 retries: HTTP 429: Rate limit reached for requests'), {
      kind: 'rateLimit',
      httpStatus: 429,
      message: 'Rate limit reached for requests',
      transient: true,
    });
    assert.equal(detectProviderFailureText('API call failed after 3 retries: HTTP 500: boom')?.kind, 'server');
    assert.equal(detectProviderFailureText('HTTP 401: Incorrect API key provided')?.transient, false);
    assert.equal(detectProviderFailureText('Here is how HTTP 429 works'), undefined);
  });

  test('classifies JSON-RPC errors by data, message or code', () => {
    assert.equal(classifyRpcFailure({ code: -32603, message: 'Internal error', data: { httpStatus: 429, message: 'Rate limit reached' } })?.kind, 'rateLimit');
    assert.equal(classifyRpcFailure({ code: 429, message: 'Too many requests' })?.kind, 'rateLimit');
    assert.equal(classifyRpcFailure({ code: -32603, message: 'Internal error', data: { message: 'upstream overloaded' } })?.kind, 'overloaded');
    assert.equal(classifyRpcFailure({ code: -32603, message: 'Internal error', data: { details: 'quota exceeded' } })?.kind, 'billing');
    assert.equal(classifyRpcFailure({ code: -32603, message: 'Internal error', data: { details: 'bad prompt' } }), undefined);
  });
});
