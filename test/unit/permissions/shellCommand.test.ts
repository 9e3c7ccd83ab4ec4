import * as assert from 'node:assert/strict';
import parse from 'shell-quote/parse';
import { analyzeArgv, analyzeCommandText } from '../../../src/permissions/shellCommand';
import { splitShellLines } from '../../../src/permissions/shellLines';

/**
 * shell-quote as the policy uses it, and the guards for what it gets wrong. The first suite pins
 * the library's own behaviour (an upgrade that changes it fails here, not silently in the policy).
 */
suite('shell-quote: how it represents shell syntax', () => {
  const env = (name: string): { expansion: string } => ({ expansion: name });
  const cases: [string, unknown[]][] = [
    ['ls -la; rm x', ['ls', '-la', { op: ';' }, 'rm', 'x']],
    ['a && b || c & d | e |& f', ['a', { op: '&&' }, 'b', { op: '||' }, 'c', { op: '&' }, 'd', { op: '|' }, 'e', { op: '|&' }, 'f']],
    ['ls $(rm x)', ['ls', { expansion: '' }, { op: '(' }, 'rm', 'x', { op: ')' }]],
    ['ls "$(rm)"', ['ls', { expansion: '' }, '(rm)']],
    ["ls '$(rm)'", ['ls', '$(rm)']],
    ['ls `rm`', ['ls', '`rm`']],
    ['ls $HOME ${X}', ['ls', { expansion: 'HOME' }, { expansion: 'X' }]],
    ['cat <(rm) >(tee)', ['cat', { op: '<(' }, 'rm', { op: ')' }, { op: '>(' }, 'tee', { op: ')' }]],
    ['ls 2>/dev/null >out <in >>log &>all', ['ls', '2', { op: '>' }, '/dev/null', { op: '>' }, 'out', { op: '<' }, 'in', { op: '>>' }, 'log', { op: '&>' }, 'all']],
    ['cat <<EOF', ['cat', { op: '<<' }, 'EOF']],
    ['ls *.txt', ['ls', { op: 'glob', pattern: '*.txt' }]],
    ['ls # c; rm', ['ls', { comment: ' c; rm' }]],
    // Gaps the policy guards:
    ['ls\nrm -rf ~', ['ls', 'rm', '-rf', '~']], // a newline is plain whitespace
    ['ls "abc', ['ls', 'abc']], // an unterminated quote is dropped
    ['echo a#b; rm', ['echo', 'a', { comment: 'b; rm' }]], // `#` inside a word starts a "comment"
  ];
  for (const [text, tokens] of cases) {
    test(JSON.stringify(text), () => assert.deepEqual(parse(text, env), tokens));
  }
  test('a nested ${…$(…)} throws', () => assert.throws(() => parse('ls ${x:-$(rm)}', env), /Bad substitution/));
});

suite('the guards around shell-quote', () => {
  test('unquoted newlines split commands; quoted ones and continuations do not', () => {
    assert.deepEqual(splitShellLines('ls\nrm -rf ~'), { lines: ['ls', 'rm -rf ~'] });
    assert.deepEqual(splitShellLines("echo 'a\nb'\nls"), { lines: ["echo 'a\nb'", 'ls'] });
    assert.deepEqual(splitShellLines('echo "a\nb"'), { lines: ['echo "a\nb"'] });
    assert.deepEqual(splitShellLines('ls \\\n-la'), { lines: ['ls -la'] });
    assert.deepEqual(splitShellLines("ls # it's a comment\nrm"), { lines: ["ls # it's a comment", 'rm'] });
    assert.deepEqual(splitShellLines("echo $'a\\'b'\nls"), { lines: ["echo $'a\\'b'", 'ls'] });
  });

  test('unterminated quotes and trailing backslashes are problems', () => {
    assert.ok('problem' in splitShellLines('ls "abc'));
    assert.ok('problem' in splitShellLines("ls 'abc"));
    assert.ok('problem' in splitShellLines('ls \\'));
  });

  test('simple commands, their blockers and redirect targets', () => {
    const r = analyzeCommandText('ls -la 2>/dev/null | grep x > out.txt; cat < in.txt && echo $(id)');
    assert.deepEqual(
      r.commands.map((c) => c.argv),
      [['ls', '-la', '2'], ['grep', 'x'], ['cat'], ['echo', '$'], ['id']],
    );
    assert.deepEqual(r.writes, ['out.txt']);
    assert.deepEqual(r.reads, ['in.txt']);
    assert.deepEqual(r.commands[0]?.blockers, []);
    assert.match(r.commands[1]?.blockers.join() ?? '', /output redirected to out.txt/);
    assert.match(r.commands[3]?.blockers.join() ?? '', /command substitution/);
  });

  test('bash -c scripts are judged themselves, also inside argv', () => {
    assert.deepEqual(analyzeCommandText('bash -lc "ls; id"').commands.map((c) => c.argv), [['ls'], ['id']]);
    assert.deepEqual(analyzeArgv(['/bin/bash', '-lc', 'ls -la']).commands.map((c) => c.argv), [['ls', '-la']]);
    assert.deepEqual(analyzeArgv(['rm', '-rf', 'x; y']).commands.map((c) => c.argv), [['rm', '-rf', 'x; y']], 'argv words are literal');
    assert.match(analyzeCommandText('ls | bash -c "cat"').commands[1]?.blockers.join() ?? '', /pipe into bash/);
  });

  test('interpreters with inline code, eval and wrappers', () => {
    const blockers = (t: string): string => analyzeCommandText(t).commands.flatMap((c) => c.blockers).join('; ');
    assert.match(blockers('python3.12 -c x'), /inline python code/);
    assert.match(blockers('env FOO=1 node -e x'), /inline node code/);
    assert.match(blockers('sudo -u root eval x'), /runs text as code/);
    assert.match(blockers('ls | timeout 5 sh'), /pipe into sh/);
    assert.match(blockers('ls | /c/Python312/python.exe'), /pipe into python/);
    assert.equal(blockers('python3 script.py'), '');
    assert.equal(blockers('node build.js --watch'), '');
  });

  test('control characters and unusual whitespace are problems', () => {
    for (const t of ['ls\r\nrm', 'ls\u00a0-la', 'ls\u2028rm', 'ls\u0000']) {
      assert.ok(analyzeCommandText(t).problems.length > 0, JSON.stringify(t));
    }
  });
});
