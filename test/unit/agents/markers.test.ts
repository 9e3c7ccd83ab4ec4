import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { readFixture, splitSegments } from '../../agents/fixtureFile';
import { intArg, parseMarkers } from '../../agents/markers';
import { memberSpans, replaceMember } from '../../agents/rawJson';
import { fixturePath } from './agentHarness';

function args(text: string): Record<string, string>[] {
  return parseMarkers(text).map((m) => Object.fromEntries([['name', m.name], ...m.args]));
}

suite('scripted agent markers', () => {
  test('finds markers in order and ignores unknown bracketed text', () => {
    assert.deepEqual(args('see [1] then [plain] and [x y] [slow n=3 ms=10] [tools]'), [
      { name: 'plain' },
      { name: 'slow', n: '3', ms: '10' },
      { name: 'tools' },
    ]);
  });

  test('a value runs until the next known key, so commands may contain spaces and =', () => {
    assert.deepEqual(args('[command cmd=echo a=b && ls -la]'), [{ name: 'command', cmd: 'echo a=b && ls -la' }]);
    assert.deepEqual(args('[edit path=dir/my file.txt text=hello world complete=yes]'), [
      { name: 'edit', path: 'dir/my file.txt', text: 'hello world', complete: 'yes' },
    ]);
  });

  test('quoted values may hold ] and known keys; \\n and \\t are unescaped', () => {
    assert.deepEqual(args('[edit text="a ] path=b" path=x.txt]'), [{ name: 'edit', text: 'a ] path=b', path: 'x.txt' }]);
    assert.deepEqual(args('[write text=line1\\nline2\\t!]'), [{ name: 'write', text: 'line1\nline2\t!' }]);
  });

  test('unknown keys are reported and malformed numbers fall back to defaults', () => {
    const [m] = parseMarkers('[slow speed=9 n=abc]');
    assert.ok(m !== undefined);
    assert.deepEqual(m.unknownKeys, ['speed']);
    assert.equal(intArg(m, 'n', 20), 20);
  });

  test('an unterminated marker is plain text', () => {
    assert.deepEqual(parseMarkers('[plain and no closing bracket'), []);
  });
});

suite('replay agent fixture reading', () => {
  test('cuts raw messages out of fixture lines and replaces ids in place', () => {
    const raw = '{"jsonrpc": "2.0", "id": 12, "result": {"text": "a \\"q\\" }"}}';
    assert.deepEqual([...memberSpans(raw).keys()], ['jsonrpc', 'id', 'result']);
    assert.equal(replaceMember(raw, 'id', '"live-1"'), '{"jsonrpc": "2.0", "id": "live-1", "result": {"text": "a \\"q\\" }"}}');
  });

  test('reads both fixture formats and keeps the recorded bytes', () => {
    const hermes = readFixture(fixturePath('hermes', 'main.jsonl'));
    const first = hermes.find((e) => e.type === 'frame');
    assert.ok(first?.type === 'frame');
    assert.equal(first.method, 'initialize');
    assert.ok(readFileSync(fixturePath('hermes', 'main.jsonl'), 'utf8').includes(first.raw));
    assert.ok(first.raw.startsWith('{"jsonrpc": "2.0", "id": 1,'));
    const codex = readFixture(fixturePath('agents', 'codex-main.jsonl'));
    const permission = codex.find((e) => e.type === 'frame' && e.method === 'session/request_permission');
    assert.ok(permission?.type === 'frame' && typeof permission.id === 'string', 'codex uses string request ids');
  });

  test('splits multi-process recordings at spawned/exited notes', () => {
    assert.equal(splitSegments(readFixture(fixturePath('agents', 'claude-main.jsonl'))).length, 2);
    assert.equal(splitSegments(readFixture(fixturePath('agents', 'codex-main.jsonl'))).length, 2);
    assert.equal(splitSegments(readFixture(fixturePath('agents', 'sdk-example-agent.jsonl'))).length, 1);
    assert.equal(splitSegments(readFixture(fixturePath('hermes', 'load.jsonl'))).length, 1);
  });
});
