import * as assert from 'node:assert/strict';
import { classifyRpcFailure, detectProviderFailureText } from '../../../src/session/providerErrors';

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
    // Claude Agent ACP 0.23.1 after a 500 (real-agents rig): the status after "API Error:", then the body.
    const claude = classifyRpcFailure({ code: -32603, message: 'Internal error: API Error: 500 {"type":"error","error":{"type":"api_error","message":"The scripted model server failed (scripted)."}}' });
    assert.deepEqual([claude?.kind, claude?.httpStatus, claude?.transient], ['server', 500, true]);
    assert.equal(classifyRpcFailure({ code: -32603, message: 'Internal error: API Error: the tool input was invalid' }), undefined);
  });
});
