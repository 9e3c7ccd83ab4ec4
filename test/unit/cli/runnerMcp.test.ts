import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { events, killLeftovers, resultOf, runCli, scriptedAgent, tempDir } from './cliHarness';

const secret = 'sk-live-"runner"-é-4242';

interface WireServer {
  readonly name: string;
  readonly type?: string;
  readonly command?: string;
  readonly args?: readonly string[];
  readonly env?: readonly { name: string; value: string }[];
  readonly url?: string;
  readonly headers?: readonly { name: string; value: string }[];
}

/** The `mcpServers` of the `session/new` the runner sent, from its `--traffic-log`. */
function sessionNewServers(trafficFile: string): WireServer[] {
  for (const line of fs.readFileSync(trafficFile, 'utf8').split('\n')) {
    if (line === '') {
      continue;
    }
    const rec = JSON.parse(line) as { dir: string; msg: { method?: string; params?: { mcpServers?: WireServer[] } } | string };
    if (rec.dir === '->' && typeof rec.msg === 'object' && rec.msg.method === 'session/new') {
      return rec.msg.params?.mcpServers ?? [];
    }
  }
  throw new Error('no session/new in the traffic log');
}

function executable(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return file;
}

suite('hermes-acp-run: MCP servers from --mcp-config and the --cwd\'s .vscode/mcp.json, end to end', function () {
  this.timeout(30_000);
  let cwd: string;
  let bin: string;
  let flagFile: string;

  setup(() => {
    cwd = tempDir();
    bin = path.join(cwd, 'bin');
    executable(path.join(bin, 'files-server'));
    executable(path.join(bin, 'notes-server'));
    fs.mkdirSync(path.join(cwd, '.vscode'));
    fs.writeFileSync(
      path.join(cwd, '.vscode', 'mcp.json'),
      JSON.stringify({
        inputs: [{ type: 'promptString', id: 'token', description: 'API token', password: true }],
        servers: {
          files: { type: 'stdio', command: 'files-server', args: ['--root', '${workspaceFolder}'], env: { FILES_TOKEN: '${input:token}' } },
          search: { type: 'http', url: 'https://mcp.example.test/mcp', headers: { Authorization: 'Bearer ${input:token}' } },
          notes: { command: 'files-server', args: ['this one loses to --mcp-config'] },
        },
      }),
    );
    flagFile = path.join(cwd, 'extra-mcp.json');
    fs.writeFileSync(flagFile, '{ "servers": { "notes": { "command": "notes-server" } } }');
  });
  teardown(() => {
    killLeftovers();
    fs.rmSync(cwd, { recursive: true, force: true });
  });

  function run(agentEnv: Record<string, string>, extra: readonly string[] = []): ReturnType<typeof runCli> {
    const traffic = path.join(cwd, 'traffic.jsonl');
    return runCli(['-q', '[plain]', '--format', 'stream-json', '--mcp-config', flagFile, '--traffic-log', traffic, ...extra, '--', ...scriptedAgent], {
      cwd,
      env: { PATH: `${bin}${path.delimiter}${process.env.PATH ?? ''}`, HERMES_MCP_INPUT_TOKEN: secret, ...agentEnv },
    });
  }

  test('an agent advertising http gets the stdio and the http server; the secret is masked (***) in the traffic log and on stderr', async () => {
    const r = await run({ SCRIPTED_AGENT_MCP: 'http' });
    assert.equal(r.code, 0, r.stderr);
    assert.equal(resultOf(events(r)).exit_code, 0);
    const traffic = path.join(cwd, 'traffic.jsonl');
    const servers = sessionNewServers(traffic);
    assert.deepEqual(servers, [
      { name: 'notes', command: path.join(bin, 'notes-server'), args: [], env: [] },
      { name: 'files', command: path.join(bin, 'files-server'), args: ['--root', cwd], env: [{ name: 'FILES_TOKEN', value: '***' }] },
      { type: 'http', name: 'search', url: 'https://mcp.example.test/mcp', headers: [{ name: 'Authorization', value: '***' }] },
    ]);
    const log = fs.readFileSync(traffic, 'utf8');
    // The scripted agent logs the mcpServers it got, secrets included, to stderr: redacted there too.
    assert.match(log, /session\/new mcpServers .*\*\*\*/);
    for (const form of [secret, JSON.stringify(secret).slice(1, -1), 'sk-live-']) {
      assert.ok(!log.includes(form), `the traffic log holds ${form}`);
      assert.ok(!r.stderr.includes(form), `the runner's stderr holds ${form}`);
    }
    assert.match(r.stderr, /MCP server "notes" \(.*\.vscode\/mcp\.json\) left out: a server of that name is already defined in .*extra-mcp\.json/);
  });

  test('an agent without mcpCapabilities.http gets only the stdio servers, and stderr says why the http one is left out', async () => {
    const r = await run({});
    assert.equal(r.code, 0, r.stderr);
    const servers = sessionNewServers(path.join(cwd, 'traffic.jsonl'));
    assert.deepEqual(servers.map((s) => s.name), ['notes', 'files']);
    assert.match(r.stderr, /MCP server "search" \(agent capabilities\) left out: scripted-agent does not take http MCP servers \(mcpCapabilities\.http is not advertised\)/);
  });

  test('without the input in the environment its servers are left out with the variable to set; a missing --mcp-config is a usage error', async () => {
    const r = await run({ SCRIPTED_AGENT_MCP: 'http', HERMES_MCP_INPUT_TOKEN: '' });
    assert.equal(r.code, 0, r.stderr);
    assert.deepEqual(sessionNewServers(path.join(cwd, 'traffic.jsonl')).map((s) => s.name), ['notes']);
    assert.match(r.stderr, /MCP server "files" .* left out: no value was given for \$\{input:token\} \(API token\) \(set HERMES_MCP_INPUT_TOKEN\)/);

    const bad = await runCli(['-q', 'x', '--mcp-config', path.join(cwd, 'nope.json'), '--', ...scriptedAgent], { cwd });
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /--mcp-config: cannot read .*nope\.json/);
  });
});
