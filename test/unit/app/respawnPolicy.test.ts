import * as assert from 'node:assert/strict';
import { RespawnPolicy } from '../../../src/app/respawnPolicy';

suite('crash recovery pace (RespawnPolicy)', () => {
  test('restarts after 1 s, 4 s, 15 s; a fourth exit within 5 minutes is left to the user', () => {
    const policy = new RespawnPolicy<string>();
    assert.deepEqual([0, 2_000, 10_000, 30_000].map((t) => policy.next('hermes', t)), [1000, 4000, 15_000, undefined]);
  });

  test('exits older than the window no longer count; agents are counted apart', () => {
    const policy = new RespawnPolicy<string>();
    for (const t of [0, 1_000, 2_000]) {
      policy.next('hermes', t);
    }
    assert.equal(policy.next('claude', 3_000), 1000, 'another agent starts its own count');
    assert.equal(policy.next('hermes', 5 * 60_000 + 500), 15_000, 'the exit at 0 s fell out of the window; the two after it still count');
    assert.equal(policy.next('hermes', 5 * 60_000 + 600), undefined);
  });
});
