import * as assert from 'node:assert/strict';
import { completePrefixLength, leadingContinuationBytes, TerminalOutputBuffer } from '../../../src/acp/terminalOutput';

/** The longest suffix of `bytes` within `limit` that starts on a character boundary. */
function expectedTail(full: Buffer, limit: number): string {
  if (full.length <= limit) {
    return full.toString('utf8');
  }
  let tail = full.subarray(full.length - limit);
  tail = tail.subarray(leadingContinuationBytes(tail));
  return tail.toString('utf8');
}

/** A deterministic pseudo-random generator (tests must not flake). */
function lcg(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

suite('TerminalOutputBuffer (ACP outputByteLimit)', () => {
  test('keeps everything under the limit, not truncated', () => {
    const b = new TerminalOutputBuffer(100);
    b.append(Buffer.from('hello '));
    b.append(Buffer.from('world'));
    assert.equal(b.text(true), 'hello world');
    assert.equal(b.truncated, false);
    assert.equal(b.byteLength, 11);
  });

  test('exactly at the limit is not truncated', () => {
    const b = new TerminalOutputBuffer(5);
    b.append(Buffer.from('ab'));
    b.append(Buffer.from('cde'));
    assert.equal(b.text(true), 'abcde');
    assert.equal(b.truncated, false);
  });

  test('keeps the tail and cuts a 3-byte character the limit would split', () => {
    // "€" is E2 82 AC. 10 of them = 30 bytes; a limit of 10 keeps AC + 3 whole characters.
    const b = new TerminalOutputBuffer(10);
    b.append(Buffer.from('€'.repeat(10)));
    assert.equal(b.text(true), '€€€');
    assert.equal(b.truncated, true);
    assert.ok(!b.text(true).includes('\uFFFD'));
  });

  test('cuts at a boundary for 2- and 4-byte characters too', () => {
    for (const [ch, limit, expected] of [
      ['é', 5, 'éé'], // C3 A9: 5 bytes = A9 + 2 characters
      ['😀', 6, '😀'], // F0 9F 98 80: the last 6 bytes are 98 80 + one whole emoji
      ['😀', 3, ''], // less than one character: nothing whole is left
    ] as const) {
      const b = new TerminalOutputBuffer(limit);
      b.append(Buffer.from(ch.repeat(4)));
      assert.equal(b.text(true), expected, `${ch} limit ${limit}`);
      assert.equal(b.truncated, true);
    }
  });

  test('limit 0 keeps nothing and reports truncation once output arrived', () => {
    const b = new TerminalOutputBuffer(0);
    assert.equal(b.truncated, false);
    b.append(Buffer.from('x'));
    assert.equal(b.text(true), '');
    assert.equal(b.truncated, true);
  });

  test('while running, holds back a character whose bytes have not all arrived', () => {
    const b = new TerminalOutputBuffer(100);
    const euro = Buffer.from('a€');
    b.append(euro.subarray(0, 2)); // "a" + E2
    assert.equal(b.text(false), 'a');
    b.append(euro.subarray(2, 3)); // + 82
    assert.equal(b.text(false), 'a');
    b.append(euro.subarray(3)); // + AC
    assert.equal(b.text(false), 'a€');
    // After exit a dangling partial character is shown as the decoder sees it.
    const c = new TerminalOutputBuffer(100);
    c.append(Buffer.from([0x61, 0xe2, 0x82]));
    assert.equal(c.text(true), 'a\uFFFD');
  });

  test('matches a reference for random chunkings, limits and character widths', () => {
    const rand = lcg(42);
    const alphabet = ['a', 'é', '€', '😀', '\n'];
    for (let round = 0; round < 200; round++) {
      let text = '';
      const n = Math.floor(rand() * 300);
      for (let i = 0; i < n; i++) {
        text += alphabet[Math.floor(rand() * alphabet.length)] ?? 'a';
      }
      const full = Buffer.from(text);
      const limit = Math.floor(rand() * 64);
      const b = new TerminalOutputBuffer(limit);
      let at = 0;
      while (at < full.length) {
        // Mostly tiny chunks (byte by byte splits characters), sometimes bigger than the limit.
        const size = rand() < 0.7 ? 1 + Math.floor(rand() * 4) : 1 + Math.floor(rand() * 100);
        b.append(full.subarray(at, at + size));
        at += size;
        const shown = b.text(false);
        assert.ok(!shown.includes('\uFFFD'), `no replacement character while streaming (round ${round})`);
        assert.ok(Buffer.byteLength(shown) <= limit, 'never more than the limit');
        const prefix = full.subarray(0, Math.min(at, full.length));
        const streamed = expectedTail(prefix, limit);
        // The reference decodes a partial last character as U+FFFD; streaming holds it back instead.
        assert.equal(shown, streamed.replace(/\uFFFD$/, ''), `streamed tail, round ${round}`);
      }
      assert.equal(b.text(true), expectedTail(full, limit), `round ${round}, limit ${limit}`);
      assert.equal(b.truncated, full.length > limit, `truncated flag, round ${round}`);
    }
  });

  test('many tiny chunks stay linear (a megabyte byte by byte)', () => {
    const b = new TerminalOutputBuffer(64 * 1024);
    const one = Buffer.from('x');
    const started = Date.now();
    for (let i = 0; i < 1024 * 1024; i++) {
      b.append(one);
    }
    assert.ok(Date.now() - started < 5000, `took ${Date.now() - started} ms`);
    assert.equal(b.byteLength, 64 * 1024);
    assert.equal(b.truncated, true);
  });

  test('UTF-8 helpers', () => {
    assert.equal(leadingContinuationBytes(Buffer.from([0x82, 0xac, 0x61])), 2);
    assert.equal(leadingContinuationBytes(Buffer.from([0x80, 0x80, 0x80, 0x80])), 3, 'at most 3: more is invalid input, not a cut');
    assert.equal(completePrefixLength(Buffer.from('ab')), 2);
    assert.equal(completePrefixLength(Buffer.from([0x61, 0xf0, 0x9f, 0x98])), 1);
    assert.equal(completePrefixLength(Buffer.from([0x61, 0xf0, 0x9f, 0x98, 0x80])), 5);
    assert.equal(completePrefixLength(Buffer.from([])), 0);
  });
});
