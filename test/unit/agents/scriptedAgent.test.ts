import * as acp from '@agentclientprotocol/sdk';
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { ProcessPool, scriptedAgentJs, TestClient, withTimeout } from './agentHarness';

interface Usage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
}

function usageOf(response: unknown): Usage {
  assert.ok(typeof response === 'object' && response !== null && 'usage' in response);
  const u = response.usage;
  assert.ok(typeof u === 'object' && u !== null && 'inputTokens' in u && 'outputTokens' in u && 'totalTokens' in u);
  assert.ok(typeof u.inputTokens === 'number' && typeof u.outputTokens === 'number' && typeof u.totalTokens === 'number');
  return { inputTokens: u.inputTokens, outputTokens: u.outputTokens, totalTokens: u.totalTokens };
}

function isRequestError(err: unknown, code: number): boolean {
  return err instanceof acp.RequestError && err.code === code;
}

suite('scripted agent', () => {
  const pool = new ProcessPool();
  let workDir: string;

  setup(() => {
    workDir = mkdtempSync(path.join(tmpdir(), 'scripted-agent-'));
  });

  teardown(async () => {
    await pool.killAll();
    rmSync(workDir, { recursive: true, force: true });
  });

  async function start(env: Record<string, string> = {}, caps: acp.ClientCapabilities = {}): Promise<TestClient> {
    const client = new TestClient(pool.spawn(scriptedAgentJs, [], env));
    await client.initialize(caps);
    return client;
  }

  async function newSession(client: TestClient, cwd = workDir): Promise<string> {
    const r = await client.agent.request('session/new', { cwd, mcpServers: [] });
    return r.sessionId;
  }

  function prompt(client: TestClient, sessionId: string, text: string): Promise<acp.PromptResponse> {
    return client.agent.request('session/prompt', { sessionId, prompt: [{ type: 'text', text }] });
  }

  test('--version, --check and --setup print a line and exit 0', () => {
    const run = (flag: string): { status: number | null; stdout: string } => {
      const r = spawnSync(process.execPath, [scriptedAgentJs, flag], { encoding: 'utf8' });
      return { status: r.status, stdout: r.stdout };
    };
    assert.deepEqual(run('--version'), { status: 0, stdout: '1.0.0\n' });
    assert.deepEqual(run('--check'), { status: 0, stdout: 'Scripted agent check OK\n' });
    const setup = run('--setup');
    assert.equal(setup.status, 0);
    assert.match(setup.stdout, /setup/);
  });

  test('initialize advertises Hermes-like capabilities and a terminal auth method', async () => {
    const client = new TestClient(pool.spawn(scriptedAgentJs));
    const init = await client.initialize({ fs: { readTextFile: true } });
    assert.equal(init.protocolVersion, 1);
    assert.deepEqual(init.agentInfo, { name: 'scripted-agent', title: 'Scripted test agent', version: '1.0.0' });
    assert.equal(init.agentCapabilities?.loadSession, true);
    assert.deepEqual(init.agentCapabilities?.promptCapabilities, { image: true, embeddedContext: true });
    assert.deepEqual(Object.keys(init.agentCapabilities?.sessionCapabilities ?? {}).sort(), ['close', 'fork', 'list', 'resume']);
    assert.deepEqual(init.authMethods, [
      {
        id: 'scripted-setup',
        name: 'Configure scripted agent',
        description: 'Runs the scripted agent with --setup in a terminal (stands in for `hermes acp --setup`).',
        type: 'terminal',
        args: ['--setup'],
      },
    ]);
  });

  test('session/new answers modes and legacy models, then sends commands and usage after the response', async () => {
    const client = await start();
    const r = await client.agent.request('session/new', { cwd: workDir, mcpServers: [] });
    client.mark('response');
    assert.match(r.sessionId, /^sess-\d+-[0-9a-f]{8}$/);
    assert.equal(r.modes?.currentModeId, 'default');
    assert.deepEqual(r.modes?.availableModes.map((m) => m.id), ['default', 'accept_edits', 'dont_ask']);
    assert.deepEqual((r as Record<string, unknown>).models, {
      availableModels: [
        { modelId: 'scripted:fast', name: 'fast', description: 'Provider: Scripted • quick replies' },
        { modelId: 'scripted:smart', name: 'smart', description: 'Provider: Scripted • careful replies' },
      ],
      currentModelId: 'scripted:fast',
    });
    await client.waitForUpdate((u) => u.sessionUpdate === 'usage_update');
    const kinds = client.events.map((e) => (e.kind === 'mark' ? e.label : e.params.update.sessionUpdate));
    assert.deepEqual(kinds, ['response', 'available_commands_update', 'usage_update']);
    const commands = client.updates().find((u) => u.sessionUpdate === 'available_commands_update');
    assert.ok(commands?.sessionUpdate === 'available_commands_update');
    assert.deepEqual(commands.availableCommands.map((c) => c.name), ['help', 'model', 'plan', 'review']);
  });

  test('[plain] streams at least five chunks of one message and ends the turn with cumulative usage', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    const first = await prompt(client, sessionId, '[plain] Say hello.');
    assert.equal(first.stopReason, 'end_turn');
    const chunks = client.updates(sessionId).filter((u) => u.sessionUpdate === 'agent_message_chunk');
    assert.ok(chunks.length >= 5, `only ${chunks.length} chunks`);
    const ids = new Set(chunks.map((c) => (c.sessionUpdate === 'agent_message_chunk' ? c.messageId : undefined)));
    assert.equal(ids.size, 1);
    assert.ok([...ids][0]?.startsWith('msg-'));
    assert.match(client.messageText(sessionId), /^Hello from the scripted agent!/);

    const second = await prompt(client, sessionId, 'no marker here');
    assert.match(client.messageText(sessionId), /You said: no marker here$/);
    const u1 = usageOf(first);
    const u2 = usageOf(second);
    assert.ok(u2.inputTokens > u1.inputTokens && u2.outputTokens > u1.outputTokens, 'usage is cumulative');
    assert.equal(u2.totalTokens, u2.inputTokens + u2.outputTokens);
  });

  test('[command] asks with five Hermes options and echoes the chosen option id', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    const turn = prompt(client, sessionId, '[command cmd=rm -r ./scratch] clean up');
    const perm = await client.nextPermission();
    assert.equal(perm.params.toolCall.toolCallId, 'perm-check-1');
    assert.equal(perm.params.toolCall.kind, 'execute');
    assert.deepEqual(perm.params.toolCall.rawInput, { command: 'rm -r ./scratch' });
    assert.deepEqual(
      perm.params.options.map((o) => `${o.optionId}:${o.kind}`),
      ['allow_once:allow_once', 'allow_session:allow_always', 'allow_always:allow_always', 'deny:reject_once', 'deny_always:reject_always'],
    );
    perm.answer({ outcome: { outcome: 'selected', optionId: 'allow_session' } });
    const r = await turn;
    assert.equal(r.stopReason, 'end_turn');
    assert.match(client.messageText(sessionId), /You chose allow_session\./);
    const toolUpdates = client.updates(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update');
    assert.equal(toolUpdates.at(-1)?.sessionUpdate === 'tool_call_update' ? toolUpdates.at(-1)?.status : undefined, 'completed');
    await client.proc.waitForStderr(
      /\[scripted-agent\] permission perm-check-1 answered \{"outcome":\{"outcome":"selected","optionId":"allow_session"\}\}/,
    );

    // allow_session is remembered for the same command in this session: no second prompt.
    await prompt(client, sessionId, '[command cmd=rm -r ./scratch] again');
    assert.match(client.messageText(sessionId), /Already approved earlier \(allow_session\)/);
  });

  test('a denied [command] fails the tool call', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    const turn = prompt(client, sessionId, '[command cmd=rm -rf /tmp/x]');
    (await client.nextPermission()).answer({ outcome: { outcome: 'selected', optionId: 'deny' } });
    await turn;
    const last = client.updates(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update').at(-1);
    assert.ok(last?.sessionUpdate === 'tool_call_update');
    assert.equal(last.status, 'failed');
    assert.match(client.messageText(sessionId), /You chose deny\./);
  });

  test('session/cancel stops [slow] promptly with stopReason cancelled', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    const turn = prompt(client, sessionId, '[slow n=100 ms=50]');
    await client.waitForUpdate((u) => u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text === 'tick 2\n');
    const sent = Date.now();
    await client.agent.notify('session/cancel', { sessionId });
    const r = await withTimeout(turn, 2000, 'cancelled prompt');
    assert.equal(r.stopReason, 'cancelled');
    assert.ok(Date.now() - sent < 1000, 'cancel took too long');
    assert.ok(!client.messageText(sessionId).includes('tick 100'));
  });

  test('cancel while a permission is pending: the turn ends and the client answer is logged', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    const turn = prompt(client, sessionId, '[command cmd=rm -r build]');
    const perm = await client.nextPermission();
    await client.agent.notify('session/cancel', { sessionId });
    // ACP prompt-turn: the client MUST answer pending permission requests with `cancelled`.
    perm.answer({ outcome: { outcome: 'cancelled' } });
    const r = await withTimeout(turn, 2000, 'cancelled prompt');
    assert.equal(r.stopReason, 'cancelled');
    // The open tool call is closed before the response.
    const last = client.updates(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update').at(-1);
    assert.ok(last?.sessionUpdate === 'tool_call_update' && last.status === 'failed');
    await client.proc.waitForStderr(/permission perm-check-1 answered \{"outcome":\{"outcome":"cancelled"\}\}/);
  });

  test('[crash when=mid code=7] exits with that code after some chunks', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    const turn = prompt(client, sessionId, '[crash when=mid mode=exit code=7]');
    const exit = await withTimeout(client.proc.exited, 5000, 'exit');
    assert.deepEqual(exit, { code: 7, signal: null });
    await assert.rejects(turn);
    assert.match(client.proc.stderr, /\[scripted-agent\] about to crash/);
    assert.equal(client.messageText(sessionId), 'Working on it ');
  });

  test('[crash mode=kill] dies by SIGKILL', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    const turn = prompt(client, sessionId, '[crash mode=kill]');
    const exit = await withTimeout(client.proc.exited, 5000, 'exit');
    assert.equal(exit.signal, 'SIGKILL');
    await assert.rejects(turn);
  });

  test('a new process loads a session from the state file, replaying history before the response', async () => {
    const stateFile = path.join(workDir, 'state.json');
    const first = await start({ SCRIPTED_AGENT_STATE_FILE: stateFile });
    const sessionId = await newSession(first);
    await prompt(first, sessionId, '[thought] [plain]');
    await prompt(first, sessionId, '[tools] [plan]');
    await first.proc.kill();

    const second = await start({ SCRIPTED_AGENT_STATE_FILE: stateFile });
    await second.agent.request('session/load', { sessionId, cwd: workDir, mcpServers: [] });
    second.mark('response');
    const before: SessionUpdate[] = [];
    for (const e of second.events) {
      if (e.kind === 'mark') {
        break;
      }
      before.push(e.params.update);
    }
    const kinds = new Set(before.map((u) => u.sessionUpdate));
    for (const k of ['user_message_chunk', 'agent_thought_chunk', 'agent_message_chunk', 'tool_call', 'tool_call_update', 'plan']) {
      assert.ok(kinds.has(k as SessionUpdate['sessionUpdate']), `no ${k} before the load response`);
    }
    const userTexts = before.flatMap((u) => (u.sessionUpdate === 'user_message_chunk' && u.content.type === 'text' ? [u.content.text] : []));
    assert.deepEqual(userTexts, ['[thought] [plain]', '[tools] [plan]']);
    // Streamed chunks are replayed as whole messages.
    const replayedText = before.flatMap((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? [u.content.text] : []));
    assert.ok(replayedText.some((t) => t.startsWith('Hello from the scripted agent! This is a plain reply')));

    // The loaded session accepts prompts.
    const r = await prompt(second, sessionId, '[plain]');
    assert.equal(r.stopReason, 'end_turn');
  });

  test('session/load of an unknown id fails with -32002', async () => {
    const client = await start();
    await assert.rejects(
      client.agent.request('session/load', { sessionId: 'sess-404', cwd: workDir, mcpServers: [] }),
      (err: unknown) => isRequestError(err, -32002),
    );
  });

  test('session/list filters by cwd and pages with an opaque cursor', async () => {
    const client = await start({ SCRIPTED_AGENT_LIST_PAGE_SIZE: '2' });
    const a = path.join(workDir, 'a');
    const b = path.join(workDir, 'b');
    const created = [await newSession(client, a), await newSession(client, b), await newSession(client, a), await newSession(client, a)];
    const all: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await client.agent.request('session/list', cursor === undefined ? {} : { cursor });
      pages += 1;
      assert.ok(page.sessions.length <= 2);
      for (const s of page.sessions) {
        all.push(s.sessionId);
        assert.ok(typeof s.updatedAt === 'string' && !Number.isNaN(Date.parse(s.updatedAt)));
        assert.equal(typeof s.title, 'string');
      }
      cursor = page.nextCursor ?? undefined;
    } while (cursor !== undefined);
    assert.equal(pages, 2);
    assert.deepEqual([...all].sort(), [...created].sort());

    const onlyA = await client.agent.request('session/list', { cwd: a });
    assert.equal(onlyA.sessions.length, 2);
    assert.ok(onlyA.nextCursor != null);
    assert.ok(onlyA.sessions.every((s) => s.cwd === a));
  });

  test('legacy session/set_model refuses unknown model ids with -32602', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    assert.deepEqual(await client.agent.request('session/set_model', { sessionId, modelId: 'scripted:smart' }), {});
    await assert.rejects(client.agent.request('session/set_model', { sessionId, modelId: 'gpt-nope' }), (err: unknown) => {
      return isRequestError(err, -32602) && err instanceof Error && err.message.includes("unknown model id 'gpt-nope'");
    });
  });

  test('with SCRIPTED_AGENT_CONFIG_OPTIONS, set_config_option answers the complete list', async () => {
    const client = await start({ SCRIPTED_AGENT_CONFIG_OPTIONS: '1' }, { session: { configOptions: { boolean: {} } } });
    const r = await client.agent.request('session/new', { cwd: workDir, mcpServers: [] });
    assert.equal(r.modes, undefined);
    assert.deepEqual(r.configOptions?.map((o) => `${o.id}:${o.type}`), ['mode:select', 'model:select', 'fast:boolean']);
    const set = await client.agent.request('session/set_config_option', { sessionId: r.sessionId, configId: 'fast', type: 'boolean', value: true });
    assert.equal(set.configOptions.length, 3);
    assert.equal(set.configOptions.find((o) => o.id === 'fast')?.currentValue, true);
  });

  test('SCRIPTED_AGENT_NO_PROVIDER makes session/new fail like Hermes without credentials', async () => {
    const client = await start({ SCRIPTED_AGENT_NO_PROVIDER: '1' });
    await assert.rejects(client.agent.request('session/new', { cwd: workDir, mcpServers: [] }), (err: unknown) => {
      if (!(err instanceof acp.RequestError) || err.code !== -32603) {
        return false;
      }
      const data = err.data as { details?: unknown } | undefined;
      return typeof data?.details === 'string' && data.details.startsWith('No LLM provider configured. Run `hermes model`');
    });
  });

  test('[error] and [ratelimit] fail the prompt with the JSON-RPC error', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    await assert.rejects(prompt(client, sessionId, '[error code=-32042 message=scripted failure]'), (err: unknown) => {
      return isRequestError(err, -32042) && err instanceof Error && err.message === 'scripted failure';
    });
    await assert.rejects(prompt(client, sessionId, '[ratelimit]'), (err: unknown) => {
      return isRequestError(err, -32603) && err instanceof acp.RequestError && JSON.stringify(err.data) === '{"httpStatus":429,"message":"Rate limit reached"}';
    });
    const r = await prompt(client, sessionId, '[refusal]');
    assert.equal(r.stopReason, 'refusal');
  });

  test('[edit] asks with a new edit-approval id and writes the file itself when allowed', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    const file = path.join(workDir, 'hello.txt');
    writeFileSync(file, 'hello world\n');
    const turn = prompt(client, sessionId, '[edit path=hello.txt text=hello ACP\\n]');
    const perm = await client.nextPermission();
    assert.equal(perm.params.toolCall.toolCallId, 'edit-approval-1');
    assert.deepEqual(perm.params.toolCall.content, [{ type: 'diff', path: file, oldText: 'hello world\n', newText: 'hello ACP\n' }]);
    assert.deepEqual(perm.params.options.map((o) => o.optionId), ['allow_once', 'deny']);
    const announced = client.updates(sessionId).find((u) => u.sessionUpdate === 'tool_call');
    assert.ok(announced?.sessionUpdate === 'tool_call' && /^tc-[0-9a-f]{12}$/.test(announced.toolCallId));
    perm.answer({ outcome: { outcome: 'selected', optionId: 'allow_once' } });
    await turn;
    assert.equal(readFileSync(file, 'utf8'), 'hello ACP\n');
    // Like Hermes 0.19, no completion for the edit tool call without complete=yes.
    assert.equal(client.updates(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update').length, 0);
  });

  test('[permission-timeout] gives up, reports the expiry and ends the turn normally', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    const turn = prompt(client, sessionId, '[permission-timeout ms=200 path=never.txt]');
    await client.nextPermission();
    const r = await withTimeout(turn, 3000, 'prompt');
    assert.equal(r.stopReason, 'end_turn');
    const last = client.updates(sessionId).filter((u) => u.sessionUpdate === 'tool_call_update').at(-1);
    assert.ok(last?.sessionUpdate === 'tool_call_update' && last.status === 'failed');
    assert.ok(!existsSync(path.join(workDir, 'never.txt')));
  });

  test('[write] goes through client fs and reports the client error', async () => {
    const client = await start({}, { fs: { readTextFile: true, writeTextFile: true } });
    const sessionId = await newSession(client);
    const file = path.join(workDir, 'notes.txt');
    client.files.set(file, 'old\n');
    await prompt(client, sessionId, '[write path=notes.txt text=new\\n]');
    assert.equal(client.files.get(file), 'new\n');
    assert.deepEqual(client.fsCalls, [
      { method: 'fs/read_text_file', path: file },
      { method: 'fs/write_text_file', path: file },
    ]);
    client.failWrites = 'disk is read-only';
    await prompt(client, sessionId, '[write path=notes.txt text=newer]');
    assert.match(client.messageText(sessionId), /fs\/write_text_file failed: disk is read-only/);
  });

  test('[terminal] runs sh -c through the client terminal and reports the exit code', async () => {
    const client = await start({}, { terminal: true });
    const sessionId = await newSession(client);
    await prompt(client, sessionId, '[terminal cmd=echo hi; exit 3]');
    assert.deepEqual(
      client.terminalCalls.map((c) => c.method).filter((m, i, all) => m !== 'terminal/output' || all[i - 1] !== 'terminal/output'),
      ['terminal/create', 'terminal/output', 'terminal/wait_for_exit', 'terminal/output', 'terminal/release'],
    );
    const create = client.terminalCalls[0]?.params as { command: string; args: string[]; cwd: string };
    assert.deepEqual([create.command, create.args, create.cwd], ['sh', ['-c', 'echo hi; exit 3'], workDir]);
    assert.match(client.messageText(sessionId), /exited with code 3/);
    const embedded = client.updates(sessionId).some((u) => u.sessionUpdate === 'tool_call_update' && u.content?.some((c) => c.type === 'terminal'));
    assert.ok(embedded);
  });

  test('[title] sends session_info_update after the prompt response', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    await prompt(client, sessionId, '[title text=My Title]');
    client.mark('response');
    await client.waitForUpdate((u) => u.sessionUpdate === 'session_info_update');
    const labels = client.events.map((e) => (e.kind === 'mark' ? e.label : e.params.update.sessionUpdate));
    assert.ok(labels.indexOf('session_info_update') > labels.indexOf('response'));
    const list = await client.agent.request('session/list', {});
    assert.equal(list.sessions.find((s) => s.sessionId === sessionId)?.title, 'My Title');
  });

  test('[garbage] on stdout does not stop the reply from arriving', async () => {
    const client = await start();
    const sessionId = await newSession(client);
    // The SDK reports the stray response on console.error; capture it instead of printing it.
    const logged: string[] = [];
    const original = console.error;
    console.error = (...parts: unknown[]): void => {
      logged.push(parts.map(String).join(' '));
    };
    try {
      const r = await prompt(client, sessionId, '[garbage]');
      assert.equal(r.stopReason, 'end_turn');
    } finally {
      console.error = original;
    }
    assert.equal(client.messageText(sessionId), 'Some garbage was written between these chunks.');
    assert.ok(logged.some((l) => l.includes('Got response to unknown request 987654321')), logged.join('\n'));
    // The client answered the non-JSON lines with -32700 (id null), which the agent's SDK logged.
    await client.proc.waitForStderr(/Got response to unknown request null/);
  });
});
