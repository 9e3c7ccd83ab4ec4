/**
 * Issue 17 (edges) — changing an agent's definition never leaves a dead chat: an open chat keeps its
 * process (and is told so, with "Reconnect with the new settings"); the reconnect restores the
 * session on the new definition's process with `session/load` into the same chat; the old process
 * goes once no chat uses it. Real scripted agents sharing a state file, so the new process can load.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import type { AgentDefinition, AgentHost } from '../../../src/host/agentHost';
import type { AgentHosts } from '../../../src/app/agentHosts';
import { ChatRegistry } from '../../../src/app/chatRegistry';
import { ChatSession } from '../../../src/app/chatSession';
import type { NoticeEntry } from '../../../src/session/sessionState';
import { formatMessage } from '../../../src/util/l10n';
import { tempWorkspace } from '../../support/agentStack';
import { scriptedAgentPath } from '../../support/paths';
import { chatHosts } from '../../support/chatHosts';
import { until } from '../../support/wait';

const sent = (host: AgentHost, method: string): string[] => host.log.snapshot().flatMap((e) => (e.dir === 'out' && e.method === method ? [e.text ?? ''] : []));
const alive = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

suite('issue 17: redefining an agent under an open chat', function () {
  this.timeout(60_000);
  const ws = tempWorkspace('hermes-redefine-');
  let registry: ChatRegistry;
  let hosts: AgentHosts;
  let reports: string[];

  const def = (flavour: string): AgentDefinition => ({
    id: 'scripted',
    name: 'Scripted',
    command: process.execPath,
    args: [scriptedAgentPath],
    env: { SCRIPTED_AGENT_STATE_FILE: path.join(ws, 'state.json'), SCRIPTED_FLAVOUR: flavour },
  });

  setup(() => {
    registry = new ChatRegistry();
    reports = [];
    hosts = chatHosts(registry, ws, (m) => reports.push(m));
  });

  teardown(async () => {
    registry.disposeAll();
    await hosts.dispose();
  });
  suiteTeardown(() => fs.rmSync(ws, { recursive: true, force: true }));

  async function openChat(host: AgentHost): Promise<ChatSession> {
    const chat = new ChatSession({ host, cwd: ws, consent: { allow: () => Promise.resolve(true) }, t: formatMessage });
    registry.add(chat);
    const r = await chat.submit([{ type: 'text', text: 'first question [plain]' }]);
    assert.equal(r?.kind === 'ended' ? r.stopReason : undefined, 'end_turn');
    return chat;
  }

  const settingsNotices = (chat: ChatSession): NoticeEntry[] =>
    chat.controller.state.entries.filter((e): e is NoticeEntry => e.kind === 'notice' && e.title.includes('settings changed'));
  const userTexts = (chat: ChatSession): string[] =>
    chat.controller.state.entries.flatMap((e) => (e.kind === 'user' ? [JSON.stringify(e)] : []));

  test('the open chat keeps its process, is told why, and still answers a prompt there', async () => {
    const oldHost = hosts.hostFor(def('one'));
    const chat = await openChat(oldHost);
    const oldPid = oldHost.pid;
    assert.ok(oldPid !== undefined);

    const newHost = hosts.hostFor(def('two'));
    assert.notEqual(newHost, oldHost);
    assert.equal(oldHost.state.kind, 'ready', 'the old host was not disposed under the chat');
    assert.equal(chat.host, oldHost);
    const notices = settingsNotices(chat);
    assert.equal(notices.length, 1);
    assert.equal(notices[0]?.title, 'Scripted’s settings changed. This chat keeps using the running agent until you reconnect.');
    assert.deepEqual(notices[0]?.actions, ['reconnectAgent']);

    const r = await chat.submit([{ type: 'text', text: 'second question [plain]' }]);
    assert.equal(r?.kind === 'ended' ? r.stopReason : undefined, 'end_turn');
    assert.equal(sent(oldHost, 'session/prompt').length, 2);
    assert.equal(newHost.state.kind, 'notStarted');
    assert.ok(alive(oldPid));
  });

  test('"Reconnect with the new settings" loads the session on the new process into the same chat; the old process goes', async () => {
    const oldHost = hosts.hostFor(def('one'));
    const chat = await openChat(oldHost);
    const sessionId = chat.sessionId ?? '';
    const oldPid = oldHost.pid ?? -1;
    const newHost = hosts.hostFor(def('two'));
    const before = userTexts(chat);
    assert.equal(before.length, 1);

    assert.equal(await hosts.reconnect(chat), true);
    assert.equal(chat.host, newHost);
    assert.equal(chat.sessionId, sessionId, 'the same session, not a new one');
    const loads = sent(newHost, 'session/load');
    assert.equal(loads.length, 1);
    assert.match(loads[0] ?? '', new RegExp(`"sessionId":"${sessionId}"`));
    assert.equal(sent(newHost, 'session/new').length, 0);
    assert.deepEqual(userTexts(chat), before, 'the history is shown once, not twice');

    await until('the old process is gone', () => !alive(oldPid), 10_000);
    assert.equal(oldHost.pid, undefined);

    const r = await chat.submit([{ type: 'text', text: 'after the reconnect [plain]' }]);
    assert.equal(r?.kind === 'ended' ? r.stopReason : undefined, 'end_turn');
    assert.equal(sent(newHost, 'session/prompt').length, 1);
    assert.equal(reports.length, 0, reports.join('\n'));
  });

  test('closing the last chat on the old process disposes it; a host nobody uses is replaced at once', async () => {
    const oldHost = hosts.hostFor(def('one'));
    const chat = await openChat(oldHost);
    const oldPid = oldHost.pid ?? -1;
    hosts.hostFor(def('two'));
    assert.ok(alive(oldPid));
    await registry.close(chat, () => Promise.resolve());
    await hosts.release(oldHost);
    await until('the old process is gone', () => !alive(oldPid), 10_000);

    const idle = hosts.hostFor(def('two'));
    await idle.start();
    const idlePid = idle.pid ?? -1;
    hosts.hostFor(def('three'));
    await until('the unused process is gone', () => !alive(idlePid), 10_000);
  });
});
