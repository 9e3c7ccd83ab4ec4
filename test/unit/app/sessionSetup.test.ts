/**
 * Issue 17 — what session setup carries, end to end on a real scripted agent: the MCP servers of a
 * workspace's `.vscode/mcp.json` (a stdio and an http server, the http one with an
 * `${input:token}` header) on `session/new` and `session/load`, filtered by the agent's
 * `mcpCapabilities` (SCRIPTED_AGENT_MCP=http or not), the input asked once and never in the traffic
 * log; and the other workspace folders as `additionalDirectories` when the agent advertises them.
 * Checked in the traffic log, as "Show Traffic" would show it.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentHost, type AgentDefinition } from '../../../src/host/agentHost';
import { ChatSession } from '../../../src/app/chatSession';
import { memorySecrets } from '../../../src/app/signIn';
import { WorkspaceSessionSetup } from '../../../src/app/workspaceSetup';
import type { McpInputPrompt } from '../../../src/mcp/inputs';
import { formatMessage } from '../../../src/util/l10n';
import { tempWorkspace } from '../../support/agentStack';
import { scriptedAgentPath } from '../../support/paths';

const token = 'tok-3f9a-very-secret';

/** The params of the requests of `method` the client sent, parsed from the traffic log. */
function sentParams(host: AgentHost, method: string): Record<string, unknown>[] {
  return host.log.snapshot().flatMap((e) => {
    if (e.dir !== 'out' || e.method !== method || e.text === undefined) {
      return [];
    }
    const msg = JSON.parse(e.text) as { params?: Record<string, unknown> };
    return msg.params !== undefined ? [msg.params] : [];
  });
}

suite('issue 17: MCP servers and workspace folders on session setup (scripted agent, traffic log)', function () {
  this.timeout(60_000);
  const root = tempWorkspace('hermes-setup-');
  const folderA = path.join(root, 'a');
  const folderB = path.join(root, 'b');
  const hosts: AgentHost[] = [];
  const chats: ChatSession[] = [];
  let asked: string[] = [];
  const prompt: McpInputPrompt = {
    ask: (input) => {
      asked.push(input.id);
      return Promise.resolve(token);
    },
  };

  suiteSetup(() => {
    fs.mkdirSync(path.join(folderA, '.vscode'), { recursive: true });
    fs.mkdirSync(folderB, { recursive: true });
    fs.writeFileSync(
      path.join(folderA, '.vscode', 'mcp.json'),
      `// VS Code's own format (JSONC)
{
  "inputs": [{ "id": "token", "type": "promptString", "description": "API token", "password": true }],
  "servers": {
    "files": { "command": ${JSON.stringify(process.execPath)}, "args": ["\${workspaceFolder}/server.js"] },
    "remote": { "type": "http", "url": "https://mcp.example.test/mcp", "headers": { "Authorization": "Bearer \${input:token}" } }
  }
}
`,
    );
  });
  setup(() => {
    asked = [];
  });
  teardown(async () => {
    for (const c of chats.splice(0)) {
      c.dispose();
    }
    await Promise.all(hosts.splice(0).map((h) => h.dispose()));
  });
  suiteTeardown(() => fs.rmSync(root, { recursive: true, force: true }));

  function chatWith(env: Record<string, string>, setup: WorkspaceSessionSetup): { chat: ChatSession; host: AgentHost } {
    const def: AgentDefinition = { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env };
    const host = new AgentHost(def, {
      cwd: folderA,
      clientInfo: { name: 'hermes-acp-tests', version: '0.0.0' },
      ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
    });
    const chat = new ChatSession({ host, cwd: folderA, consent: { allow: () => Promise.resolve(true) }, t: formatMessage, setup });
    hosts.push(host);
    chats.push(chat);
    return { chat, host };
  }

  const windowSetup = (folders: string[] = [folderA]): WorkspaceSessionSetup => new WorkspaceSessionSetup(prompt, memorySecrets(), () => undefined, () => folders);

  test('an agent advertising http gets the stdio and the http server; the input is asked once and never logged', async () => {
    const setup = windowSetup();
    const { chat, host } = chatWith({ SCRIPTED_AGENT_MCP: 'http', SCRIPTED_AGENT_STATE_FILE: path.join(root, 'state.json') }, setup);
    assert.equal(await chat.ensureStarted(), true);
    const [params] = sentParams(host, 'session/new');
    assert.deepEqual(params?.mcpServers, [
      { name: 'files', command: process.execPath, args: [`${folderA}/server.js`], env: [] },
      { type: 'http', name: 'remote', url: 'https://mcp.example.test/mcp', headers: [{ name: 'Authorization', value: '«redacted»' }] },
    ]);
    assert.deepEqual(chat.mcpServers, {
      passed: [
        { name: 'files', transport: 'stdio' },
        { name: 'remote', transport: 'http' },
      ],
      skipped: [],
    });

    // A second chat (and a load) in the same window: the answer is reused, not asked again.
    const id = chat.sessionId ?? '';
    await chat.submit([{ type: 'text', text: 'hello' }]);
    const second = chatWith({ SCRIPTED_AGENT_MCP: 'http', SCRIPTED_AGENT_STATE_FILE: path.join(root, 'state.json') }, setup);
    assert.equal(await second.chat.open(id), true);
    const [loaded] = sentParams(second.host, 'session/load');
    assert.equal((loaded?.mcpServers as unknown[] | undefined)?.length, 2, 'session/load carries the servers too');
    assert.deepEqual(asked, ['token'], 'asked once');

    for (const h of [host, second.host]) {
      const all = h.log.snapshot().map((e) => `${e.text ?? ''}\n${e.note ?? ''}`).join('\n');
      assert.ok(!all.includes(token), 'the token is nowhere in the traffic log (requests, or the agent echoing it on stderr)');
      assert.ok(all.includes('session/new mcpServers') || all.includes('session/load'), 'the log was looked at');
    }
  });

  test('an agent without http gets only the stdio server; the http one is named as left out, with why', async () => {
    const { chat, host } = chatWith({}, windowSetup());
    assert.equal(await chat.ensureStarted(), true);
    const [params] = sentParams(host, 'session/new');
    assert.deepEqual(
      (params?.mcpServers as { name: string }[]).map((s) => s.name),
      ['files'],
    );
    assert.deepEqual(chat.mcpServers?.passed, [{ name: 'files', transport: 'stdio' }]);
    assert.deepEqual(chat.mcpServers?.skipped, [{ name: 'remote', reason: 'Scripted does not take http MCP servers (mcpCapabilities.http is not advertised)' }]);
    assert.deepEqual(asked, ['token'], 'the input is still resolved (the server is built before filtering)');
  });

  test('two workspace folders: additionalDirectories names the other one when advertised, and is absent otherwise', async () => {
    const withCap = chatWith({ SCRIPTED_AGENT_ADDITIONAL_DIRS: '1' }, windowSetup([folderA, folderB]));
    assert.equal(await withCap.chat.ensureStarted(), true);
    const [params] = sentParams(withCap.host, 'session/new');
    assert.equal(params?.cwd, folderA);
    assert.deepEqual(params?.additionalDirectories, [folderB]);

    const without = chatWith({}, windowSetup([folderA, folderB]));
    assert.equal(await without.chat.ensureStarted(), true);
    const [plain] = sentParams(without.host, 'session/new');
    assert.equal('additionalDirectories' in (plain ?? {}), false);
  });
});
