import * as assert from 'node:assert/strict';
import { consentKey } from '../../../src/permissions/consentKey';

suite('untrusted-workspace consent key', () => {
  const hermes = { name: 'Hermes', command: '/usr/bin/hermes', args: ['acp'], env: { A: '1', B: '2' } };

  test('the same command, arguments and environment (in any order) is the same agent, whatever its name', () => {
    assert.equal(consentKey(hermes), consentKey({ ...hermes, name: 'Renamed', env: { B: '2', A: '1' } }));
    assert.match(consentKey(hermes), /^[0-9a-f]{64}$/);
  });

  test('a changed command, argument or environment under the same name is another agent', () => {
    const others = [
      { ...hermes, command: '/tmp/evil' },
      { ...hermes, args: ['acp', '--yolo'] },
      { ...hermes, args: ['ac', 'p'] },
      { ...hermes, env: { A: '1', B: '2', LD_PRELOAD: '/tmp/x.so' } },
      { ...hermes, env: { A: '1', B: '3' } },
    ];
    const keys = new Set([consentKey(hermes), ...others.map(consentKey)]);
    assert.equal(keys.size, others.length + 1);
  });
});
