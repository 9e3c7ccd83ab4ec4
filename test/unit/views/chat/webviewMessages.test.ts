import * as assert from 'node:assert/strict';
import { describeMalformed, parseWebviewMessage } from '../../../../src/views/chat/webviewMessages';

suite('webview messages: what the host refuses, and what it logs of it', () => {
  test('a malformed secret answer is refused and logged without its value; its benign twin is parsed', () => {
    const malformed = { type: 'question/secret', requestId: 7, value: 's3cr3t' };
    assert.equal(parseWebviewMessage(malformed), undefined);
    const logged = describeMalformed(malformed);
    assert.ok(!logged.includes('s3cr3t'), logged);
    assert.equal(logged, '{"type":"question/secret", …redacted}');
    const wellFormed = { type: 'question/secret', requestId: 'q7', value: 's3cr3t' };
    assert.deepEqual(parseWebviewMessage(wellFormed), wellFormed);
  });

  test('other refused messages are logged by their first 200 characters; what cannot be serialized says so', () => {
    const long = { type: 'nonsense', text: 'x'.repeat(1_000) };
    assert.equal(parseWebviewMessage(long), undefined);
    assert.equal(describeMalformed(long).length, 200);
    const cyclic: Record<string, unknown> = { type: 'nonsense' };
    cyclic.self = cyclic;
    assert.equal(describeMalformed(cyclic), '(unserializable)');
  });
});
