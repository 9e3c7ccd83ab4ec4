/** The SSE parser against the framing rules (WHATWG HTML §9.2.6) and the way Hermes frames its streams. */
import * as assert from 'node:assert/strict';
import { SseParser, type SseEvent } from '../../../src/transports/apiServer/sse';

function parse(chunks: readonly string[]): SseEvent[] {
  const out: SseEvent[] = [];
  const p = new SseParser((e) => out.push(e));
  for (const c of chunks) {
    p.push(c);
  }
  p.end();
  return out;
}

const stream = [
  ': keepalive\n\n',
  'data: {"choices":[{"delta":{"content":"Hi"}}]}\n\n',
  'event: hermes.tool.progress\ndata: {"tool":"terminal","toolCallId":"c1","status":"running"}\n\n',
  'data: line one\ndata:line two\n\n',
  'data: [DONE]\n\n',
].join('');

const expected: SseEvent[] = [
  { event: undefined, data: '{"choices":[{"delta":{"content":"Hi"}}]}' },
  { event: 'hermes.tool.progress', data: '{"tool":"terminal","toolCallId":"c1","status":"running"}' },
  { event: undefined, data: 'line one\nline two' },
  { event: undefined, data: '[DONE]' },
];

suite('transports / SSE parser', () => {
  test('named events, comments, multi-line data and [DONE]', () => {
    assert.deepEqual(parse([stream]), expected);
  });

  test('the same events whatever the chunking, one character at a time included', () => {
    for (const size of [1, 2, 3, 7, 64]) {
      const chunks: string[] = [];
      for (let i = 0; i < stream.length; i += size) {
        chunks.push(stream.slice(i, i + size));
      }
      assert.deepEqual(parse(chunks), expected, `chunks of ${size}`);
    }
  });

  test('CRLF and lone CR line ends, even split between chunks', () => {
    const crlf = stream.replace(/\n/g, '\r\n');
    assert.deepEqual(parse([crlf]), expected);
    const cut = crlf.indexOf('\r\n') + 1;
    assert.deepEqual(parse([crlf.slice(0, cut), crlf.slice(cut)]), expected);
    assert.deepEqual(parse([stream.replace(/\n/g, '\r')]), expected);
  });

  test('an event without its closing blank line is dropped at the end of the stream', () => {
    assert.deepEqual(parse(['data: whole\n\ndata: half']), [{ event: undefined, data: 'whole' }]);
  });
});
