/**
 * The consumers the stream-json contract promises to serve (reference/hermes-contracts.md §1),
 * run unchanged with the machine's own jq and python3 on the runner's real output: a completed
 * turn, a missing agent, a provider 429, an interrupted turn, and an agent that reports no usage.
 * A missing jq or python3 fails the test with that message (.ci/run installs both).
 */
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import * as path from 'node:path';
import { events, perTestDir, runInterrupted, ofType, runCli, scriptedAgent, type CliRun } from './cliHarness';

const consumers = {
  result: 'select(.type=="result") | [.exit_code, .tokens.total, .duration_ms] | @tsv',
  tools: 'select(.type=="tool_result") | [.name, .duration_ms, .is_error] | @tsv',
  text: 'select(.type=="result") | .text',
};

const pythonLoop = `import json, sys
final = None
for line in sys.stdin:
    event = json.loads(line)
    if event["type"] == "result":
        final = event
print(final["exit_code"], final["tokens"]["total"])
`;

function requireTool(name: string, versionArgs: readonly string[]): string {
  const probe = spawnSync(name, [...versionArgs], { encoding: 'utf8' });
  if (probe.error !== undefined || probe.status !== 0) {
    throw new Error(`${name} is not installed on this machine: the contract's consumers need it (apt-get install ${name === 'jq' ? 'jq' : 'python3'}; .ci/run installs it)`);
  }
  return `${probe.stdout}${probe.stderr}`.trim();
}

function jq(filter: string, input: string): string {
  return execFileSync('jq', ['-r', filter], { input, encoding: 'utf8' });
}

function python(input: string): string {
  return execFileSync('python3', ['-c', pythonLoop], { input, encoding: 'utf8' });
}

interface Expected {
  readonly exitCode: number;
  readonly total: number | 'positive';
  readonly text: string | RegExp;
  readonly tools: readonly (readonly [name: string, isError: boolean])[];
}

/** Runs every consumer on the run's stdout and checks what it printed. */
function checkConsumers(run: CliRun, expected: Expected): void {
  const evs = events(run); // also validates every event against the schema
  const result = evs[evs.length - 1];
  const duration = String(result?.duration_ms);
  const total = Number((result?.tokens as { total: number } | undefined)?.total);
  if (expected.total === 'positive') {
    assert.ok(total > 0, `tokens.total ${total}`);
  } else {
    assert.equal(total, expected.total);
  }
  assert.equal(jq(consumers.result, run.stdout), `${expected.exitCode}\t${total}\t${duration}\n`);

  const toolLines = jq(consumers.tools, run.stdout).split('\n').filter((l) => l !== '');
  const results = ofType(evs, 'tool_result');
  assert.deepEqual(
    toolLines,
    results.map((r) => `${String(r.name)}\t${String(r.duration_ms)}\t${String(r.is_error)}`),
  );
  assert.deepEqual(
    toolLines.map((l) => {
      const [name = '', , isError] = l.split('\t');
      return [name, isError === 'true'] as const;
    }),
    expected.tools,
  );

  const text = jq(consumers.text, run.stdout);
  if (typeof expected.text === 'string') {
    assert.equal(text, `${expected.text}\n`);
  } else {
    assert.match(text, expected.text);
  }
  assert.equal(python(run.stdout), `${expected.exitCode} ${total}\n`);
}

suite('hermes-acp-run: the contract\'s own consumers (jq, python3)', function () {
  this.timeout(40_000);
  suiteSetup(() => {
    // Said in the test output: which jq and python3 served the contract (a missing one fails here).
    console.log(`      consumers: ${requireTool('jq', ['--version'])}, ${requireTool('python3', ['--version'])}`);
  });
  const work = perTestDir();

  const oneShot = (query: string, agent: readonly string[] = scriptedAgent): string[] => ['-q', query, '--format', 'stream-json', '--', ...agent];

  test('a completed turn', async () => {
    const run = await runCli(oneShot('[tools] [plain]'), { cwd: work.path });
    assert.equal(run.code, 0, run.stderr);
    const names = ['read_file', 'patch', 'delete_file', 'move_file', 'search_files', 'terminal', '_thinking', 'web_extract', 'switch_mode', 'todo'];
    checkConsumers(run, {
      exitCode: 0,
      total: 'positive',
      text: /^Hello from the scripted agent! This is a plain reply/,
      tools: [...names.map((n) => [n, false] as const), ['terminal', true]],
    });
  });

  test('a missing agent', async () => {
    const run = await runCli(oneShot('[plain]', [path.join(work.path, 'no-such-agent')]), { cwd: work.path });
    assert.equal(run.code, 1, run.stderr);
    checkConsumers(run, { exitCode: 1, total: 0, text: '', tools: [] });
  });

  test('a provider 429', async () => {
    const run = await runCli(oneShot('[ratelimit]'), { cwd: work.path });
    assert.equal(run.code, 75, run.stderr);
    checkConsumers(run, { exitCode: 75, total: 0, text: '', tools: [] });
  });

  test('an interrupted turn', async () => {
    const run = await runInterrupted(oneShot('[slow n=40 ms=100]'), work.path, 'tick 2');
    assert.equal(run.code, 130, run.stderr);
    // The scripted agent answers the cancelled prompt with its usage, as Hermes does.
    checkConsumers(run, { exitCode: 130, total: 'positive', text: /^tick 1\ntick 2\n/, tools: [] });
  });

  test('an agent that reports no usage', async () => {
    const run = await runCli(oneShot('[meta-usage form=none]'), { cwd: work.path });
    assert.equal(run.code, 0, run.stderr);
    checkConsumers(run, { exitCode: 0, total: 0, text: 'No token counts for this turn.', tools: [] });
    const result = events(run).pop();
    assert.equal(result?.tokens_reported, false);
  });
});
