import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { WorkspaceBoundary } from '../../src/acp/workspaceBoundary';
import { promptBlocks } from '../../src/views/chat/promptAttachments';
import type { ChatSession } from '../../src/app/chatSession';
import { api, isAlive, lastAssistantText, useScriptedAgent, waitFor } from './support';
import { tempDir } from '../support/tempDirs';

function userTexts(chat: ChatSession): string[] {
  return chat.controller.state.entries.flatMap((e) => (e.kind === 'user' ? [e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')] : []));
}

suite('sessions around a turn (scripted agent, real extension)', () => {
  const stateFile = path.join(tempDir('hermes-sessions-'), 'agent-state.json');

  suiteSetup(async () => {
    await useScriptedAgent({ SCRIPTED_AGENT_STATE_FILE: stateFile }, 'sessions');
  });

  test('forks at the end (agent-native session/fork): both sessions continue independently', async () => {
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    await waitFor('session', () => chat.sessionId);
    await chat.submit([{ type: 'text', text: 'first question [plain]' }]);
    const forked = await a.manager.forkAndOpen(chat);
    assert.ok(forked !== undefined);
    await waitFor('fork session', () => forked.sessionId);
    assert.notEqual(forked.sessionId, chat.sessionId);
    assert.deepEqual(userTexts(forked), ['first question [plain]'], 'the fork shows the same history');
    assert.equal(forked.controller.state.title, 'Fork of first question [plain]', 'untitled source: named after its first prompt until the agent names it');
    const [r1, r2] = await Promise.all([
      chat.submit([{ type: 'text', text: 'original continues [plain]' }]),
      forked.submit([{ type: 'text', text: 'fork continues [plain]' }]),
    ]);
    assert.equal(r1?.kind, 'ended');
    assert.equal(r2?.kind, 'ended');
    assert.deepEqual(userTexts(chat), ['first question [plain]', 'original continues [plain]']);
    assert.deepEqual(userTexts(forked), ['first question [plain]', 'fork continues [plain]']);
  });

  test('forks from an earlier message with the transcript, labelled, original untouched', async () => {
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    await waitFor('session', () => chat.sessionId);
    await chat.submit([{ type: 'text', text: 'message one [plain]' }]);
    await chat.submit([{ type: 'text', text: 'message two [plain]' }]);
    const second = chat.controller.state.entries.filter((e) => e.kind === 'user')[1];
    assert.ok(second !== undefined);
    const { chat: forked, draft } = await a.manager.forkChat(chat, second.id);
    assert.equal(draft, 'message two [plain]');
    assert.deepEqual(userTexts(forked), ['message one [plain]']);
    assert.ok(forked.controller.state.entries.some((e) => e.kind === 'notice' && e.title.includes('Forked with transcript')));
    assert.equal(forked.controller.state.title, 'Fork of message one [plain]');
    await forked.submit([{ type: 'text', text: 'a different second message [plain]' }]);
    assert.equal(forked.controller.state.phase, 'idle');
    const sent = a.manager.allHosts.flatMap((h) => h.log.snapshot()).filter((e) => e.dir === 'out' && e.method === 'session/prompt').at(-1);
    assert.match(sent?.text ?? '', /forked from an earlier conversation/);
    assert.match(sent?.text ?? '', /message one/);
    assert.deepEqual(userTexts(chat), ['message one [plain]', 'message two [plain]'], 'the original is untouched');
    await a.manager.closeChat(forked);
  });

  test('lists sessions and loads one with its replay shown once', async () => {
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    await waitFor('session', () => chat.sessionId);
    await chat.submit([{ type: 'text', text: 'remember this [title text=Listed session] [plain]' }]);
    const id = chat.sessionId;
    assert.ok(id !== undefined);
    await waitFor('title', () => chat.controller.state.title === 'Listed session');
    const assistantCount = chat.controller.state.entries.filter((e) => e.kind === 'assistant').length;
    const { sessions, listed } = await a.manager.listSessions(chat.host.definition);
    assert.ok(listed);
    assert.ok(sessions.some((s) => s.sessionId === id && s.title === 'Listed session'));
    await a.manager.closeChat(chat);
    const reopened = await a.manager.openSession(id, chat.host.definition);
    assert.deepEqual(userTexts(reopened), ['remember this [title text=Listed session] [plain]']);
    assert.equal(reopened.controller.state.entries.filter((e) => e.kind === 'assistant').length, assistantCount);
    assert.equal(reopened.controller.state.title, 'Listed session');
  });

  test('mode and model changes round-trip; a refused model shows the agent message', async () => {
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    await waitFor('session', () => chat.sessionId);
    await chat.controller.setMode('accept_edits');
    assert.equal(chat.controller.state.modes?.currentModeId, 'accept_edits');
    await chat.controller.setModel('scripted:smart');
    assert.equal(chat.controller.state.models?.currentModelId, 'scripted:smart');
    a.manager.handleWebviewMessage({ type: 'model/set', modelId: 'nope:model' }, chat);
    const notice = await waitFor('refusal notice', () => chat.controller.state.entries.find((e) => e.kind === 'notice' && e.title.includes('refused the change')));
    assert.match(notice.kind === 'notice' ? (notice.detail ?? '') : '', /unknown model id/);
  });

  test('slash commands are listed from the agent and sent as plain text', async () => {
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    await waitFor('commands', () => chat.controller.state.commands.length > 0 && chat.controller.state.commands);
    assert.ok(chat.controller.state.commands.some((c) => c.name === 'help'));
    await chat.submit([{ type: 'text', text: '/help' }]);
    const sent = chat.host.log.snapshot().filter((e) => e.method === 'session/prompt' && e.dir === 'out').at(-1);
    assert.match(sent?.text ?? '', /"text":"\/help"/);
  });

  test('an @file attachment becomes a resource_link with an absolute file URI; files outside the workspace are refused', async () => {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? '';
    const file = path.join(root, 'mentioned.ts');
    fs.writeFileSync(file, 'export const m = 1;\n');
    const boundary = new WorkspaceBoundary(() => [root]);
    const check = async (p: string): Promise<string> => (await boundary.resolve(p, 'read')).realPath;
    const { blocks } = await promptBlocks('look at this', [{ path: file, label: 'mentioned.ts' }], { embedded: false, check });
    assert.deepEqual(blocks[1], { type: 'resource_link', uri: vscode.Uri.file(fs.realpathSync(file)).toString(), name: 'mentioned.ts' });
    assert.ok(path.isAbsolute(vscode.Uri.parse((blocks[1] as { uri: string }).uri).fsPath));
    const embedded = await promptBlocks('look', [{ path: file, label: 'mentioned.ts', startLine: 1, endLine: 1 }], { embedded: true, check });
    assert.equal(embedded.blocks[1]?.type, 'resource');
    const outside = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-attach-'));
    fs.writeFileSync(path.join(outside, 'secret.txt'), 'secret');
    fs.symlinkSync(outside, path.join(root, 'escape-link'));
    try {
      for (const p of [path.join(outside, 'secret.txt'), path.join(root, 'escape-link', 'secret.txt'), `${root}${'/..'.repeat(root.split('/').length)}${outside}/secret.txt`]) {
        const r = await promptBlocks('look', [{ path: p, label: 'secret.txt' }], { embedded: true, check });
        assert.equal(r.blocks.length, 1, `${p} must not be attached`);
        assert.equal(r.refused.length, 1);
        assert.match(r.refused[0]?.reason ?? '', /outside|workspace/i);
      }
    } finally {
      fs.rmSync(path.join(root, 'escape-link'));
      fs.rmSync(outside, { recursive: true, force: true });
    }
  });

  test('two sessions stream concurrently on one agent process', async () => {
    const a = await api();
    const one = await a.manager.newSidebarSession();
    const two = a.manager.createChat();
    await Promise.all([waitFor('one', () => one.sessionId), two.ensureStarted()]);
    assert.equal(one.host, two.host, 'sessions are multiplexed on one agent process');
    const t0 = Date.now();
    const [r1, r2] = await Promise.all([
      one.submit([{ type: 'text', text: '[slow n=6 ms=100]' }]),
      two.submit([{ type: 'text', text: '[slow n=6 ms=100]' }]),
    ]);
    const elapsed = Date.now() - t0;
    assert.equal(r1?.kind, 'ended');
    assert.equal(r2?.kind, 'ended');
    assert.ok(elapsed < 1100, `both turns ran side by side (${elapsed} ms, one alone takes ~600 ms)`);
    assert.match(lastAssistantText(one), /tick 6/);
    assert.match(lastAssistantText(two), /tick 6/);
    await a.manager.closeChat(two);
  });

  test('agent killed mid-turn: the chat shows it, the agent restarts and the same chat is restored from session/load', async () => {
    const a = await api();
    const chat = await a.manager.newSidebarSession();
    await waitFor('session', () => chat.sessionId);
    await chat.submit([{ type: 'text', text: 'before the crash [plain]' }]);
    const pid = chat.host.pid;
    assert.ok(pid !== undefined);
    const turn = chat.submit([{ type: 'text', text: '[slow n=50 ms=100]' }]);
    await waitFor('streaming', () => lastAssistantText(chat).includes('tick 2'));
    process.kill(pid, 'SIGKILL');
    const result = await turn;
    assert.equal(result?.kind, 'interrupted');
    const notice = await waitFor('exit notice', () => chat.controller.state.entries.find((e) => e.kind === 'notice' && /killed|exited/.test(e.title)));
    assert.ok(notice.kind === 'notice' && notice.actions?.includes('restartAgent'));
    assert.equal(isAlive(pid), false);
    await waitFor('restarted', () => chat.host.pid !== undefined && chat.host.pid !== pid && chat.controller.state.phase === 'idle', 20_000);
    const users = userTexts(chat);
    assert.deepEqual(users, ['before the crash [plain]', '[slow n=50 ms=100]'], 'nothing lost, nothing duplicated');
    const footer = chat.controller.state.entries.find((e) => e.kind === 'turnEnd' && e.outcome === 'interrupted');
    assert.ok(footer !== undefined, 'the interrupted turn is marked');
    const again = await chat.submit([{ type: 'text', text: 'after the restart [plain]' }]);
    assert.equal(again?.kind, 'ended');
  });
});
