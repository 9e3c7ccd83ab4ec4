import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { events, perTestDir, resultOf, runCli, scriptedAgent, type CliRun } from './cliHarness';

/** Values the runner injects (issue 41): each must come out as `***` wherever the agent echoes it. */
const mcpInput = 'mcp-input-"quoted"-é-7719';
const signInKey = 'sk-signin-value-5531';
const apiKey = 'hermes-api-key-2290';
const gatewayToken = 'gateway-token-6604';
const all = [mcpInput, signInKey, apiKey, gatewayToken];
const ordinary = 'Ordinary text stays as it is: deploy the backend, token budget 1234, see README.md.';

suite('hermes-acp-run: injected secrets are masked in stdout, stderr and the traffic log', function () {
  this.timeout(30_000);
  const work = perTestDir();

  function setupWorkspace(): string {
    const bin = path.join(work.path, 'bin');
    fs.mkdirSync(bin, { recursive: true });
    fs.writeFileSync(path.join(bin, 'token-server'), '#!/bin/sh\nexit 0\n', { mode: 0o755 });
    fs.mkdirSync(path.join(work.path, '.vscode'), { recursive: true });
    fs.writeFileSync(
      path.join(work.path, '.vscode', 'mcp.json'),
      JSON.stringify({ inputs: [{ type: 'promptString', id: 'tok', password: true }], servers: { tokens: { command: 'token-server', env: { SETTING: '${input:tok}' } } } }),
    );
    return bin;
  }

  function run(format: 'stream-json' | 'text', extraEnv: Record<string, string> = {}): Promise<CliRun> {
    const bin = setupWorkspace();
    return runCli(
      ['-q', '[echo-secrets env=SCRIPTED_API_KEY,HERMES_API_KEY,HERMES_GATEWAY_TOKEN]', '--format', format, '--traffic-log', path.join(work.path, 'traffic.jsonl'), '--', ...scriptedAgent],
      {
        cwd: work.path,
        env: {
          PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`,
          HERMES_MCP_INPUT_TOK: mcpInput,
          SCRIPTED_AGENT_AUTH: 'required',
          SCRIPTED_AGENT_API_KEY: signInKey,
          SCRIPTED_API_KEY: signInKey,
          HERMES_API_KEY: apiKey,
          HERMES_GATEWAY_TOKEN: gatewayToken,
          XDG_STATE_HOME: path.join(work.path, 'state'),
          ...extraEnv,
        },
      },
    );
  }

  function assertClean(where: string, text: string): void {
    for (const secret of all) {
      for (const form of [secret, JSON.stringify(secret).slice(1, -1)]) {
        assert.ok(!text.includes(form), `${where} shows ${form}:\n${text.slice(Math.max(0, text.indexOf(form) - 300), text.indexOf(form) + 100)}`);
      }
    }
  }

  test('stream-json: the agent echoes every value in every field; none survives, *** stands in, ordinary text is intact', async () => {
    const r = await run('stream-json');
    assert.equal(r.code, 0, r.stderr);
    const evs = events(r);
    const traffic = fs.readFileSync(path.join(work.path, 'traffic.jsonl'), 'utf8');
    assertClean('stdout', r.stdout);
    assertClean('stderr', r.stderr);
    assertClean('the traffic log', traffic);
    // each value was really echoed, in each field: masked where it was
    const uses = evs.filter((e) => e.type === 'tool_use');
    assert.equal(uses.length, all.length, 'one echo call per value');
    for (const u of uses) {
      assert.match(String(u.title), /Bearer \*\*\*" https:\/\/api\.example/);
      assert.deepEqual((u.input as { env: unknown }).env, { TOKEN: '***' });
      assert.deepEqual((u.input as { list: unknown }).list, ['***', { deep: '***' }]);
    }
    for (const p of evs.filter((e) => e.type === 'permission')) {
      assert.match(String(p.title), /\*\*\*/);
    }
    for (const t of evs.filter((e) => e.type === 'tool_result')) {
      assert.match(String(t.output), /^output: \*\*\*/);
    }
    const text = evs.filter((e) => e.type === 'text').map((e) => String(e.text)).join('');
    assert.equal(text.split('The value is ***; keep it safe.').length - 1, all.length);
    assert.ok(text.endsWith(ordinary), text);
    assert.ok(String(resultOf(evs).text).includes(ordinary));
    assert.match(r.stderr, /echo-secrets: echoing 4 values: \*\*\* \| \*\*\* \| \*\*\* \| \*\*\*/);
    assert.ok(traffic.includes('***'));
    // the runner's session record (the agent's title echoes a value) is masked too
    const dir = path.join(work.path, 'state', 'hermes-acp-run', 'sessions');
    const records = fs.readdirSync(dir).map((f) => fs.readFileSync(path.join(dir, f), 'utf8'));
    assert.equal(records.length, 1);
    assert.match(records[0] ?? '', /"title":"Session about \*\*\*"/);
    assertClean('the session record', records[0] ?? '');
  });

  test('text format: the answer on stdout and the tool lines on stderr are masked', async () => {
    const r = await run('text');
    assertClean('stdout', r.stdout);
    assertClean('stderr', r.stderr);
    assert.ok(`${r.stdout}${r.stderr}`.includes(ordinary));
  });

  test('a value shorter than 6 characters is refused as a secret: exit 2, nothing run; an env-var sign-in value: exit 1 naming the variable', async () => {
    const short = await run('stream-json', { HERMES_MCP_INPUT_TOK: 'abc' });
    assert.equal(short.code, 2);
    assert.equal(short.stdout, '');
    assert.match(short.stderr, /HERMES_MCP_INPUT_TOK is shorter than 6 characters: too short to be masked/);
    assert.ok(!short.stderr.includes('abc'));
    const signIn = await run('stream-json', { SCRIPTED_API_KEY: 'k3y', SCRIPTED_AGENT_API_KEY: 'k3y' });
    assert.equal(signIn.code, 1);
    const result = resultOf(events(signIn));
    assert.match(String(result.error), /SCRIPTED_API_KEY is shorter than 6 characters.*sign-in method "scripted-api-key"/);
    // unused by an ACP run: a short HERMES_API_KEY is neither refused nor masked
    const unused = await run('stream-json', { HERMES_API_KEY: 'abc' });
    assert.notEqual(unused.code, 2, unused.stderr);
  });
});
