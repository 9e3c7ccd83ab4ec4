/**
 * Issue 17 (edges) — the prompt deadline cancels the turn the ACP way: a notice, pending permissions
 * answered `cancelled`, `session/cancel`, and the turn ends `cancelled` with the agent's own answer.
 * A real scripted agent and a short injected deadline; checked in the traffic log and the agent's log.
 */
import type * as acp from '@agentclientprotocol/sdk';
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { AgentHost, type AgentDefinition } from '../../../src/host/agentHost';
import { ChatSession } from '../../../src/app/chatSession';
import { defaultTimeouts } from '../../../src/acp/requestGuard';
import { defaultPromptDeadlineMs } from '../../../src/session/turnDeadline';
import type { NoticeEntry } from '../../../src/session/sessionState';
import { formatMessage } from '../../../src/util/l10n';
import { tempWorkspace } from '../../support/agentStack';
import { scriptedAgentPath } from '../../support/paths';
import { until } from '../../support/wait';

const stderr = (host: AgentHost): string[] => host.log.snapshot().flatMap((e) => (e.dir === 'stderr' && e.text !== undefined ? [e.text] : []));
const sent = (host: AgentHost, method: string): number => host.log.snapshot().filter((e) => e.dir === 'out' && e.method === method).length;

suite('issue 17: the prompt deadline sends session/cancel and waits for the agent', function () {
  this.timeout(60_000);
  const ws = tempWorkspace('hermes-deadline-');
  const hosts: AgentHost[] = [];
  const chats: ChatSession[] = [];

  async function chatWithDeadline(ms: number): Promise<{ host: AgentHost; chat: ChatSession }> {
    const def: AgentDefinition = { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: {} };
    // Permission requests reach the chat, where nobody answers them: only the deadline's cancel does.
    const route: { to?: ChatSession } = {};
    const ports = { permission: { requestPermission: (req: acp.RequestPermissionRequest) => route.to?.controller.requestPermission(req) ?? Promise.reject(new Error('no chat yet')) } };
    const host = new AgentHost(def, { cwd: ws, clientInfo: { name: 'hermes-acp-tests', version: '0.0.0' }, ports });
    hosts.push(host);
    const chat = new ChatSession({ host, cwd: ws, consent: { allow: () => Promise.resolve(true) }, t: formatMessage, promptDeadlineMs: ms });
    route.to = chat;
    chats.push(chat);
    assert.equal(await chat.ensureStarted(), true);
    return { host, chat };
  }

  const deadlineNotices = (chat: ChatSession): NoticeEntry[] =>
    chat.controller.state.entries.filter((e): e is NoticeEntry => e.kind === 'notice' && e.title.includes('ran past its deadline'));

  teardown(async () => {
    chats.splice(0).forEach((c) => c.dispose());
    await Promise.all(hosts.splice(0).map((h) => h.dispose()));
  });
  suiteTeardown(() => fs.rmSync(ws, { recursive: true, force: true }));

  test('the connection gives the agent a grace period past the session deadline', () => {
    assert.ok(defaultTimeouts.prompt > defaultPromptDeadlineMs, `${defaultTimeouts.prompt} <= ${defaultPromptDeadlineMs}`);
  });

  test('a turn streaming past the deadline is cancelled: notice, session/cancel, stopReason cancelled', async () => {
    const { host, chat } = await chatWithDeadline(800);
    const result = await chat.submit([{ type: 'text', text: '[slow n=600 ms=100]' }]);
    assert.equal(result?.kind, 'ended');
    assert.equal(result?.kind === 'ended' ? result.stopReason : undefined, 'cancelled');
    assert.equal(sent(host, 'session/cancel'), 1);
    const notices = deadlineNotices(chat);
    assert.equal(notices.length, 1);
    assert.equal(notices[0]?.level, 'warning');
    assert.match(notices[0]?.title ?? '', /\(1 s\); the agent was asked to stop/);
    assert.equal(chat.controller.state.phase, 'idle');
    // The chat goes on: the next turn is not cut short by the old timer.
    const next = await chat.submit([{ type: 'text', text: '[plain]' }]);
    assert.equal(next?.kind === 'ended' ? next.stopReason : undefined, 'end_turn');
    assert.equal(sent(host, 'session/cancel'), 1);
  });

  test('a permission pending at the deadline is answered cancelled before session/cancel ends the turn', async () => {
    const { host, chat } = await chatWithDeadline(800);
    let asked = 0;
    chat.controller.onPermissionRequested(() => asked++);
    const result = await chat.submit([{ type: 'text', text: '[command cmd=rm -r ./build]' }]);
    assert.equal(asked, 1, 'the request waited for the user');
    assert.equal(result?.kind === 'ended' ? result.stopReason : undefined, 'cancelled');
    assert.equal(chat.controller.pendingPermissions.length, 0);
    assert.equal(sent(host, 'session/cancel'), 1);
    await until('the agent logged the cancelled answer', () => stderr(host).some((l) => /permission \S+ answered .*"cancelled"/.test(l)), 10_000);
    assert.equal(deadlineNotices(chat).length, 1);
  });

  test('a turn that ends in time sends no cancel and adds no notice', async () => {
    const { host, chat } = await chatWithDeadline(30_000);
    const result = await chat.submit([{ type: 'text', text: '[plain]' }]);
    assert.equal(result?.kind === 'ended' ? result.stopReason : undefined, 'end_turn');
    assert.equal(sent(host, 'session/cancel'), 0);
    assert.equal(deadlineNotices(chat).length, 0);
  });
});
