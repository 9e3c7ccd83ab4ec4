import * as assert from 'node:assert/strict';
import { decodeLine, LineReader } from '../../../src/wire/lineReader';

function collect(max: number): { reader: LineReader; lines: string[]; oversized: [number, string][] } {
  const lines: string[] = [];
  const oversized: [number, string][] = [];
  const reader = new LineReader(
    {
      line: (b) => lines.push(Buffer.from(b).toString('utf8')),
      oversized: (n, prefix) => oversized.push([n, Buffer.from(prefix).toString('utf8')]),
    },
    max,
  );
  return { reader, lines, oversized };
}

suite('line reader', () => {
  test('splits lines across and within chunks', () => {
    const { reader, lines } = collect(1024);
    reader.push(Buffer.from('{"a":1}\n{"b"'));
    reader.push(Buffer.from(':2}\n\n{"c":3}'));
    reader.end();
    assert.deepEqual(lines, ['{"a":1}', '{"b":2}', '{"c":3}']);
  });

  test('skips an oversized line with bounded memory and keeps reading', () => {
    const { reader, lines, oversized } = collect(100);
    reader.push(Buffer.from('x'.repeat(60)));
    for (let i = 0; i < 1000; i++) {
      reader.push(Buffer.from('y'.repeat(1000)));
    }
    reader.push(Buffer.from('\n{"ok":true}\n'));
    assert.deepEqual(lines, ['{"ok":true}']);
    assert.equal(oversized.length, 1);
    assert.equal(oversized[0]?.[0], 60 + 1000 * 1000);
    assert.ok(oversized[0]?.[1].startsWith('xxxx'));
  });

  test('reports an oversized line that arrives in one chunk', () => {
    const { reader, lines, oversized } = collect(10);
    reader.push(Buffer.from(`${'z'.repeat(50)}\n{"a":1}\n`));
    assert.deepEqual(lines, ['{"a":1}']);
    assert.equal(oversized[0]?.[0], 50);
  });

  test('decodes invalid UTF-8 leniently and says so', () => {
    const bad = Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]);
    const r = decodeLine(bad);
    assert.equal(r.invalidUtf8, true);
    assert.ok(r.text.includes('\ufffd'));
    assert.equal(decodeLine(Buffer.from('{"é":1}')).invalidUtf8, false);
  });
});
