/**
 * Why an agent did not start, in the chat (issue 37): its last stderr lines and what they likely
 * mean, one card per failure, for any agent. The agents are replays of real starts
 * (test/fixtures/startFailures): npx running the ACP Registry's Gemini CLI entry, whose version npm
 * does not have (npx exits 1, ETARGET), and Claude Code ACP 0.16.0 started as root (it answers
 * `initialize`, prints its refusal on stderr and never answers `session/new`).
 */
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { AgentHost, type AgentDefinition } from '../../../src/host/agentHost';
import type { RequestTimeouts } from '../../../src/acp/acpConnection';
import { ChatSession } from '../../../src/app/chatSession';
import type { NoticeEntry } from '../../../src/session/sessionState';
import { formatMessage } from '../../../src/util/l10n';
import { tempWorkspace } from '../../support/agentStack';
import { fixturesDir, repoRoot, scriptedAgentPath } from '../../support/paths';

const recordedStart = path.join(repoRoot, 'out', 'test', 'agents', 'recordedStart.js');
const recording = (name: string): string => path.join(fixturesDir, 'startFailures', name);

function replayOf(name: string, file: string): AgentDefinition {
  return { id: name.toLowerCase().replace(/\W+/g, '-'), name, command: process.execPath, args: [recordedStart, recording(file)], env: {} };
}

const notices = (chat: ChatSession): NoticeEntry[] => chat.controller.state.entries.filter((e): e is NoticeEntry => e.kind === 'notice');

suite('start failures: the agent\'s stderr and its likely cause, one card per failure', function () {
  this.timeout(60_000);
  const ws = tempWorkspace('hermes-start-');
  const hosts: AgentHost[] = [];
  const chats: ChatSession[] = [];

  function chatWith(def: AgentDefinition, timeouts?: Partial<RequestTimeouts>): { chat: ChatSession; statuses: string[] } {
    const host = new AgentHost(def, {
      cwd: ws,
      clientInfo: { name: 'hermes-acp-tests', version: '0.0.0' },
      ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
      ...(timeouts !== undefined ? { timeouts } : {}),
    });
    hosts.push(host);
    const chat = new ChatSession({ host, cwd: ws, consent: { allow: () => Promise.resolve(true) }, t: formatMessage });
    chats.push(chat);
    const statuses: string[] = [];
    chat.onDidChange(() => {
      const s = chat.status;
      if (s !== undefined && statuses.at(-1) !== s) {
        statuses.push(s);
      }
    });
    return { chat, statuses };
  }

  teardown(async () => {
    for (const c of chats.splice(0)) {
      c.dispose();
    }
    await Promise.all(hosts.splice(0).map((h) => h.dispose()));
  });

  test('npx exits 1 on a version npm does not have: one card, npm\'s lines, "ETARGET" named', async () => {
    const { chat } = chatWith(replayOf('Gemini CLI', 'npx-gemini-cli-0.27.3-etarget.jsonl'));
    assert.equal(await chat.ensureStarted(), false);
    const cards = notices(chat);
    assert.equal(cards.length, 1, `one card: ${JSON.stringify(cards.map((c) => c.title))}`);
    const card = cards[0]!;
    assert.equal(card.level, 'error');
    assert.equal(card.title, 'Gemini CLI exited while starting (code 1).');
    assert.match(card.detail ?? '', /^Likely cause: The package version @google\/gemini-cli@0\.27\.3 does not exist on the npm registry \(ETARGET\)\. The agent's entry names a version that was never published/);
    assert.match(card.log ?? '', /npm error code ETARGET\nnpm error notarget No matching version found for @google\/gemini-cli@0\.27\.3\./);
    assert.deepEqual(card.actions, ['showTraffic', 'checkInstallation', 'restartAgent']);
  });

  test('Claude Code as root never answers session/new: the card shows its refusal, and the status said it at once', async () => {
    const { chat, statuses } = chatWith(replayOf('Claude Code', 'claude-code-acp-0.16.0-root.jsonl'), { session: 2_000 });
    assert.equal(await chat.ensureStarted(), false);
    const cards = notices(chat);
    assert.equal(cards.length, 1);
    const card = cards[0]!;
    assert.equal(card.title, 'Claude Code did not answer `session/new` within 2 s.');
    assert.match(card.detail ?? '', /^Likely cause: The agent refuses to run as root\. VS Code \(or its server, on a remote\) runs as root here\./);
    assert.equal(card.log, '--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons');
    assert.ok(statuses.includes('Starting a session with Claude Code… The agent refuses to run as root.'), `the status named the cause before the deadline: ${JSON.stringify(statuses)}`);
    assert.equal(chat.controller.state.phase, 'new', 'no longer "Starting…" once the card says why');
  });

  test('benign twin: the scripted agent, whose stderr has log lines, starts without a card', async () => {
    const { chat } = chatWith({ id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: {} });
    assert.equal(await chat.ensureStarted(), true);
    assert.deepEqual(notices(chat), []);
  });

  test('an agent exiting later, with a session, is still its own crash card (not silenced)', async () => {
    const { chat } = chatWith({ id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env: {} });
    assert.equal(await chat.ensureStarted(), true);
    const pid = chat.host.pid;
    assert.ok(pid !== undefined);
    process.kill(pid, 'SIGKILL');
    const deadline = Date.now() + 5_000;
    while (notices(chat).length === 0 && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(notices(chat).map((n) => n.title), ['The agent was killed by SIGKILL.']);
  });
});
