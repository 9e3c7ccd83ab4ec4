import * as assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import { quirksFor } from '../../../src/session/agentQuirks';
import type { TurnResult } from '../../../src/session/sessionController';
import type { Entry } from '../../../src/session/sessionState';
import { afterTurn, heldAfterLoad, type TurnFacts } from '../../../src/app/turnNotices';
import { finalAnswer, replyFailure } from '../../../src/app/turnRun';

const hermes = quirksFor({ name: 'hermes-agent', version: '0.19.0' });
const other = quirksFor({ name: 'claude-code-acp', version: '0.23.1' });

function ended(stopReason: acp.StopReason): TurnResult {
  return { kind: 'ended', stopReason, response: { stopReason } };
}

/** A turn's entries: the prompt (id `u<n>`) and the reply text. */
function turn(n: number, reply: string): Entry[] {
  return [
    { kind: 'user', id: `u${n}`, blocks: [{ type: 'text', text: `prompt ${n}` }], at: n, turnId: n, origin: 'local' },
    { kind: 'assistant', id: `a${n}`, parts: [{ kind: 'text', text: reply, at: n }], at: n, turnId: n },
  ];
}

/** afterTurn with the provider failure classified as TurnRun does it. */
function after(facts: Omit<TurnFacts, 'providerFailure'>): ReturnType<typeof afterTurn> {
  return afterTurn({ ...facts, providerFailure: replyFailure(facts.result, finalAnswer(facts.turnEntries, undefined)) });
}

// fixtures/hermes/ratelimit.jsonl, line 8 and line 23.
const rateLimited = 'API call failed after 3 retries: HTTP 429: Rate limit reached (fake)';
const unauthorized = 'HTTP 401: Incorrect API key provided (fake)';

suite('turn notices: what the chat says after a turn, and the prompt the agent still holds', () => {
  test('a Hermes provider failure: a warning, then "will send this message again" with Start fresh from the failed prompt', () => {
    const r = after({ result: ended('end_turn'), turnEntries: turn(1, rateLimited), quirks: hermes, agentName: 'Hermes', held: undefined });
    assert.deepEqual(
      r.notices.map((n) => [n.level, n.title]),
      [
        ['warning', 'The model provider failed (HTTP 429): that reply is an error report, not an answer.'],
        ['info', 'Hermes will send this message again with your next one.'],
      ],
    );
    assert.equal(r.notices[1]?.forkFrom, 'u1');
    assert.equal(r.notices[0]?.forkFrom, undefined);
    assert.equal(r.held, 'u1');
  });

  test('a second failure in a row forks from the first prompt still held; a good turn releases it', () => {
    const first = after({ result: ended('end_turn'), turnEntries: turn(1, rateLimited), quirks: hermes, agentName: 'Hermes', held: undefined });
    // ratelimit.jsonl line 12: the next prompt was merged with the failed one and failed again.
    const second = after({ result: ended('end_turn'), turnEntries: turn(2, rateLimited), quirks: hermes, agentName: 'Hermes', held: first.held });
    assert.equal(second.notices.at(-1)?.forkFrom, 'u1');
    assert.equal(second.held, 'u1');
    const ok = after({ result: ended('end_turn'), turnEntries: turn(3, 'Hello from the fake model!'), quirks: hermes, agentName: 'Hermes', held: second.held });
    assert.deepEqual(ok.notices, []);
    assert.equal(ok.held, undefined);
  });

  test('a cancelled Hermes prompt is held too (it is merged into the next one), so a failure after it forks before it', () => {
    const cancelled = after({ result: ended('cancelled'), turnEntries: turn(1, 'tick 1'), quirks: hermes, agentName: 'Hermes', held: undefined });
    assert.deepEqual(cancelled.notices, [], 'the cancel notice is the next prompt’s (SessionController)');
    assert.equal(cancelled.held, 'u1');
    const failed = after({ result: ended('end_turn'), turnEntries: turn(2, unauthorized), quirks: hermes, agentName: 'Hermes', held: cancelled.held });
    assert.equal(failed.notices[0]?.title, 'The model provider failed (HTTP 401): that reply is an error report, not an answer.');
    assert.deepEqual(failed.notices[0]?.actions, ['setupProvider', 'showTraffic'], 'not transient: set up the provider');
    assert.equal(failed.notices[1]?.forkFrom, 'u1');
  });

  test('an agent that does not keep failed prompts gets the warning only, and holds nothing', () => {
    const r = after({ result: ended('end_turn'), turnEntries: turn(1, rateLimited), quirks: other, agentName: 'Claude', held: undefined });
    assert.deepEqual(r.notices.map((n) => n.level), ['warning']);
    assert.equal(r.held, undefined);
    const cancelled = after({ result: ended('cancelled'), turnEntries: turn(2, 'x'), quirks: other, agentName: 'Claude', held: undefined });
    assert.equal(cancelled.held, undefined);
  });

  test('benign replies that mention HTTP errors are answers, not failures', () => {
    for (const reply of ['Here is how HTTP 429 works: …', 'The server said "HTTP 500" yesterday.', 'API call failed after retries is a log line you may see.']) {
      const r = after({ result: ended('end_turn'), turnEntries: turn(1, reply), quirks: hermes, agentName: 'Hermes', held: undefined });
      assert.deepEqual(r.notices, [], reply);
    }
  });

  test('a bare refusal says the session was probably lost; a failed or interrupted prompt changes nothing held', () => {
    const refusal = after({ result: ended('refusal'), turnEntries: turn(1, '').slice(0, 1), quirks: hermes, agentName: 'Hermes', held: 'u0' });
    assert.deepEqual(refusal.notices[0]?.actions, ['newSession']);
    assert.equal(refusal.held, 'u0');
    for (const result of [{ kind: 'failed', error: new Error('x') }, { kind: 'interrupted', error: new Error('y') }] as const) {
      const r = after({ result, turnEntries: turn(2, 'x'), quirks: hermes, agentName: 'Hermes', held: 'u0' });
      assert.deepEqual(r, { notices: [], held: 'u0' });
    }
  });

  test('a loaded session whose last prompt got no reply: Hermes holds it (load.jsonl ends that way); an answered one holds nothing', () => {
    const replayed = (id: string, text: string): Entry => ({ kind: 'user', id, blocks: [{ type: 'text', text }], at: 0, origin: 'replay' });
    const answered: Entry[] = [replayed('r1', '[plain] Say hello.'), { kind: 'assistant', id: 'a1', parts: [{ kind: 'text', text: 'Hello', at: 0 }], at: 0 }];
    const unanswered: Entry[] = [...answered, replayed('r2', '[error500] boom'), { kind: 'plan', id: 'p', entries: [], at: 0 }];
    assert.equal(heldAfterLoad(answered, hermes, 'Hermes'), undefined);
    const held = heldAfterLoad(unanswered, hermes, 'Hermes');
    assert.equal(held?.held, 'r2');
    assert.equal(held?.notice.forkFrom, 'r2');
    assert.match(held?.notice.detail ?? '', /^The last prompt of this session got no reply; Hermes keeps it and sends it in front of your next message/);
    assert.equal(heldAfterLoad(unanswered, other, 'Claude'), undefined, 'only agents known to keep it');
  });
});
