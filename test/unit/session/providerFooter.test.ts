import * as assert from 'node:assert/strict';
import type { Entry, TurnEndEntry } from '../../../src/session/sessionState';
import { nextId, SessionHarness, textChunk } from '../../builders/sessionBuilders';

/** Issue 18: the runner's provider-failure classification decides the chat's turn footer too. */

function footer(entries: readonly Entry[]): TurnEndEntry | undefined {
  const last = entries.filter((e): e is TurnEndEntry => e.kind === 'turnEnd').at(-1);
  return last;
}

/** The footer of a turn whose whole reply is `text`, ended with `end_turn`. */
function footerAfterReply(text: string): TurnEndEntry | undefined {
  const h = new SessionHarness();
  h.prompt('go');
  h.update(textChunk(text));
  h.end('end_turn');
  return footer(h.state.entries);
}

suite('session reducer: a turn the model provider failed', () => {
  test('Hermes\' HTTP 500 reply with end_turn ends the turn as an error with the provider\'s message, transient', () => {
    const f = footerAfterReply('API call failed after 3 retries: HTTP 500: Fake upstream exploded');
    assert.deepEqual([f?.outcome, f?.error, f?.provider], ['error', 'API call failed after 3 retries: HTTP 500: Fake upstream exploded', { kind: 'server', transient: true, httpStatus: 500 }]);
  });

  test('a 401 reply is an error that does not pass with time', () => {
    const f = footerAfterReply('HTTP 401: invalid api key');
    assert.deepEqual([f?.outcome, f?.provider?.transient], ['error', false]);
  });

  test('retry notices and nothing else (pi) are a provider failure', () => {
    const f = footerAfterReply('Retrying (attempt 1/3, waiting 2s)...\nRetrying (attempt 2/3, waiting 4s)...');
    assert.deepEqual([f?.outcome, f?.provider?.transient], ['error', true]);
  });

  test('an answer that mentions an HTTP status, or an earlier turn\'s failure, is not one', () => {
    const h = new SessionHarness();
    h.prompt('one');
    h.update(textChunk('HTTP 500: boom'));
    h.end('end_turn');
    h.prompt('two');
    h.end('end_turn');
    assert.equal(footer(h.state.entries)?.outcome, 'end_turn', 'the failed reply belongs to the turn before');
    h.prompt('three');
    h.update(textChunk('The server answers HTTP 500: that is the bug you asked about.'));
    h.end('end_turn');
    assert.deepEqual([footer(h.state.entries)?.outcome, footer(h.state.entries)?.provider], ['end_turn', undefined]);
  });

  test('a JSON-RPC error the controller classified keeps its provider failure on the footer', () => {
    const h = new SessionHarness();
    const turnId = h.prompt('go');
    h.apply({
      type: 'turnFailed',
      turnId,
      id: nextId(),
      noticeId: nextId(),
      at: h.tick(),
      error: 'Internal error: Rate limit reached',
      title: 'The agent could not complete this turn.',
      provider: { kind: 'rateLimit', httpStatus: 429, message: 'Rate limit reached', transient: true },
    });
    assert.deepEqual([footer(h.state.entries)?.outcome, footer(h.state.entries)?.provider], ['error', { kind: 'rateLimit', transient: true, httpStatus: 429 }]);
  });
});
