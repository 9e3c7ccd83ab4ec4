import type * as acp from '@agentclientprotocol/sdk';
import * as assert from 'node:assert/strict';
import { compileCommandPattern, matchesPattern } from '../../../src/permissions/commandPattern';
import { PermissionPolicy } from '../../../src/permissions/policy';
import { checkOf, rulesToRemember, verdictOf } from '../../../src/permissions/remember';
import { describeRule, literalGlob, parseRules, pathGlob } from '../../../src/permissions/rules';
import type { PermissionRule } from '../../../src/permissions/types';
import { commandOptions, editOptions, hermesCommand, hermesWrite } from './corpusShapes';
import { semanticsOf, simulatedPlaces, treeFor } from './corpus';
import { FakeFs } from './fakeFs';

const places = simulatedPlaces.posix;
function policy(rules: readonly PermissionRule[]): PermissionPolicy {
  return new PermissionPolicy(rules, { cwd: places.WS, roots: [places.WS], home: places.HOME, semantics: semanticsOf.posix, fs: new FakeFs(semanticsOf.posix, treeFor(places)) });
}
function command(text: string): acp.RequestPermissionRequest {
  return { sessionId: 's', toolCall: { toolCallId: 't', ...hermesCommand(text) }, options: commandOptions };
}
function write(p: string): acp.RequestPermissionRequest {
  return { sessionId: 's', toolCall: { toolCallId: 't', ...hermesWrite(p) }, options: editOptions };
}

suite('permission rules', () => {
  test('command patterns: words one to one, a last * for any further words, one glob per word', () => {
    const m = (pattern: string, argv: string[]): boolean => {
      const p = compileCommandPattern(pattern);
      assert.ok(typeof p !== 'string', p as string);
      return matchesPattern(p, argv);
    };
    assert.equal(m('npm test', ['npm', 'test']), true);
    assert.equal(m('npm test', ['npm', 'test', '--watch']), false);
    assert.equal(m('npm test *', ['npm', 'test']), true);
    assert.equal(m('npm test *', ['npm', 'test', '--', '--grep', 'x']), true);
    assert.equal(m('npm run test:*', ['npm', 'run', 'test:unit']), true);
    assert.equal(m('npm run test:*', ['npm', 'run', 'test:unit', 'x']), false);
    assert.equal(m('cat src/*', ['cat', 'src/a/b.ts']), false, '* does not cross /');
    assert.equal(m('rm *.log', ['rm', '*.log']), true, 'the same unexpanded glob text');
    assert.equal(m('rm *.log', ['rm', '*']), false, 'an unexpanded glob only matches the same text');
    assert.equal(m('/^git (status|diff)/', ['git', 'diff', '--stat']), true, '/regex/ over one simple command');
  });

  test('invalid rules are reported and left out', () => {
    const { rules, problems } = parseRules([
      { effect: 'maybe' },
      { kind: 'teleport', effect: 'allow' },
      { command: 'ls; rm', effect: 'allow' },
      { command: 'echo $HOME', effect: 'allow' },
      { command: '/(/', effect: 'reject' },
      { path: '/etc/**', effect: 'allow' },
      { path: 'src/../**', effect: 'allow' },
      { argv: ['ls', 3], effect: 'allow' },
      { argv: ['ls', '-la'], argvPrefix: true, effect: 'allow' },
    ]);
    assert.equal(problems.length, 8, problems.join('\n'));
    assert.deepEqual(rules, [{ effect: 'allow', argv: ['ls', '-la'], argvPrefix: true }], 'an unknown kind drops the rule rather than widening it');
  });

  test('path globs: dot files match, case follows the file system, literal globs escape', () => {
    assert.equal(pathGlob('src/**', false)('src/.eslintrc'), true);
    assert.equal(pathGlob('src/**', false)('SRC/a.ts'), false);
    assert.equal(pathGlob('src/**', true)('SRC/a.ts'), true);
    assert.equal(pathGlob('./src/*.ts', false)('src/a.ts'), true);
    const weird = 'src/[a]{b,c}*?.ts';
    assert.equal(pathGlob(literalGlob(weird), false)(weird), true);
    assert.equal(pathGlob(literalGlob(weird), false)('src/ab.ts'), false);
  });

  test('reject and ask rules win over allow rules whatever their order', () => {
    const p = policy([
      { effect: 'allow', description: 'everything' },
      { command: 'git push *', effect: 'reject', description: 'never push' },
    ]);
    assert.deepEqual(verdictOf(p.evaluate(command('git push origin main'))), {
      optionId: 'deny',
      rule: 'never push',
      check: { targets: ['run git push origin main'], decision: 'rule: never push', argv: ['git', 'push', 'origin', 'main'] },
    });
    assert.equal(p.evaluate(command('git status')).effect, 'allow');
  });

  test('different allow rules may cover different simple commands; the card names them all', () => {
    const p = policy([
      { command: 'ls *', effect: 'allow', description: 'ls' },
      { command: 'grep *', effect: 'allow', description: 'grep' },
    ]);
    const d = p.evaluate(command('ls | grep x'));
    assert.equal(d.effect, 'allow');
    assert.equal(d.effect === 'allow' ? d.rule : '', 'ls; grep');
    assert.equal(p.evaluate(command('ls | wc -l')).effect, 'ask');
  });

  test('an allow rule without an offered allow option asks', () => {
    const d = policy([{ effect: 'allow' }]).evaluate({ ...command('ls'), options: [{ optionId: 'no', name: 'No', kind: 'reject_once' }] });
    assert.equal(d.effect, 'ask');
  });

  test('describeRule', () => {
    assert.equal(describeRule({ effect: 'allow', kind: ['execute'], argv: ['git', 'commit'], argvPrefix: true, scope: 'session' }), 'allow execute command git commit … (session)');
    assert.equal(describeRule({ effect: 'reject', path: 'secrets/**' }), 'reject path secrets/**');
  });
});

suite('"always" memory', () => {
  const always: acp.PermissionOption = { optionId: 'allow_always', name: 'Allow always', kind: 'allow_always' };

  test('stores the exact argv, which does not cover the command with more chained to it', () => {
    const p = policy([]);
    const memory = rulesToRemember(p.analyze(command('ls -la').toolCall), always, 'session');
    assert.ok('rules' in memory);
    assert.deepEqual(
      memory.rules.map((r) => ({ effect: r.effect, argv: r.argv, prefix: r.argvPrefix })),
      [{ effect: 'allow', argv: ['ls', '-la'], prefix: undefined }],
    );
    p.setRules(memory.rules);
    assert.equal(p.evaluate(command('ls -la')).effect, 'allow');
    for (const other of ['ls -la; rm -rf ~', 'ls -la && curl x | sh', 'ls -la\nrm -rf ~', 'ls -la $(rm -rf ~)', 'ls -la /', 'ls']) {
      assert.equal(p.evaluate(command(other)).effect, 'ask', other);
    }
  });

  test('a prefix picked on the card covers that prefix with any arguments', () => {
    const p = policy([]);
    const memory = rulesToRemember(p.analyze(command('git commit -m "x y"').toolCall), always, 'workspace', 2);
    assert.ok('rules' in memory);
    assert.deepEqual(memory.rules[0]?.argv, ['git', 'commit']);
    assert.equal(memory.rules[0]?.argvPrefix, true);
    assert.match(memory.rules[0]?.description ?? '', /git commit …/);
    p.setRules(parseRules(memory.rules).rules);
    assert.equal(p.evaluate(command('git commit --amend')).effect, 'allow');
    assert.equal(p.evaluate(command('git push')).effect, 'ask');
    assert.equal(p.evaluate(command('git commit; rm -rf ~')).effect, 'ask');
  });

  test('compound commands remember each simple command exactly; nothing is remembered for what no rule may allow', () => {
    const p = policy([]);
    const both = rulesToRemember(p.analyze(command('npm ci && npm test').toolCall), always, 'session', 1);
    assert.ok('rules' in both);
    assert.deepEqual(both.rules.map((r) => [r.argv, r.argvPrefix]), [[['npm', 'ci'], undefined], [['npm', 'test'], undefined]], 'no prefix for several commands');
    for (const blocked of ['ls $(id)', 'curl x | sh', 'cat .env', 'ls > out.txt']) {
      const m = rulesToRemember(p.analyze(command(blocked).toolCall), always, 'session');
      assert.ok('notRemembered' in m, blocked);
    }
  });

  test('files are remembered as exact paths; the card offers the argv of single commands only', () => {
    const p = policy([]);
    const m = rulesToRemember(p.analyze(write('src/[x].ts').toolCall), { optionId: 'a', name: 'Always', kind: 'allow_always' }, 'session');
    assert.ok('rules' in m);
    assert.equal(m.rules[0]?.path, 'src/\\[x\\].ts');
    p.setRules(m.rules);
    assert.equal(p.evaluate(write('src/[x].ts')).effect, 'allow');
    assert.equal(p.evaluate(write('src/x.ts')).effect, 'ask');
    assert.deepEqual(checkOf(p.analyze(command('ls -la').toolCall), 'x').argv, ['ls', '-la']);
    assert.equal(checkOf(p.analyze(command('ls; pwd').toolCall), 'x').argv, undefined);
    assert.equal(checkOf(p.analyze(command('ls $(id)').toolCall), 'x').argv, undefined);
  });
});
