/**
 * The chat layer (ChatSession on an AgentHost, as ChatManager wires them, without VS Code) with real
 * agent processes: the replay agent on recorded Hermes frames, and the scripted agent.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { AgentHost, type AgentDefinition } from '../../../src/host/agentHost';
import type { Entry, NoticeEntry } from '../../../src/session/sessionState';
import { ChatSession } from '../../../src/app/chatSession';
import type { TurnResult } from '../../../src/session/sessionController';
import { scopeFor } from '../../../src/app/settingsScope';
import { formatMessage } from '../../../src/util/l10n';
import { tempWorkspace } from '../../support/agentStack';
import { recorded, writeFixture } from '../../support/composedFixture';
import { replayAgentPath, scriptedAgentPath } from '../../support/paths';
import { until } from '../../support/wait';

const loadedSession = '8be82f21-d9fd-429c-a878-1b6526473740';

function hostFor(def: AgentDefinition, cwd: string): AgentHost {
  return new AgentHost(def, {
    cwd,
    clientInfo: { name: 'hermes-acp-tests', version: '0.0.0' },
    ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
  });
}

function replayAgent(fixture: string, cwd: string): AgentDefinition {
  // --stay: the recording's end is not an exit (the chat would report one).
  return { id: 'hermes', name: 'Hermes', command: process.execPath, args: [replayAgentPath, fixture, '--lab', cwd, '--stay'], env: {} };
}

function scriptedAgent(env: Record<string, string> = {}): AgentDefinition {
  return { id: 'scripted', name: 'Scripted', command: process.execPath, args: [scriptedAgentPath], env };
}

function chatOn(host: AgentHost, cwd: string): ChatSession {
  return new ChatSession({ host, cwd, consent: { allow: () => Promise.resolve(true) }, t: formatMessage, settingsScope: () => scopeFor('ssh-remote') });
}

const notices = (chat: ChatSession): NoticeEntry[] => chat.controller.state.entries.filter((e): e is NoticeEntry => e.kind === 'notice');
const users = (chat: ChatSession): Extract<Entry, { kind: 'user' }>[] => chat.controller.state.entries.filter((e) => e.kind === 'user');
const sentMethods = (host: AgentHost): string[] => host.log.snapshot().flatMap((e) => (e.dir === 'out' && e.kind === 'request' && e.method !== undefined ? [e.method] : []));

suite('chat session: history, failed turns and restarts with real agent processes', function () {
  this.timeout(60_000);
  const hosts: AgentHost[] = [];
  const chats: ChatSession[] = [];
  const ws = tempWorkspace('hermes-chat-');
  const track = (host: AgentHost): AgentHost => {
    hosts.push(host);
    return host;
  };
  const chat = (host: AgentHost): ChatSession => {
    const c = chatOn(host, ws);
    chats.push(c);
    return c;
  };

  teardown(async () => {
    for (const c of chats.splice(0)) {
      c.dispose();
    }
    await Promise.all(hosts.splice(0).map((h) => h.dispose()));
  });
  suiteTeardown(() => fs.rmSync(ws, { recursive: true, force: true }));

  test('hermes/load.jsonl opened from the history: every replayed prompt is the user’s, once, without invented footers', async () => {
    // load.jsonl lines 1–39: initialize, then session/load with its replay, response and updates.
    const fixture = writeFixture(path.join(ws, 'load-only.jsonl'), recorded('load', 1, 39));
    const c = chat(track(hostFor(replayAgent(fixture, ws), ws)));
    assert.equal(await c.open(loadedSession), true);
    const u = users(c);
    assert.equal(u.length, 10, 'ten prompts replayed (consecutive chunks are one message)');
    assert.deepEqual([...new Set(u.map((e) => e.origin))], ['replay'], 'none of them is tagged as sent by the agent');
    assert.equal(c.controller.state.entries.filter((e) => e.kind === 'turnEnd').length, 0, 'the replay carries no usage: no footer is invented');
    // The recording ends with `[error500] boom`, replayed without a reply: Hermes still holds it (said above the composer).
    assert.deepEqual(notices(c), []);
    assert.deepEqual(c.controller.state.held, { reason: 'failed', text: '[error500] boom', entryId: u.at(-1)?.id });
    // load.jsonl line 19: Hermes stored the message sent after a cancel merged with it — shown as typed, marked merged.
    const merged = u.find((e) => e.mergedWith !== undefined);
    assert.deepEqual(
      [merged?.blocks, merged?.mergedWith],
      [[{ type: 'text', text: 'actually just say ok' }], { reason: 'cancelled', text: '[slow] Count slowly.' }],
    );
  });

  test('a history open while the chat also auto-starts loads once and never races a session/new', async () => {
    const state = path.join(ws, 'race-state.json');
    const first = chat(track(hostFor(scriptedAgent({ SCRIPTED_AGENT_STATE_FILE: state }), ws)));
    await first.submit([{ type: 'text', text: 'first question [plain]' }]);
    await first.submit([{ type: 'text', text: 'second question' }]);
    const sessionId = first.sessionId;
    assert.ok(sessionId !== undefined);
    await hosts[0]?.dispose();

    // A fresh window: "Show Sessions" picks the session while the side bar's reveal auto-starts the same chat.
    const host = track(hostFor(scriptedAgent({ SCRIPTED_AGENT_STATE_FILE: state }), ws));
    const c = chat(host);
    const opening = c.open(sessionId);
    c.autoStart();
    assert.equal(await c.ensureStarted(), true);
    assert.equal(await opening, true);
    assert.deepEqual(sentMethods(host), ['initialize', 'session/load'], 'one load, no session/new');
    assert.equal(c.sessionId, sessionId);

    // The other order — the chat already starting when the open comes — runs one after the other.
    const late = chat(host);
    late.autoStart();
    assert.equal(await late.open(sessionId), true);
    assert.deepEqual(sentMethods(host).slice(2), ['session/new', 'session/load']);
    assert.equal(late.sessionId, sessionId);
    assert.deepEqual([...new Set(users(late).map((e) => e.origin))], ['replay']);
    assert.equal(await late.ensureStarted(), true);
    assert.equal(sentMethods(host).length, 4, 'nothing started twice');
    assert.deepEqual(
      users(c).map((e) => [e.origin, e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')]),
      [
        ['replay', 'first question [plain]'],
        ['replay', 'second question'],
      ],
    );
  });

  test('hermes/ratelimit.jsonl: each failed turn is one footer; Hermes holds the prompt, and a fresh start forks before the first held one', async () => {
    // ratelimit.jsonl lines 1–16: initialize, session/new, the 429 prompt, and the merged follow-up that fails again.
    const fixture = writeFixture(path.join(ws, 'ratelimit-first.jsonl'), recorded('ratelimit', 1, 16));
    const c = chat(track(hostFor(replayAgent(fixture, ws), ws)));
    await c.submit([{ type: 'text', text: '[ratelimit] hi' }]);
    const failed = users(c)[0];
    assert.deepEqual(notices(c), [], 'no notice beside the footer');
    const footer = c.controller.state.entries.find((e) => e.kind === 'turnEnd');
    assert.deepEqual(footer?.kind === 'turnEnd' ? [footer.outcome, footer.provider?.httpStatus, footer.heldFrom] : [], ['error', 429, failed?.id]);
    assert.deepEqual(c.controller.state.held, { reason: 'failed', text: '[ratelimit] hi', entryId: failed?.id });
    await c.submit([{ type: 'text', text: '[plain] are you there?' }]);
    assert.deepEqual(notices(c), []);
    assert.equal(users(c)[1]?.mergedWith?.entryId, failed?.id, 'sent together with the failed one');
    assert.equal(c.controller.state.held?.entryId, failed?.id, 'the fresh start forks from before the first prompt Hermes still holds');
  });

  test('Restart Agent is a neutral "Restarting …" line; an exit nobody asked for is still an error', async () => {
    const state = path.join(ws, 'restart-state.json');
    const host = track(hostFor(scriptedAgent({ SCRIPTED_AGENT_STATE_FILE: state }), ws));
    const c = chat(host);
    await c.submit([{ type: 'text', text: 'hello' }]);
    c.noteRestart();
    assert.equal(c.status, 'Restarting Scripted…');
    await host.restart();
    assert.equal(await c.ensureStarted(), true);
    assert.equal(c.status, undefined);
    assert.deepEqual(
      notices(c).map((x) => [x.level, x.title, x.actions ?? []]),
      [['info', 'Restarting Scripted…', []]],
    );
    await c.submit([{ type: 'text', text: 'after the restart' }]);
    assert.equal(c.controller.state.phase, 'idle');

    await c.submit([{ type: 'text', text: '[crash mode=kill]' }]);
    const crash = await until('the crash notice', () => notices(c).find((x) => x.level === 'error'));
    assert.deepEqual(crash?.actions, ['restartAgent', 'showTraffic']);
  });

  test('a message sent while the agent starts goes once the session is ready; a second one, or one that cannot go, is reported unsent', async () => {
    const c = chat(track(hostFor(scriptedAgent(), ws)));
    const phases: string[] = [];
    // Both prompts are sent the moment the chat says it is starting (what the composer now allows).
    let sent: Promise<[TurnResult | undefined, TurnResult | undefined]> | undefined;
    const sub = c.controller.onDidChange(() => {
      phases.push(c.controller.state.phase);
      if (c.controller.state.phase === 'starting' && sent === undefined) {
        sent = Promise.all([c.submit([{ type: 'text', text: 'sent while starting' }]), c.submit([{ type: 'text', text: 'a second one' }])]);
      }
    });
    c.autoStart();
    const [first, second] = await until('the chat to say it is starting', () => sent);
    sub.dispose();
    assert.equal(first?.kind === 'ended' ? first.stopReason : first?.kind, 'end_turn');
    assert.equal(second, undefined, 'the second found the session busy: handed back, not sent');
    assert.deepEqual(users(c).map((u) => u.blocks), [[{ type: 'text', text: 'sent while starting' }]]);
    const ready = phases.indexOf('idle');
    assert.ok(phases.indexOf('starting') < ready && ready < phases.indexOf('running'), `sent in "starting", run once ready (${phases.join(' → ')})`);
    assert.equal(sentMethods(c.host).filter((m) => m === 'session/new').length, 1, 'one session, not one per start');
    assert.equal(sentMethods(c.host).filter((m) => m === 'session/prompt').length, 1, 'one prompt on the wire');

    const missing = chat(track(hostFor({ id: 'gone', name: 'Gone', command: 'hermes-not-installed-either', args: ['acp'], env: {} }, ws)));
    missing.autoStart();
    assert.equal(await missing.submit([{ type: 'text', text: 'lost?' }]), undefined, 'unsent: the caller hands it back to the composer');
    assert.equal(users(missing).length, 0);
  });

  test('an agent missing in a remote window names the Remote settings and offers Set Up Agent', async () => {
    const host = track(hostFor({ id: 'hermes', name: 'Hermes', command: 'hermes-not-installed-anywhere', args: ['acp'], env: {} }, ws));
    const c = chat(host);
    assert.equal(await c.ensureStarted(), false);
    const n = notices(c).at(-1);
    assert.equal(n?.level, 'error');
    assert.match(n?.title ?? '', /`hermes-not-installed-anywhere` was not found on PATH of the remote machine \(SSH\)/);
    assert.match(n?.detail ?? '', /reads agent commands \("hermes\.agents"\) from the Remote settings \(SSH\), not from your local User settings/);
    assert.deepEqual(n?.actions, ['setupAgent', 'openRemoteSettings', 'checkInstallation', 'useDemoAgent']);
  });
});
