import * as assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import { quirksFor } from '../../../src/session/agentQuirks';
import type { SessionAction } from '../../../src/session/sessionActions';
import { reduceSession } from '../../../src/session/sessionReducer';
import { initialSessionState, type Entry, type SessionState } from '../../../src/session/sessionState';
import { afterTurn, heldAfterLoad } from '../../../src/app/turnNotices';
import { retryPlan } from '../../../src/app/turnRetry';

const hermes = quirksFor({ name: 'hermes-agent', version: '0.19.0' });
const other = quirksFor({ name: 'claude-code-acp', version: '0.23.1' });

// test/fixtures/hermes/retry.jsonl line 12 (a transient 429) and ratelimit.jsonl line 23 (401).
const rateLimited = 'API call failed after 3 retries: HTTP 429: Rate limit reached (fake)';
const unauthorized = 'HTTP 401: Incorrect API key provided (fake)';
const helpCommand: acp.AvailableCommand = { name: 'help', description: 'List available commands' };

class Session {
  state: SessionState;
  private n = 0;

  constructor(quirks = hermes) {
    this.state = reduceSession(reduceSession(initialSessionState(), { type: 'agentConnected', quirks }), { type: 'sessionStarted', sessionId: 's1' });
    this.state = this.apply({ type: 'updateReceived', id: 'cmds', at: 0, update: { sessionUpdate: 'available_commands_update', availableCommands: [helpCommand] } });
  }

  apply(action: SessionAction): SessionState {
    this.state = reduceSession(this.state, action);
    return this.state;
  }

  /** A prompt (user entry `u<n>`), a streamed reply, then the prompt response. */
  turn(text: string, reply: string, stopReason: acp.StopReason = 'end_turn', usage?: unknown): number {
    const n = ++this.n;
    this.apply({ type: 'promptSubmitted', turnId: n, id: `u${n}`, at: n, blocks: [{ type: 'text', text }] });
    if (reply !== '') {
      this.apply({ type: 'updateReceived', id: `a${n}`, at: n, update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: reply } } });
    }
    this.apply({ type: 'turnEnded', turnId: n, id: `f${n}`, at: n + 0.5, stopReason, ...(usage !== undefined ? { usage } : {}) });
    return n;
  }

  footer(n: number): Extract<Entry, { kind: 'turnEnd' }> {
    const f = this.state.entries.find((e) => e.kind === 'turnEnd' && e.turnId === n);
    assert.ok(f?.kind === 'turnEnd');
    return f;
  }

  user(n: number): Extract<Entry, { kind: 'user' }> {
    const u = this.state.entries.find((e) => e.kind === 'user' && e.turnId === n);
    assert.ok(u?.kind === 'user');
    return u;
  }
}

suite('prompts the agent holds (Hermes: failed and cancelled ones), and what the chat says after a turn', () => {
  test('a provider failure: one footer carries it (the reply text moves there), the prompt is held, Retry forks before it', () => {
    const s = new Session();
    const n = s.turn('Say hello to the team', rateLimited);
    assert.equal(s.state.entries.some((e) => e.kind === 'assistant'), false, 'the report is not shown as the reply');
    assert.equal(s.state.entries.some((e) => e.kind === 'notice'), false, 'no notice beside the footer');
    const f = s.footer(n);
    assert.deepEqual([f.outcome, f.error, f.provider?.kind, f.provider?.transient, f.heldFrom], ['error', rateLimited, 'rateLimit', true, 'u1']);
    assert.deepEqual(s.state.held, { reason: 'failed', text: 'Say hello to the team', entryId: 'u1' });
    assert.deepEqual(retryPlan(s.state, n), { kind: 'fork', fromEntryId: 'u1', blocks: [{ type: 'text', text: 'Say hello to the team' }] });
    assert.deepEqual(afterTurn({ result: { kind: 'ended', stopReason: 'end_turn', response: { stopReason: 'end_turn' } }, turnEntries: s.state.entries, agentName: 'Hermes' }), []);
  });

  test('the next message is sent together with the held one (marked so), a second failure holds from the first, a good turn releases it', () => {
    const s = new Session();
    s.turn('first', rateLimited);
    // retry.jsonl: the model received "first\n\nsecond": Hermes merged them into one message.
    const second = s.turn('second', unauthorized);
    assert.deepEqual(s.user(second).mergedWith, { reason: 'failed', text: 'first', entryId: 'u1' });
    assert.deepEqual(s.state.held, { reason: 'failed', text: 'first\n\nsecond', entryId: 'u1' });
    assert.equal(s.footer(second).heldFrom, 'u1');
    const plan = retryPlan(s.state, second);
    assert.deepEqual(plan, { kind: 'fork', fromEntryId: 'u1', blocks: [{ type: 'text', text: 'first\n\n' }, { type: 'text', text: 'second' }] }, 'what Hermes would have sent as one message');
    s.turn('third', 'Hello from the fake model!');
    assert.equal(s.state.held, undefined);
    assert.equal(s.user(3).mergedWith?.text, 'first\n\nsecond');
  });

  test("the agent's own slash command leaves the held prompt held (Hermes answers it without the model)", () => {
    const s = new Session();
    s.turn('[slow] count', 'tick 0 tick 1', 'cancelled');
    assert.deepEqual(s.state.held, { reason: 'cancelled', text: '[slow] count', entryId: 'u1' });
    s.turn('/help', 'Available commands: …');
    assert.equal(s.user(2).mergedWith, undefined);
    assert.equal(s.state.held?.entryId, 'u1', 'still held after /help');
    s.turn('never mind, just say ok', 'ok');
    assert.deepEqual(s.user(3).mergedWith, { reason: 'cancelled', text: '[slow] count', entryId: 'u1' });
    assert.equal(s.state.held, undefined);
  });

  test('a cancel holds nothing for agents that do not merge, and Retry resends in the same session', () => {
    const s = new Session(other);
    s.turn('x', 'tick', 'cancelled');
    assert.equal(s.state.held, undefined);
    const n = s.turn('y', rateLimited);
    assert.equal(s.state.held, undefined);
    assert.equal(s.footer(n).heldFrom, undefined);
    assert.deepEqual(retryPlan(s.state, n), { kind: 'resend', blocks: [{ type: 'text', text: 'y' }] });
  });

  test('benign replies that mention HTTP errors are answers: nothing held, the reply stays', () => {
    for (const reply of ['Here is how HTTP 429 works: …', 'The server said "HTTP 500" yesterday.', 'API call failed after retries is a log line you may see.']) {
      const s = new Session();
      const n = s.turn('q', reply);
      assert.equal(s.footer(n).outcome, 'end_turn', reply);
      assert.equal(s.state.held, undefined, reply);
      assert.equal(s.state.entries.filter((e) => e.kind === 'assistant').length, 1, reply);
    }
  });

  test("Hermes' cancelled turn reports every count 0: no tokens shown, and the cumulative count is not reset by it", () => {
    const s = new Session();
    s.turn('a', 'ok', 'end_turn', { inputTokens: 1234, outputTokens: 56, totalTokens: 1290 });
    const cancelled = s.turn('b', 'tick', 'cancelled', { inputTokens: 0, outputTokens: 0, totalTokens: 0, thoughtTokens: 0, cachedReadTokens: 0 });
    assert.equal(s.footer(cancelled).usage, undefined);
    const next = s.turn('c', 'ok', 'end_turn', { inputTokens: 2468, outputTokens: 112, totalTokens: 2580 });
    assert.deepEqual(s.footer(next).usage, { inputTokens: 1234, outputTokens: 56, totalTokens: 1290 }, 'the delta from the last real count');
  });

  test('after a restart the count starts again (restart.jsonl: 1290 before, 1290 after): the turn shows its own tokens, not 0', () => {
    const s = new Session();
    const usage = { inputTokens: 1234, outputTokens: 56, totalTokens: 1290 };
    s.turn('before', 'ok', 'end_turn', usage);
    s.apply({ type: 'agentExited', id: 'x', noticeId: 'xn', at: 9, message: 'Restarting Hermes…', stderrTail: '', expected: true });
    s.apply({ type: 'sessionStarted', sessionId: 's1' });
    const after = s.turn('after', 'ok', 'end_turn', usage);
    assert.deepEqual(s.footer(after).usage, usage);
    // A count that went down without an exit we saw (another process) is read the same way.
    const s2 = new Session();
    s2.turn('a', 'ok', 'end_turn', { inputTokens: 4936, outputTokens: 224, totalTokens: 5160 });
    const lower = s2.turn('b', 'ok', 'end_turn', usage);
    assert.deepEqual(s2.footer(lower).usage, usage);
  });

  test('a restart forgets a cancelled prompt (Hermes keeps it in memory) but not a failed one (it is in the history)', () => {
    const exit: SessionAction = { type: 'agentExited', id: 'x', noticeId: 'xn', at: 9, message: 'Restarting Hermes…', stderrTail: '', expected: true };
    const cancelled = new Session();
    cancelled.turn('a', 'tick', 'cancelled');
    assert.equal(cancelled.apply(exit).held, undefined);
    const failed = new Session();
    failed.turn('a', rateLimited);
    assert.equal(failed.apply(exit).held?.entryId, 'u1');
  });

  test('a bare refusal says the session was probably lost; a failed or interrupted prompt adds no notice', () => {
    const prompt: Entry = { kind: 'user', id: 'u1', blocks: [{ type: 'text', text: 'x' }], at: 0, turnId: 1, origin: 'local' };
    const refusal = afterTurn({ result: { kind: 'ended', stopReason: 'refusal', response: { stopReason: 'refusal' } }, turnEntries: [prompt], agentName: 'Hermes' });
    assert.deepEqual(refusal[0]?.actions, ['newSession']);
    for (const result of [{ kind: 'failed', error: new Error('x') }, { kind: 'interrupted', error: new Error('y') }] as const) {
      assert.deepEqual(afterTurn({ result, turnEntries: [prompt], agentName: 'Hermes' }), []);
    }
  });

  test('a loaded session whose last prompt got no reply: Hermes holds it (load.jsonl ends that way); an answered one holds nothing', () => {
    const replayed = (id: string, text: string): Entry => ({ kind: 'user', id, blocks: [{ type: 'text', text }], at: 0, origin: 'replay' });
    const answered: Entry[] = [replayed('r1', '[plain] Say hello.'), { kind: 'assistant', id: 'a1', parts: [{ kind: 'text', text: 'Hello', at: 0 }], at: 0 }];
    const unanswered: Entry[] = [...answered, replayed('r2', '[error500] boom'), { kind: 'plan', id: 'p', entries: [], at: 0 }];
    assert.equal(heldAfterLoad(answered, hermes), undefined);
    assert.deepEqual(heldAfterLoad(unanswered, hermes), { reason: 'failed', text: '[error500] boom', entryId: 'r2' });
    assert.equal(heldAfterLoad(unanswered, other), undefined, 'only agents known to keep it');
  });
});
