import * as assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import { quirksFor } from '../../../src/session/agentQuirks';
import { SessionController } from '../../../src/session/sessionController';

const request: acp.RequestPermissionRequest = {
  sessionId: 's',
  toolCall: { toolCallId: 'tc-1', title: 'Edit a.ts', kind: 'edit' },
  options: [
    { optionId: 'allow', name: 'Allow', kind: 'allow_once' },
    { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
  ],
};

function controller(decide?: string): SessionController {
  let ids = 0;
  return new SessionController({
    cwd: '/w',
    quirks: quirksFor(undefined),
    now: () => 0,
    newId: () => `e${++ids}`,
    ...(decide !== undefined ? { permissions: { decide: () => ({ optionId: decide, rule: 'test rule' }) } } : {}),
  });
}

/** Holds every permission answer until `release` is called, as the Changes view does while it snapshots. */
function holdAnswers(c: SessionController): { release: () => void } {
  let release = (): void => undefined;
  const held = new Promise<void>((resolve) => (release = resolve));
  c.onDidChange(({ action }) => {
    if (action.type === 'permissionRequested') {
      c.holdAnswer(action.requestId, held);
    }
  });
  return { release: () => release() };
}

suite('permission answers held for work that must come first', () => {
  test('a rule allows at once: the answer is recorded, and reaches the agent only after the hold', async () => {
    const c = controller('allow');
    const hold = holdAnswers(c);
    let answered: acp.RequestPermissionResponse | undefined;
    const response = c.requestPermission(request).then((r) => (answered = r));
    await new Promise((r) => setImmediate(r));
    assert.equal(answered, undefined, 'held');
    const tool = c.state.entries.find((e) => e.kind === 'tool');
    assert.equal(tool?.kind === 'tool' ? tool.permission?.optionId : undefined, 'allow', 'recorded at once');
    hold.release();
    await response;
    assert.deepEqual(answered, { outcome: { outcome: 'selected', optionId: 'allow' } });
  });

  test('a cancel is never held (nothing will be written)', async () => {
    const c = controller();
    holdAnswers(c);
    const response = c.requestPermission(request);
    c.cancelPendingPermissions('test');
    assert.deepEqual(await response, { outcome: { outcome: 'cancelled' } });
  });

  test('a hold that fails still lets the answer through', async () => {
    const c = controller('deny');
    c.onDidChange(({ action }) => {
      if (action.type === 'permissionRequested') {
        c.holdAnswer(action.requestId, Promise.reject(new Error('disk gone')));
      }
    });
    assert.deepEqual(await c.requestPermission(request), { outcome: { outcome: 'selected', optionId: 'deny' } });
  });
});
