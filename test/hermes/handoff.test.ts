/**
 * "Continue with another agent…" (issue 40) between the real Hermes v0.19.0 of the lab (ACP) and
 * the scripted agent, both ways, on the chat layer: what the receiving agent got — the scripted
 * agent's `[received]`, and the request Hermes sent its model. Run by `npm run test:hermes`.
 */
import * as assert from 'node:assert/strict';
import { ChatSession } from '../../src/app/chatSession';
import { handoffChat } from '../../src/app/handoffChat';
import { scopeFor } from '../../src/app/settingsScope';
import { AgentHost, type AgentDefinition } from '../../src/host/agentHost';
import { connectTransport } from '../../src/host/connectTransport';
import { briefBudget } from '../../src/session/handoff';
import type { AssistantEntry } from '../../src/session/sessionState';
import { formatMessage } from '../../src/util/l10n';
import { scriptedAgentPath } from '../support/paths';
import { protocols, type Reached } from './protocols';
import { labScope } from './tier';

const scripted: AgentDefinition = { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: { SCRIPTED_AGENT_CHUNK_DELAY_MS: '0' } };

const lastReply = (chat: ChatSession): string =>
  chat.controller.state.entries
    .filter((e): e is AssistantEntry => e.kind === 'assistant')
    .at(-1)
    ?.parts.map((p) => (p.kind === 'text' ? p.text : ''))
    .join('') ?? '';

suite('lab tier: hand-off between the real Hermes (ACP) and the scripted agent', function () {
  this.timeout(240_000);
  const chats: ChatSession[] = [];
  const hosts: AgentHost[] = [];
  const scope = labScope('handoff', async () => {
    for (const c of chats.splice(0)) {
      c.dispose();
    }
    await Promise.all(hosts.splice(0).map((h) => h.dispose()));
  });
  let hermes: Reached;
  suiteSetup(async function () {
    this.timeout(180_000);
    const acp = protocols.find((p) => p.name === 'acp');
    assert.ok(acp !== undefined);
    hermes = await acp.reach(scope.run, scope.run.home());
  });

  const newChat = (def: AgentDefinition, cwd: string): ChatSession => {
    const host = new AgentHost(def, {
      cwd,
      clientInfo: { name: 'hermes-acp-lab-tier', version: '0' },
      ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
      env: { ...(def.id === hermes.definition.id ? hermes.hostEnv : {}), ...scope.marker },
      connectTransport,
    });
    hosts.push(host);
    const chat = new ChatSession({ host, cwd, consent: { allow: () => Promise.resolve(true) }, t: formatMessage, settingsScope: () => scopeFor('ssh-remote') });
    chats.push(chat);
    return chat;
  };

  test('Hermes hands its conversation to the scripted agent: an embedded resource with Hermes’ prompt and reply', async () => {
    const source = newChat(hermes.definition, scope.ws);
    const turn = await source.submit([{ type: 'text', text: '[plain] Say hello.' }]);
    assert.equal(turn?.kind, 'ended');
    const { chat, brief, as } = await handoffChat({ source, target: scripted, summary: false, newChat, t: formatMessage });
    assert.equal(as, 'resource');
    await chat.submit([{ type: 'text', text: '[received]' }]);
    const reply = lastReply(chat);
    assert.match(reply, /^Received 2 block\(s\):\n- resource hermes-acp:\/\/handoff\/\S+\.md text\/markdown/);
    for (const part of ['another coding agent, Hermes (lab, ACP)', '[plain] Say hello.', 'Hello from the fake model!']) {
      assert.ok(reply.includes(part) && brief.text.includes(part), `the scripted agent received “${part}”`);
    }
  });

  test('the scripted agent hands its conversation to Hermes: as text (Hermes takes no embedded context), and Hermes’ model reads it', async () => {
    const source = newChat(scripted, scope.ws);
    await source.submit([{ type: 'text', text: 'Make a plan [plan]' }]);
    const { chat, as, budgetChars } = await handoffChat({ source, target: hermes.definition, summary: false, newChat, t: formatMessage });
    assert.equal(as, 'text');
    assert.equal(budgetChars, briefBudget(chat.controller.state.usage?.size), 'sized by the window Hermes reported (or the default before it did)');
    const turn = await chat.submit([{ type: 'text', text: 'What now?' }]);
    assert.equal(turn?.kind, 'ended');
    // The lab's model answers a prompt without its markers "echo: <the user message's first 200 characters>".
    assert.match(lastReply(chat), /^echo: You are taking over a conversation that the user had with another coding agent, Scripted, in the folder/);
    const request = scope.run.model.requests.at(-1);
    assert.match(request?.user ?? '', /^You are taking over a conversation/);
  });
});
