import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { Configuration } from '../../src/views/configuration';
import type { ChatSession } from '../../src/app/chatSession';
import type { HermesApi } from '../../src/extension';
import { api, extension, isAlive, lastAssistantText, useScriptedAgent, waitFor } from './support';

/** A new side bar chat on the scripted agent, its session started and the status bar ready. */
async function readySidebarChat(): Promise<{ a: HermesApi; chat: ChatSession }> {
  await useScriptedAgent();
  const a = await api();
  await vscode.commands.executeCommand('hermes.newSession');
  const chat = a.manager.sidebar;
  await waitFor('the agent ready', () => chat.sessionId !== undefined && a.statusBar.state === 'ready');
  return { a, chat };
}

interface Manifest {
  contributes: { commands: { command: string }[] };
  activationEvents: string[];
}

suite('extension in a real VS Code', () => {
  test('activates lazily and registers exactly the contributed commands', async () => {
    const manifest = JSON.parse(fs.readFileSync(path.join(extension().extensionPath, 'package.json'), 'utf8')) as Manifest;
    assert.ok(!manifest.activationEvents.includes('*'), 'no * activation');
    const a = await api();
    console.log(`activate() took ${a.activationMs.toFixed(1)} ms`);
    const contributed = manifest.contributes.commands.map((c) => c.command).sort();
    const registered = (await vscode.commands.getCommands(true)).filter((c) => c.startsWith('hermes.') && !c.startsWith('hermes.chatView') && !c.startsWith('hermes.changesView')).sort();
    assert.deepEqual(registered, contributed);
  });

  test('spawns the configured agent and runs a turn through the chat', async () => {
    await useScriptedAgent();
    const a = await api();
    await vscode.commands.executeCommand('hermes.newSession');
    const chat = a.manager.sidebar;
    await waitFor('session', () => chat.sessionId);
    const pid = await waitFor('agent pid', () => chat.host.pid);
    assert.ok(isAlive(pid));
    assert.deepEqual(chat.host.definition.args.slice(-1)[0]?.endsWith('scriptedAgent.js'), true);
    const result = await chat.submit([{ type: 'text', text: 'Hello from the host test [plain]' }]);
    assert.equal(result?.kind, 'ended');
    assert.match(lastAssistantText(chat), /Hello/);
    assert.equal(a.statusBar.state, 'ready');
  });

  test('the status bar follows the active chat\'s agent: Select Agent (a new side bar chat) renames it at once', async () => {
    await useScriptedAgent();
    const a = await api();
    await vscode.commands.executeCommand('hermes.newSession');
    await waitFor('the first agent ready', () => a.statusBar.state === 'ready');
    assert.match(a.statusBar.text, /\bScripted$/);
    const other = { id: 'other', name: 'Other Scripted', command: a.manager.sidebar.host.definition.command, args: [...a.manager.sidebar.host.definition.args], env: { ...a.manager.sidebar.host.definition.env } };
    const chat = await a.manager.newSidebarSession(other);
    assert.match(a.statusBar.text, /Other Scripted$/, `named at once: ${a.statusBar.text}`);
    await waitFor('the other agent ready', () => chat.sessionId !== undefined && a.statusBar.state === 'ready');
    assert.match(a.statusBar.text, /Other Scripted$/);
  });

  test('a streamed reply does not post the status bar or its context keys once per chunk', async () => {
    const { a, chat } = await readySidebarChat();
    const before = a.statusBar.posts;
    let changes = 0;
    const busyTexts = new Set<string>();
    const sub = chat.onDidChange(() => {
      changes++;
      if (a.statusBar.state === 'busy') {
        busyTexts.add(a.statusBar.text);
      }
    });
    // Chunks 10 ms apart: most change the chat on their own (the controller coalesces what arrives together).
    const result = await chat.submit([{ type: 'text', text: '[slow n=60 ms=10]' }]);
    sub.dispose();
    assert.equal(result?.kind, 'ended');
    assert.match(lastAssistantText(chat), /tick 60/);
    const posts = a.statusBar.posts - before;
    // Busy, then ready again: the item twice, the agent state and "turn running" twice each.
    console.log(`status bar: ${posts} posts for ${changes} changes of the chat`);
    assert.ok(changes >= 20, `${changes} changes of the chat`);
    assert.ok(posts <= 8, `${posts} posts to the workbench for ${changes} changes of the chat`);
    // Busy for the whole turn, and still: a spinning icon there kept the workbench compositing frames.
    assert.ok(busyTexts.size > 0, 'the item showed the turn running');
    for (const text of busyTexts) {
      assert.doesNotMatch(text, /~spin\)/, `the busy item spins: ${text}`);
    }
    assert.equal(a.statusBar.state, 'ready');
    assert.match(a.statusBar.text, /\bScripted$/);
  });

  test('the traffic channel follows a change of hermes.trace at once (the level is not read per streamed update)', async () => {
    const { a, chat } = await readySidebarChat();
    const config = vscode.workspace.getConfiguration('hermes');
    /** Sets `hermes.trace`; the host's copy of the settings (and so the change event) is current when it reads back. */
    const setTrace = async (level: string | undefined): Promise<void> => {
      await config.update('trace', level, vscode.ConfigurationTarget.Global);
      await waitFor(`hermes.trace = ${level ?? 'default'}`, () => vscode.workspace.getConfiguration('hermes').get('trace') === (level ?? 'messages'));
    };
    const linesFor = async (): Promise<number> => {
      const before = a.traffic.linesWritten;
      const result = await chat.submit([{ type: 'text', text: '[slow n=30 ms=5]' }]);
      assert.equal(result?.kind, 'ended');
      return a.traffic.linesWritten - before;
    };
    try {
      await setTrace('verbose');
      const verbose = await linesFor();
      await setTrace('messages');
      const messages = await linesFor();
      await setTrace('verbose');
      const verboseAgain = await linesFor();
      console.log(`traffic lines for a 30-chunk turn: verbose ${verbose}, messages ${messages}, verbose again ${verboseAgain}`);
      assert.ok(verbose >= 30 && verboseAgain >= 30, `verbose writes every streamed update (${verbose}, ${verboseAgain} lines)`);
      assert.ok(messages < 10, `messages sums the streamed updates up (${messages} lines)`);
    } finally {
      await setTrace(undefined);
    }
  });

  test('says plainly when the agent binary is missing', async () => {
    const config = vscode.workspace.getConfiguration('hermes');
    await config.update('agents', [{ id: 'missing', name: 'Missing', command: 'hermes-not-installed-here', args: ['acp'] }], vscode.ConfigurationTarget.Global);
    await config.update('defaultAgent', 'missing', vscode.ConfigurationTarget.Global);
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    const notice = await waitFor('notice', () => chat.controller.state.entries.find((e) => e.kind === 'notice'));
    assert.equal(notice.kind, 'notice');
    assert.match(notice.kind === 'notice' ? notice.title : '', /`hermes-not-installed-here` was not found on PATH/);
    // code-server is a remote window (remoteName = its host:port): the notice points at the Remote settings.
    const scope = vscode.env.remoteName !== undefined && vscode.env.remoteName !== '' ? 'openRemoteSettings' : 'openSettings';
    assert.deepEqual(notice.kind === 'notice' ? notice.actions : [], ['setupAgent', scope, 'checkInstallation', 'useDemoAgent']);
    assert.equal(a.statusBar.state, 'error');
  });

  test('Set Up Agent’s write lands in the scope this window reads, replaces only its own entry, and never the workspace’s', async () => {
    await useScriptedAgent({}, 'kept');
    const config = new Configuration(extension().extensionPath);
    await config.saveAgent({ id: 'hermes', name: 'Hermes', command: '/opt/hermes/bin/hermes', args: ['acp'], env: {} });
    await config.saveAgent({ id: 'hermes', name: 'Hermes', command: '/opt/hermes2/bin/hermes', args: ['acp'], env: {} });
    const inspected = vscode.workspace.getConfiguration('hermes').inspect<{ id: string; command: string }[]>('agents');
    assert.deepEqual(inspected?.globalValue?.map((a) => a.id), ['kept', 'hermes'], 'one entry per id, the others kept');
    assert.equal(inspected?.workspaceValue, undefined);
    assert.equal(config.agents().agents.find((a) => a.id === 'hermes')?.command, '/opt/hermes2/bin/hermes', 'read back from where it was written');
  });

  test('turns "No LLM provider configured" into a Set Up Provider notice', async () => {
    await useScriptedAgent({ SCRIPTED_AGENT_NO_PROVIDER: '1' }, 'noprovider');
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    const notice = await waitFor('notice', () => chat.controller.state.entries.find((e) => e.kind === 'notice'));
    assert.match(notice.kind === 'notice' ? notice.title : '', /no LLM provider configured/);
    assert.ok(notice.kind === 'notice' && notice.actions?.includes('setupProvider'));
  });

  test('Check Installation runs --check and --version with the configured command', async () => {
    await useScriptedAgent({}, 'checked');
    const results = await vscode.commands.executeCommand<{ command: string; ok: boolean; output: string }[]>('hermes.checkInstallation');
    assert.equal(results.length, 2);
    assert.ok(results.every((r) => r.ok), JSON.stringify(results));
    assert.match(results[0]?.output ?? '', /check OK/);
    assert.match(results[1]?.output ?? '', /1\.0\.0/);
  });
});
