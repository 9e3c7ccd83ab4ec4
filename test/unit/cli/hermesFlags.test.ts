import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import { parseCommandLine } from '../../../src/cli/args';

const noStdin = (): string => {
  throw new Error('stdin not expected');
};

suite('hermes-acp-run: Hermes\' isolation flags', () => {
  const cwd = fs.realpathSync(os.tmpdir());
  const parse = (argv: readonly string[]): ReturnType<typeof parseCommandLine> => parseCommandLine(['-q', 'hi', ...argv], cwd, noStdin);

  test('over ACP they go before the acp subcommand (Hermes 0.19 refuses them after it), with the default and a spelled-out Hermes', () => {
    const all = ['--ignore-user-config', '--ignore-rules', '--pass-session-id', '--skills', 'review, tests', '--safe-mode'];
    const a = parse(all);
    assert.equal(a.kind, 'run');
    assert.deepEqual(a.kind === 'run' ? a.options.agent : undefined, {
      command: 'hermes',
      args: ['--ignore-user-config', '--ignore-rules', '--pass-session-id', '--safe-mode', '--skills', 'review,tests', 'acp'],
    });
    const b = parse(['--ignore-rules', '--', '/opt/hermes/bin/hermes', 'acp', '--verbose']);
    assert.deepEqual(b.kind === 'run' ? b.options.agent : undefined, { command: '/opt/hermes/bin/hermes', args: ['--ignore-rules', 'acp', '--verbose'] });
  });

  test('a gateway the runner starts gets them as Hermes\' environment variables; --safe-mode implies the other two', () => {
    const root = fs.mkdtempSync(`${cwd}/hermes-root-`);
    try {
      const r = parse(['--transport', 'tui-gateway', '--hermes-root', root, '--safe-mode']);
      assert.deepEqual(r.kind === 'run' ? r.options.gatewayEnv : undefined, { HERMES_SAFE_MODE: '1', HERMES_IGNORE_USER_CONFIG: '1', HERMES_IGNORE_RULES: '1' });
      const u = parse(['--transport', 'tui-gateway', '--hermes-root', root, '--pass-session-id']);
      assert.equal(u.kind, 'error');
      assert.match(u.kind === 'error' ? u.message : '', /--pass-session-id is a flag of `hermes` and `hermes acp`; the TUI Gateway/);
    } finally {
      fs.rmSync(root, { recursive: true, force: true });
    }
  });

  test('with another agent, an attached gateway or the API Server: a usage error naming the flag and the agent', () => {
    const cases: [readonly string[], RegExp][] = [
      [['--ignore-rules', '--', 'npx', '@zed-industries/claude-code-acp'], /--ignore-rules is a Hermes flag; the agent "npx @zed-industries\/claude-code-acp" is not `hermes acp`/],
      [['--skills', 'x', '--', 'gemini', '--experimental-acp'], /--skills is a Hermes flag; the agent "gemini --experimental-acp"/],
      [['--safe-mode', '--', 'hermes', 'chat'], /--safe-mode is a Hermes flag; the agent "hermes chat" is not `hermes acp`/],
      [['--pass-session-id', '--transport', 'api-server', '--base-url', 'http://127.0.0.1:8642'], /--pass-session-id is passed to Hermes when the runner starts it; the API Server/],
      [['--ignore-user-config', '--transport', 'tui-gateway', '--gateway-url', 'ws://127.0.0.1:9119/api/ws'], /an attached gateway runs with the flags it was started with/],
      [['--skills', ' , '], /--skills needs one or more skill names/],
    ];
    for (const [argv, pattern] of cases) {
      const r = parse(argv);
      assert.equal(r.kind, 'error', argv.join(' '));
      assert.match(r.kind === 'error' ? r.message : '', pattern);
    }
  });
});
