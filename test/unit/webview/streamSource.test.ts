import * as assert from 'node:assert/strict';
import { StreamSource } from '../../../src/webview/markdown/streamSource';

suite('webview: the text of a streaming Markdown view', () => {
  test('line endings are normalized across chunks, a CRLF split between two chunks included', () => {
    const s = new StreamSource();
    for (const chunk of ['a\r', '\nb\r\r', '\nc\rd', '', '\r\n']) {
      s.append(chunk);
    }
    assert.equal(s.open, 'a\nb\n\nc\nd\n');
    assert.equal(s.length, 9);
  });

  test('what finished blocks took is dropped from the open text; the length still counts it', () => {
    const s = new StreamSource();
    s.append('# Title\n\nFirst paragraph.\n\nOpen');
    s.drop('# Title\n\nFirst paragraph.\n\n'.length);
    assert.equal(s.open, 'Open');
    assert.equal(s.dropped, 27);
    s.append(' tail');
    assert.equal(s.open, 'Open tail');
    assert.equal(s.length, 36);
    s.clear();
    assert.deepEqual([s.open, s.dropped, s.length], ['', 0, 0]);
  });

  test('a CR at the end of a chunk is forgotten by clear(): the next text starts afresh', () => {
    const s = new StreamSource();
    s.append('x\r');
    s.clear();
    s.append('\ny');
    assert.equal(s.open, '\ny');
  });
});
