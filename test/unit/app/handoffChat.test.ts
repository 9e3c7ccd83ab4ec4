/**
 * "Continue with another agent…" (issue 40) on the chat layer, with real agent processes: a chat of
 * one scripted agent hands its conversation to a new chat of another, which reports (`[received]`)
 * exactly what its first prompt carried.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import type { ChatSession } from '../../../src/app/chatSession';
import { handoffChat, SUMMARY_REQUEST } from '../../../src/app/handoffChat';
import { briefBudget } from '../../../src/session/handoff';
import { contextWindow } from '../../agents/textScenarios';
import type { AgentDefinition } from '../../../src/host/agentHost';
import type { NoticeEntry } from '../../../src/session/sessionState';
import { formatMessage } from '../../../src/util/l10n';
import { tempWorkspace } from '../../support/agentStack';
import { HeadlessChats, lastReplyText } from '../../support/headlessChats';
import { scriptedAgentPath } from '../../support/paths';

function agent(id: string, name: string, env: Record<string, string> = {}): AgentDefinition {
  return { id, name, command: process.execPath, args: [scriptedAgentPath], env: { SCRIPTED_AGENT_CHUNK_DELAY_MS: '0', ...env } };
}

const notices = (chat: ChatSession): NoticeEntry[] => chat.controller.state.entries.filter((e): e is NoticeEntry => e.kind === 'notice');

suite('hand-off to another agent with real agent processes (issue 40)', function () {
  this.timeout(60_000);
  const ws = tempWorkspace('hermes-handoff-');
  const chats = new HeadlessChats('hermes-acp-tests');
  const newChat = chats.open;

  teardown(() => chats.dispose());
  suiteTeardown(() => fs.rmSync(ws, { recursive: true, force: true }));

  async function conversation(): Promise<ChatSession> {
    const source = newChat(agent('scripted-a', 'Agent A'), ws);
    await source.submit([{ type: 'text', text: 'Please make a plan [plan]' }]);
    await source.submit([{ type: 'text', text: 'and say hello' }]);
    return source;
  }

  test('the second agent receives the conversation as an embedded Markdown resource, in the same cwd, and the chats say so', async () => {
    const source = await conversation();
    const { chat, brief, as } = await handoffChat({ source, target: agent('scripted-b', 'Agent B'), summary: false, newChat, t: formatMessage });
    assert.equal(as, 'resource');
    assert.equal(chat.cwd, ws);
    assert.equal(chat.handedOffFrom, source);
    assert.equal(brief.turns, 2);
    assert.equal(brief.keptTurns, 2);
    assert.deepEqual(chat.contextNotes.map((n) => n.key), ['handoff']);
    const note = notices(chat).at(-1);
    assert.equal(note?.title, 'Continued from “Please make a plan [plan]” with Agent A.');
    assert.match(note?.detail ?? '', /conversation so far \(2 turn\(s\)\), as an attached document/);
    assert.deepEqual(note?.actions, ['openHandoffSource']);
    assert.match(notices(source).at(-1)?.title ?? '', /Handed off to Agent B in a new chat/);

    await chat.submit([{ type: 'text', text: 'Carry on [received]' }]);
    const reply = lastReplyText(chat);
    assert.match(reply, /^Received 2 block\(s\):\n- resource hermes-acp:\/\/handoff\/[^ ]+\.md text\/markdown, \d+ chars\n- text, 19 chars/);
    const received = /~~~~markdown\n([\s\S]*)\n~~~~/.exec(reply)?.[1] ?? '';
    assert.equal(received, brief.text, 'the agent got the brief as it was built');
    for (const part of ['Agent A', 'Please make a plan [plan]', 'and say hello', 'You said: and say hello', '## Current plan']) {
      assert.ok(received.includes(part), `the second agent received ${part}`);
    }
    assert.deepEqual(chat.contextNotes, [], 'the brief went once');
  });

  test('an agent without embedded context gets the brief as text; the budget comes from its context window', async () => {
    const source = await conversation();
    const { chat, brief, as, budgetChars } = await handoffChat({ source, target: agent('scripted-c', 'Agent C', { SCRIPTED_AGENT_NO_EMBEDDED: '1' }), summary: false, newChat, t: formatMessage });
    assert.equal(as, 'text');
    // The scripted agent reports a 131,072-token window right after session/new (as Hermes does).
    assert.equal(budgetChars, briefBudget(contextWindow));
    assert.match(notices(chat).at(-1)?.detail ?? '', /as text/);
    await chat.submit([{ type: 'text', text: '[received]' }]);
    // The client joins the context's text and the typed text into one block: the brief, then the message.
    assert.equal(lastReplyText(chat), `Received 1 block(s):\n- text, ${brief.text.length + '[received]'.length} chars`);
  });

  test('with a summary: the first agent writes it in its own chat, and only the summary is handed over (to an agent that reports no window: the default budget)', async () => {
    const source = await conversation();
    const target = agent('scripted-b', 'Agent B', { SCRIPTED_AGENT_NO_START_USAGE: '1' });
    const { chat, brief, budgetChars } = await handoffChat({ source, target, summary: true, newChat, t: formatMessage });
    assert.equal(budgetChars, briefBudget(undefined));
    // The scripted agent echoes a prompt without markers: its "summary" is that echo, as a real agent's reply would be.
    assert.equal(lastReplyText(source), `You said: ${SUMMARY_REQUEST}`);
    assert.equal(brief.keptTurns, 0);
    assert.match(brief.text, /## Summary written by Agent A\n\nYou said: Another coding agent is about to take over/);
    assert.doesNotMatch(brief.text, /and say hello/);
    assert.match(notices(chat).at(-1)?.detail ?? '', /a summary the previous agent wrote/);
  });

  test('a summary is refused while the first agent is still working; nothing is started', async () => {
    const source = newChat(agent('scripted-a', 'Agent A'), ws);
    const turn = source.submit([{ type: 'text', text: 'work slowly [slow]' }]);
    await new Promise((r) => setTimeout(r, 300));
    const before = chats.count;
    await assert.rejects(handoffChat({ source, target: agent('scripted-b', 'Agent B'), summary: true, newChat, t: formatMessage }), /Agent A is still working/);
    assert.equal(chats.count, before, 'no new chat');
    await source.cancel();
    await turn;
  });
});
