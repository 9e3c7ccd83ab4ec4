/**
 * "Continue with another agent…" (issue 40) between the real Hermes v0.19.0 of the lab (ACP) and
 * the scripted agent, both ways, on the chat layer: what the receiving agent got — the scripted
 * agent's `[received]`, and the request Hermes sent its model. Run by `npm run test:hermes`.
 */
import * as assert from 'node:assert/strict';
import { handoffChat } from '../../src/app/handoffChat';
import type { AgentDefinition } from '../../src/host/agentHost';
import { connectTransport } from '../../src/host/connectTransport';
import { briefBudget } from '../../src/session/handoff';
import { formatMessage } from '../../src/util/l10n';
import { HeadlessChats, lastReplyText } from '../support/headlessChats';
import { scriptedAgentPath } from '../support/paths';
import { protocols, type Reached } from './protocols';
import { labScope } from './tier';

const scripted: AgentDefinition = { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: { SCRIPTED_AGENT_CHUNK_DELAY_MS: '0' } };

suite('lab tier: hand-off between the real Hermes (ACP) and the scripted agent', function () {
  this.timeout(240_000);
  const chats = new HeadlessChats('hermes-acp-lab-tier', (def) => ({
    env: { ...(def.id === hermes.definition.id ? hermes.hostEnv : {}), ...scope.marker },
    connectTransport,
  }));
  const scope = labScope('handoff', () => chats.dispose());
  let hermes: Reached;
  suiteSetup(async function () {
    this.timeout(180_000);
    const acp = protocols.find((p) => p.name === 'acp');
    assert.ok(acp !== undefined);
    hermes = await acp.reach(scope.run, scope.run.home());
  });

  const newChat = chats.open;

  test('Hermes hands its conversation to the scripted agent: an embedded resource with Hermes’ prompt and reply', async () => {
    const source = newChat(hermes.definition, scope.ws);
    const turn = await source.submit([{ type: 'text', text: '[plain] Say hello.' }]);
    assert.equal(turn?.kind, 'ended');
    const { chat, brief, as } = await handoffChat({ source, target: scripted, summary: false, newChat, t: formatMessage });
    assert.equal(as, 'resource');
    await chat.submit([{ type: 'text', text: '[received]' }]);
    const reply = lastReplyText(chat);
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
    assert.match(lastReplyText(chat), /^echo: You are taking over a conversation that the user had with another coding agent, Scripted, in the folder/);
    const request = scope.run.model.requests.at(-1);
    assert.match(request?.user ?? '', /^You are taking over a conversation/);
  });
});
