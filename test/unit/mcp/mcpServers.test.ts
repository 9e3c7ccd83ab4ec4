import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { zMcpServer } from '../../../src/acp/sdkSchema';
import { TrafficLog } from '../../../src/wire/trafficLog';
import { buildMcpServers, filterForAgent, type McpHost } from '../../../src/mcp/acpServers';
import { environmentInputs, McpInputResolver, type McpInputPrompt, type McpSecretStore } from '../../../src/mcp/inputs';
import { mcpConfigFromValue, parseMcpConfig, type McpInputDefinition } from '../../../src/mcp/mcpConfig';
import { loadMcpServers, mcpSettingOrigin, nodeMcpHost, workspaceMcpFile } from '../../../src/mcp/mcpServers';
import { McpSecretRedactor, redactedMark, secretValuesOf } from '../../../src/mcp/redaction';
import { tempDir } from '../../support/tempDirs';

/** A prompt that answers from a table and counts what it was asked. */
class CountingPrompt implements McpInputPrompt {
  readonly asked: string[] = [];
  constructor(private readonly answers: Record<string, string | undefined>) {}
  async ask(input: McpInputDefinition): Promise<string | undefined> {
    this.asked.push(input.id);
    await new Promise((r) => setTimeout(r, 5)); // an input box takes a while: concurrent asks overlap
    return this.answers[input.id];
  }
}

class MemoryStore implements McpSecretStore {
  readonly map = new Map<string, string>();
  get(key: string): Promise<string | undefined> {
    return Promise.resolve(this.map.get(key));
  }
  store(key: string, value: string): Promise<void> {
    this.map.set(key, value);
    return Promise.resolve();
  }
  delete(key: string): Promise<void> {
    this.map.delete(key);
    return Promise.resolve();
  }
}

function executable(file: string): string {
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, '#!/bin/sh\nexit 0\n', { mode: 0o755 });
  return file;
}

/** A workspace whose `.vscode/mcp.json` has a stdio and an http server sharing one secret input; `files-server` is on a private PATH. */
function workspaceWithMcp(): { ws: string; bin: string; command: string; env: Record<string, string> } {
  const ws = tempDir('hermes-mcp-');
  const bin = path.join(ws, 'bin');
  const command = executable(path.join(bin, 'files-server'));
  fs.mkdirSync(path.join(ws, '.vscode'), { recursive: true });
  fs.writeFileSync(
    workspaceMcpFile(ws),
    `{
  // VS Code's format: JSONC, so comments and trailing commas are fine.
  "inputs": [
    { "type": "promptString", "id": "token", "description": "Search API token", "password": true },
  ],
  "servers": {
    "files": {
      "type": "stdio",
      "command": "files-server",
      "args": ["--root", "\${workspaceFolder}", "--name=\${workspaceFolderBasename}"],
      "env": { "FILES_TOKEN": "\${input:token}", "LOG_LEVEL": "debug", "FROM_ENV": "\${env:MCP_TEST_VALUE}", "UNSET_ME": null },
    },
    "search": {
      "type": "http",
      "url": "https://mcp.example.test/mcp?workspace=\${workspaceFolderBasename}",
      "headers": { "Authorization": "Bearer \${input:token}", "Accept": "application/json" },
    },
  },
}
`,
  );
  return { ws, bin, command, env: { PATH: bin, MCP_TEST_VALUE: 'from the environment' } };
}

const token = 'tok-3f9a"\\é-secret';

suite('MCP servers from .vscode/mcp.json and hermes.mcpServers (src/mcp)', () => {
  test('a stdio and an http server: both for an agent advertising http, only stdio for one that does not; ${input:token} asked once', async () => {
    const { ws, command, env } = workspaceWithMcp();
    const prompt = new CountingPrompt({ token });
    const inputs = new McpInputResolver(prompt);
    const host = nodeMcpHost({ workspaceFolder: ws, env, inputs });
    const all = await loadMcpServers([{ kind: 'file', path: workspaceMcpFile(ws) }], host);
    assert.deepEqual(all.skipped, []);
    const stdio: acp.McpServer = {
      name: 'files',
      command,
      args: ['--root', ws, `--name=${path.basename(ws)}`],
      env: [
        { name: 'FILES_TOKEN', value: token },
        { name: 'LOG_LEVEL', value: 'debug' },
        { name: 'FROM_ENV', value: 'from the environment' },
      ],
    };
    const http: acp.McpServer = {
      type: 'http',
      name: 'search',
      url: `https://mcp.example.test/mcp?workspace=${path.basename(ws)}`,
      headers: [
        { name: 'Authorization', value: `Bearer ${token}` },
        { name: 'Accept', value: 'application/json' },
      ],
    };
    assert.deepEqual(filterForAgent(all, { http: true }, 'Claude').servers, [stdio, http]);
    const stdioOnly = filterForAgent(all, {}, 'Hermes');
    assert.deepEqual(stdioOnly.servers, [stdio]);
    assert.deepEqual(stdioOnly.skipped, [
      { name: 'search', origin: 'agent capabilities', reason: 'Hermes does not take http MCP servers (mcpCapabilities.http is not advertised)' },
    ]);
    assert.deepEqual(filterForAgent(all, undefined, 'Hermes').servers, [stdio]);
    // What we send is valid ACP by the SDK's own schema.
    for (const s of [stdio, http]) {
      assert.ok(zMcpServer.safeParse(s).success, s.name);
    }
    // Two servers, one input: asked once; a second session (another build) asks nothing.
    await loadMcpServers([{ kind: 'file', path: workspaceMcpFile(ws) }], host);
    assert.deepEqual(prompt.asked, ['token']);
  });

  test('an input is asked once even when two sessions start together, and kept in the secret store per file', async () => {
    const { ws, env } = workspaceWithMcp();
    const store = new MemoryStore();
    const prompt = new CountingPrompt({ token });
    const inputs = new McpInputResolver(prompt, store);
    const host = nodeMcpHost({ workspaceFolder: ws, env, inputs });
    const spec = [{ kind: 'file', path: workspaceMcpFile(ws) } as const];
    const [a, b] = await Promise.all([loadMcpServers(spec, host), loadMcpServers(spec, host)]);
    assert.equal(a.servers.length, 2);
    assert.equal(b.servers.length, 2);
    assert.deepEqual(prompt.asked, ['token']);
    assert.equal(store.map.get(McpInputResolver.storageKey(workspaceMcpFile(ws), 'token')), token);

    // The next window (a new resolver) reads the store and asks nothing.
    const later = new CountingPrompt({});
    const again = await loadMcpServers(spec, nodeMcpHost({ workspaceFolder: ws, env, inputs: new McpInputResolver(later, store) }));
    assert.equal(again.servers.length, 2);
    assert.deepEqual(later.asked, []);

    // Another workspace's file naming the same input id gets nothing from the store: it is asked.
    const other = workspaceWithMcp();
    const stranger = new CountingPrompt({});
    const theirs = await loadMcpServers([{ kind: 'file', path: workspaceMcpFile(other.ws) }], nodeMcpHost({ workspaceFolder: other.ws, env: other.env, inputs: new McpInputResolver(stranger, store) }));
    assert.deepEqual(stranger.asked, ['token']);
    assert.deepEqual(theirs.servers, []);
    assert.deepEqual(
      theirs.skipped.map((s) => [s.name, s.reason]),
      [
        ['files', 'no value was given for ${input:token} (Search API token)'],
        ['search', 'no value was given for ${input:token} (Search API token)'],
      ],
    );
  });

  test('a dismissed input leaves its servers out and is asked again next time', async () => {
    const { ws, env } = workspaceWithMcp();
    const answers: Record<string, string | undefined> = {};
    const prompt = new CountingPrompt(answers);
    const host = nodeMcpHost({ workspaceFolder: ws, env, inputs: new McpInputResolver(prompt) });
    const spec = [{ kind: 'file', path: workspaceMcpFile(ws) } as const];
    assert.deepEqual((await loadMcpServers(spec, host)).servers, []);
    answers.token = token;
    assert.equal((await loadMcpServers(spec, host)).servers.length, 2);
    assert.deepEqual(prompt.asked, ['token', 'token']);
  });

  test('the runner reads inputs from HERMES_MCP_INPUT_<ID>', async () => {
    const prompt = environmentInputs({ HERMES_MCP_INPUT_GITHUB_TOKEN: 'gh-123' });
    assert.equal(await prompt.ask({ id: 'github-token', type: 'promptString', description: '', password: true }, 'x'), 'gh-123');
    assert.equal(await prompt.ask({ id: 'other', type: 'promptString', description: '', password: false, default: 'dflt' }, 'x'), 'dflt');
  });

  test('problems leave one server out, say why, and keep the others', async () => {
    const ws = tempDir('hermes-mcp-');
    const bin = path.join(ws, 'bin');
    executable(path.join(bin, 'ok-server'));
    executable(path.join(ws, 'tools', 'local-server'));
    fs.writeFileSync(path.join(ws, 'vars.env'), 'FROM_FILE=1\nOVERRIDDEN=file\n# comment\n');
    const source = mcpConfigFromValue(
      {
        inputs: [{ type: 'command', id: 'pick', command: 'extension.pick' }],
        servers: {
          ok: { command: 'ok-server', cwd: '${workspaceFolder}/sub' },
          relative: { command: './tools/local-server', envFile: '${workspaceFolder}/vars.env', env: { OVERRIDDEN: 'env' } },
          missing: { command: 'not-installed-server' },
          unknownVariable: { command: 'ok-server', args: ['${config:editor.fontSize}'] },
          undeclaredInput: { command: 'ok-server', env: { KEY: '${input:nowhere}' } },
          commandInput: { command: 'ok-server', args: ['${input:pick}'] },
          notHttp: { type: 'http', url: 'file:///etc/passwd' },
          javascriptUrl: { url: 'javascript:alert(1)' },
          badType: { type: 'websocket', url: 'wss://x' },
          noCommand: { type: 'stdio', args: [] },
          notAnObject: 'ok-server',
        },
      },
      mcpSettingOrigin,
    );
    const list = await buildMcpServers([source], nodeMcpHost({ workspaceFolder: ws, env: { PATH: bin }, inputs: new McpInputResolver(new CountingPrompt({})) }));
    assert.deepEqual(
      list.servers.map((s) => [s.name, 'command' in s ? s.command : '', 'env' in s ? s.env : []]),
      [
        ['ok', path.join(bin, 'ok-server'), []],
        [
          'relative',
          path.join(ws, 'tools', 'local-server'),
          [
            { name: 'FROM_FILE', value: '1' },
            { name: 'OVERRIDDEN', value: 'env' },
          ],
        ],
      ],
    );
    assert.deepEqual(list.warnings.map((w) => w.name), ['ok']);
    const why = Object.fromEntries(list.skipped.map((s) => [s.name, s.reason]));
    assert.deepEqual(Object.keys(why).sort(), ['badType', 'commandInput', 'javascriptUrl', 'missing', 'noCommand', 'notAnObject', 'notHttp', 'undeclaredInput', 'unknownVariable']);
    assert.match(why.missing ?? '', /`not-installed-server` was not found on PATH/);
    assert.match(why.unknownVariable ?? '', /\$\{config:editor\.fontSize\} is not a variable this client knows/);
    assert.match(why.undeclaredInput ?? '', /not declared in "inputs"/);
    assert.match(why.commandInput ?? '', /"command" input/);
    assert.match(why.notHttp ?? '', /must be http:\/\/ or https:\/\//);
    assert.match(why.javascriptUrl ?? '', /must be http:\/\/ or https:\/\//);
    assert.match(why.badType ?? '', /unknown server type "websocket"/);
  });

  test('sources in priority order: a name already taken is left out, and a broken file is said so', async () => {
    const ws = tempDir('hermes-mcp-');
    const bin = path.join(ws, 'bin');
    executable(path.join(bin, 'a-server'));
    executable(path.join(bin, 'b-server'));
    const setting = mcpConfigFromValue({ servers: { shared: { command: 'a-server' } } }, mcpSettingOrigin);
    const file = parseMcpConfig('{ "servers": { "shared": { "command": "b-server" }, "own": { "command": "b-server" } } }', '/ws/.vscode/mcp.json');
    const list = await buildMcpServers([setting, file], nodeMcpHost({ workspaceFolder: ws, env: { PATH: bin }, inputs: new McpInputResolver(new CountingPrompt({})) }));
    assert.deepEqual(list.servers.map((s) => [s.name, 'command' in s ? path.basename(s.command) : '']), [['shared', 'a-server'], ['own', 'b-server']]);
    assert.deepEqual(list.skipped, [{ name: 'shared', origin: '/ws/.vscode/mcp.json', reason: `a server of that name is already defined in ${mcpSettingOrigin}` }]);
    assert.match(parseMcpConfig('{ "servers": { ', 'x.json').problems[0]?.message ?? '', /x\.json is not valid JSON at offset \d+/);
    assert.deepEqual(mcpConfigFromValue(undefined, 'x'), { origin: 'x', servers: [], inputs: [], problems: [] });
  });

  test('Windows: commands resolve with PATHEXT and backslash paths against the workspace folder (path.win32)', async () => {
    const files = new Set(['C:\\Tools\\uvx.EXE', 'C:\\ws\\bin\\srv.cmd']);
    const host: McpHost = {
      variables: { workspaceFolder: 'C:\\ws', userHome: 'C:\\Users\\me', env: {}, pathSeparator: '\\', basename: (p) => path.win32.basename(p) },
      inputs: new McpInputResolver(new CountingPrompt({})),
      platform: 'win32',
      PATH: 'C:\\Windows;"C:\\Tools"',
      PATHEXT: '.COM;.EXE;.CMD',
      // NTFS folds case: the file is uvx.EXE, PATHEXT yields uvx.exe.
      isExecutableFile: (p) => [...files].some((f) => f.toLowerCase() === p.toLowerCase()),
      readTextFile: () => '',
      isAbsolute: (p) => path.win32.isAbsolute(p),
      resolve: (...parts) => path.win32.resolve(...parts),
      join: (...parts) => path.win32.join(...parts),
    };
    const source = mcpConfigFromValue({ servers: { uvx: { command: 'uvx', args: ['mcp-server-git', '${workspaceFolder}${/}repo'] }, local: { command: 'bin\\srv' } } }, mcpSettingOrigin);
    const list = await buildMcpServers([source], host);
    assert.deepEqual(list.skipped, []);
    assert.deepEqual(
      list.servers.map((s) => ['command' in s ? s.command : '', 'args' in s ? s.args : []]),
      [
        ['C:\\Tools\\uvx.exe', ['mcp-server-git', 'C:\\ws\\repo']],
        ['C:\\ws\\bin\\srv.cmd', []],
      ],
    );
  });

  suite('redaction in the traffic log', () => {
    function logWithSecrets(servers: readonly acp.McpServer[], inputs: Iterable<string>): TrafficLog {
      const log = new TrafficLog();
      const redactor = new McpSecretRedactor();
      redactor.add(inputs);
      redactor.add(secretValuesOf(servers));
      log.addRedactor(redactor);
      return log;
    }

    const servers: acp.McpServer[] = [
      { name: 'files', command: '/bin/files', args: ['--token', token, '--verbose'], env: [{ name: 'FILES_TOKEN', value: token }, { name: 'LOG_LEVEL', value: 'debug' }, { name: 'PLAIN', value: 'hunter2-literal' }] },
      { type: 'http', name: 'search', url: `https://mcp.example.test/mcp?key=${encodeURIComponent(token)}`, headers: [{ name: 'Authorization', value: 'Bearer literal-header-secret' }, { name: 'Accept', value: 'application/json' }] },
    ];

    test('session/new as sent: every header and env value, every input answer (also inside args and URLs) is «redacted»', () => {
      const log = logWithSecrets(servers, [token, encodeURIComponent(token)]);
      const line = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'session/new', params: { cwd: '/ws', mcpServers: servers } });
      const entry = log.append({ dir: 'out', kind: 'request', method: 'session/new', id: 1, size: line.length, text: line });
      for (const secret of [token, JSON.stringify(token).slice(1, -1), encodeURIComponent(token), 'literal-header-secret', 'hunter2-literal']) {
        assert.ok(!entry.text.includes(secret), `${secret} is not in ${entry.text}`);
      }
      const sent = JSON.parse(entry.text) as { params: { mcpServers: { args?: string[]; env?: { value: string }[]; headers?: { value: string }[] }[] } };
      assert.deepEqual(sent.params.mcpServers[0]?.args, ['--token', redactedMark, '--verbose']);
      assert.deepEqual(sent.params.mcpServers[0]?.env?.map((e) => e.value), [redactedMark, redactedMark, redactedMark]);
      assert.deepEqual(sent.params.mcpServers[1]?.headers?.map((h) => h.value), [redactedMark, redactedMark]);
      assert.ok(entry.text.includes('"LOG_LEVEL"') && entry.text.includes('/bin/files'), 'names and commands stay readable');
      assert.equal(entry.size, line.length, 'the size on the wire is kept');
    });

    test('echoes of a secret from the agent — its replies (JSON- and \\u-escaped), its stderr, our notes — are redacted; ordinary words are not', () => {
      const log = logWithSecrets(servers, [token]);
      const asciiEscaped = JSON.stringify(token).slice(1, -1).replace(/[\u007f-\uffff]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
      log.append({ dir: 'in', kind: 'error', id: 2, size: 1, text: `{"jsonrpc":"2.0","id":2,"error":{"code":-32603,"message":"bad token ${asciiEscaped}"}}` });
      log.append({ dir: 'in', kind: 'notification', method: 'session/update', size: 1, text: JSON.stringify({ text: `echo ${token}` }) });
      log.append({ dir: 'stderr', kind: 'text', size: 1, text: `connecting with Bearer literal-header-secret and ${token}` });
      log.note(`agent exited: token ${token} rejected`);
      log.append({ dir: 'in', kind: 'notification', method: 'session/update', size: 1, text: '{"level":"debug","accept":"application/json"}' });
      const all = `${log.toJsonl()}\n${log.snapshot().map((e) => `${e.text} ${e.note ?? ''}`).join('\n')}`;
      for (const secret of [token, JSON.stringify(token).slice(1, -1), asciiEscaped, 'literal-header-secret']) {
        assert.ok(!all.includes(secret), `${secret} leaked`);
      }
      assert.equal((all.match(/«redacted»/g) ?? []).length >= 5, true);
      assert.match(all, /"level":"debug"/);
      assert.match(all, /application\/json/);
    });

    test('a log without MCP secrets is left as it is (the redactor is not installed, the hot path untouched)', () => {
      const log = new TrafficLog();
      const text = '{"jsonrpc":"2.0","method":"session/new","params":{"mcpServers":[{"name":"x","command":"/x","args":[],"env":[{"name":"A","value":"b"}]}]}}';
      assert.equal(log.append({ dir: 'out', kind: 'request', method: 'session/new', size: 1, text }).text, text);
    });
  });
});
