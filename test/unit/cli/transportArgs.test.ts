import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { parseCommandLine, usage, type ParsedCommandLine } from '../../../src/cli/args';
import type { EventBody, QuestionEvent } from '../../../src/cli/events';
import { HeadlessQuestions } from '../../../src/cli/headlessQuestions';
import { perTestDir, runCli } from './cliHarness';
import { assertValidEvent } from './streamContract';

const noStdin = (): string => {
  throw new Error('stdin not expected');
};

function parse(argv: readonly string[], cwd: string): ParsedCommandLine {
  return parseCommandLine(['-q', 'x', ...argv], cwd, noStdin);
}

suite('hermes-acp-run --transport arguments', () => {
  const cwd = fs.realpathSync(os.tmpdir());
  let root: string;
  suiteSetup(() => {
    root = fs.mkdtempSync(path.join(cwd, 'hermes-root-'));
  });
  suiteTeardown(() => fs.rmSync(root, { recursive: true, force: true }));

  test('default acp: no transport, --mode stays the session mode; acp spelled out is the same', () => {
    for (const argv of [['--mode', 'ask'], ['--transport', 'acp', '--mode', 'ask']]) {
      const parsed = parse(argv, cwd);
      assert.equal(parsed.kind, 'run');
      assert.equal(parsed.kind === 'run' && parsed.options.transport, undefined);
      assert.equal(parsed.kind === 'run' && parsed.options.mode, 'ask');
    }
  });

  test('tui-gateway: started from --hermes-root (absolute, --python resolved when it is a path) or attached at --gateway-url', () => {
    const started = parse(['--transport', 'tui-gateway', '--hermes-root', path.basename(root), '--python', './venv/bin/python'], cwd);
    assert.deepEqual(started.kind === 'run' && started.options.transport, { kind: 'tui-gateway', hermesRoot: root, python: path.join(cwd, 'venv/bin/python') });
    const bare = parse(['--transport', 'tui-gateway', '--hermes-root', root, '--python', 'python3.12'], cwd);
    assert.deepEqual(bare.kind === 'run' && bare.options.transport, { kind: 'tui-gateway', hermesRoot: root, python: 'python3.12' });
    const attached = parse(['--transport', 'tui-gateway', '--gateway-url', 'wss://host:9119/api/ws'], cwd);
    assert.deepEqual(attached.kind === 'run' && attached.options.transport, { kind: 'tui-gateway', url: 'wss://host:9119/api/ws' });
  });

  test('api-server: --base-url, --api-mode chat (default) or runs picks the API; no session mode', () => {
    const chat = parse(['--transport', 'api-server', '--base-url', 'http://127.0.0.1:8642'], cwd);
    assert.deepEqual(chat.kind === 'run' && chat.options.transport, { kind: 'api-server', baseUrl: 'http://127.0.0.1:8642', mode: 'chat' });
    const chatSpelled = parse(['--transport', 'api-server', '--base-url', 'http://127.0.0.1:8642', '--api-mode', 'chat'], cwd);
    assert.deepEqual(chatSpelled.kind === 'run' && chatSpelled.options.transport, { kind: 'api-server', baseUrl: 'http://127.0.0.1:8642', mode: 'chat' });
    const runs = parse(['--transport', 'api-server', '--base-url', 'https://hermes.example', '--api-mode', 'runs'], cwd);
    assert.deepEqual(runs.kind === 'run' && runs.options.transport, { kind: 'api-server', baseUrl: 'https://hermes.example', mode: 'runs' });
    assert.equal(runs.kind === 'run' && runs.options.mode, undefined);
  });

  test('api-server chat mode holds only --permissions deny: anything else is a usage error naming --api-mode runs', () => {
    const api = ['--transport', 'api-server', '--base-url', 'http://h:1'];
    assert.equal(parse([...api, '--permissions', 'deny'], cwd).kind, 'run');
    for (const permissions of ['allow', path.join(root, 'rules.json')]) {
      const parsed = parse([...api, '--permissions', permissions], cwd);
      assert.equal(parsed.kind, 'error');
      assert.match(parsed.kind === 'error' ? parsed.message : '', /cannot be held over the API Server's chat completions.*--api-mode runs/s);
    }
  });

  test('--mode keeps meaning a session mode: the old spelling --mode chat|runs with the API Server names --api-mode', () => {
    const api = ['--transport', 'api-server', '--base-url', 'http://h:1'];
    for (const old of ['chat', 'runs']) {
      const parsed = parse([...api, '--mode', old], cwd);
      assert.equal(parsed.kind, 'error');
      assert.match(parsed.kind === 'error' ? parsed.message : '', new RegExp(`--mode is a session mode, and the API Server has none: pick its API with --api-mode chat\\|runs \\(--api-mode ${old}\\)`));
    }
    const other = parse([...api, '--mode', 'ask'], cwd);
    assert.match(other.kind === 'error' ? other.message : '', /--mode is a session mode, .* --api-mode chat\|runs$/);
  });

  test('bad combinations are usage errors that say what to do', () => {
    const gw = ['--transport', 'tui-gateway'];
    const api = ['--transport', 'api-server', '--base-url', 'http://h:1'];
    const cases: [string[], RegExp][] = [
      [['--gateway-url', 'ws://h/api/ws'], /--gateway-url needs --transport tui-gateway/],
      [['--hermes-root', root], /--hermes-root needs --transport tui-gateway/],
      [['--python', 'python3'], /--python needs --transport tui-gateway/],
      [['--base-url', 'http://h:1'], /--base-url needs --transport api-server/],
      [['--transport', 'acp', '--gateway-url', 'ws://h/api/ws'], /needs --transport tui-gateway/],
      [[...api, '--gateway-url', 'ws://h/api/ws'], /--gateway-url needs --transport tui-gateway/],
      [[...gw, '--gateway-url', 'ws://h/api/ws', '--base-url', 'http://h:1'], /--base-url needs --transport api-server/],
      [['--transport', 'grpc'], /--transport must be "acp", "tui-gateway" or "api-server"/],
      [gw, /needs --gateway-url ws:\/\/… .* or --hermes-root DIR/],
      [[...gw, '--gateway-url', 'http://h/api/ws'], /must be a ws:\/\/ or wss:\/\/ URL/],
      [[...gw, '--gateway-url', 'ws://h/api/ws?token=abc'], /HERMES_GATEWAY_TOKEN, not in the URL/],
      [[...gw, '--gateway-url', 'ws://h/api/ws', '--hermes-root', root], /use either/],
      [[...gw, '--hermes-root', path.join(root, 'missing')], /is not a directory/],
      [[...gw, '--hermes-root', root, '--mode', 'ask'], /--mode: the TUI Gateway has no session modes/],
      [[...gw, '--hermes-root', root, '--auth', 'oauth'], /--auth is for --transport acp/],
      [[...gw, '--hermes-root', root, '--mcp-config', 'mcp.json'], /--mcp-config is for --transport acp/],
      [[...gw, '--hermes-root', root, '--', 'hermes', 'acp'], /an agent command after "--" is for --transport acp/],
      [['--transport', 'api-server'], /needs --base-url/],
      [['--transport', 'api-server', '--base-url', 'ftp://h'], /http:\/\/ or https:\/\//],
      [[...api, '--api-mode', 'agent'], /--api-mode is "chat" .* or "runs" .*, not "agent"/],
      [['--api-mode', 'runs'], /--api-mode needs --transport api-server/],
      [[...gw, '--hermes-root', root, '--api-mode', 'runs'], /--api-mode needs --transport api-server/],
    ];
    for (const [argv, message] of cases) {
      const parsed = parse(argv, cwd);
      assert.equal(parsed.kind, 'error', `${argv.join(' ')} was accepted`);
      assert.match(parsed.kind === 'error' ? parsed.message : '', message, argv.join(' '));
    }
  });

  test('--help documents the transports and where their secrets come from', () => {
    for (const needle of ['--transport KIND', '--gateway-url URL', 'HERMES_GATEWAY_TOKEN', '--hermes-root DIR', '--python PYTHON', '--base-url URL', 'HERMES_API_KEY', '--api-mode API', 'runs']) {
      assert.ok(usage.includes(needle), needle);
    }
  });
});

suite('hermes-acp-run --transport: usage errors from the command line', function () {
  this.timeout(30_000);
  const work = perTestDir();

  test('--gateway-url without --transport tui-gateway: exit 2, stdout empty, the reason on stderr', async () => {
    const run = await runCli(['-q', 'x', '--format', 'stream-json', '--gateway-url', 'ws://127.0.0.1:1/api/ws'], { cwd: work.path });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /hermes-acp-run: --gateway-url needs --transport tui-gateway/);
  });

  test('the old spelling --mode runs with --transport api-server: exit 2, the reason names --api-mode', async () => {
    const run = await runCli(['-q', 'x', '--transport', 'api-server', '--base-url', 'http://127.0.0.1:1', '--mode', 'runs'], { cwd: work.path });
    assert.equal(run.code, 2);
    assert.equal(run.stdout, '');
    assert.match(run.stderr, /hermes-acp-run: --mode is a session mode, and the API Server has none: pick its API with --api-mode chat\|runs \(--api-mode runs\)/);
  });
});

suite('stream-json question event', () => {
  test('what the headless question port reports validates against the schema and never holds a value', async () => {
    const emitted: EventBody<QuestionEvent>[] = [];
    const port = new HeadlessQuestions((body) => emitted.push(body));
    const base = { sessionId: 's', replayed: false };
    const clarify = await port.clarify({ ...base, requestId: 'r1', questions: [{ id: 'q', text: 'Which?', choices: ['a'], multiSelect: false }], locked: {}, lock: () => Promise.resolve('ok') });
    const secret = await port.secret({ ...base, requestId: 'r2', kind: 'sudo', prompt: 'Password for sudo: apt install x' });
    const connection = await port.connection({ ...base, requestId: 'r3', operationId: 'op', reason: 'needs GitHub', targets: [{ name: 'github', kind: 'mcp', action: 'enable' }] });
    assert.deepEqual(clarify, { kind: 'cancelled' });
    assert.deepEqual(secret, { kind: 'declined' });
    assert.deepEqual(connection, { settledBy: 'continue', targets: [{ name: 'github', state: 'declined', detail: 'nobody to answer in a headless run' }] });
    assert.deepEqual(
      emitted.map((e) => [e.kind, e.questions]),
      [
        ['clarify', ['Which?']],
        ['sudo', ['Password for sudo: apt install x']],
        ['connection', ['needs GitHub', 'enable github']],
      ],
    );
    emitted.forEach((e, i) => assertValidEvent({ ...e, timestamp: 1 }, `question ${i}`));
    assert.throws(() => assertValidEvent({ ...emitted[1], timestamp: 1, value: 'hunter2' }, 'a question with a value'), /must NOT have additional properties/);
    assert.throws(() => assertValidEvent({ ...emitted[0], timestamp: 1, outcome: 'answered' }, 'an answered question'), /does not match/);
  });
});
