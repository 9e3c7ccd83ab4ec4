import * as assert from 'node:assert/strict';
import { mergeSessions, type KnownSession } from '../../../src/app/sessionHistory';

const at = (n: number): string => `2026-12-05T0${n}:00:00Z`;

suite('session history: the workspace record and the agent list', () => {
  test('a fork keeps the title the chat gave it, not the agent\'s, which names it by its source\'s first message (Hermes)', () => {
    // Hermes' session/list titles an untitled session by its first user message (acp_adapter/session.py
    // `_build_session_title`), and a fork copies its source's history.
    const known: KnownSession[] = [{ sessionId: 'fork', agentId: 'hermes', title: 'Fork of Fake Session Title', updatedAt: at(1), ownTitle: true }];
    const listed: KnownSession[] = [
      { sessionId: 'fork', agentId: 'hermes', title: '[plain] Say hello.', updatedAt: at(2) },
      { sessionId: 'source', agentId: 'hermes', title: 'Fake Session Title', updatedAt: at(0) },
    ];
    assert.deepEqual(
      mergeSessions(known, listed).map((s) => [s.sessionId, s.title, s.updatedAt]),
      [
        ['fork', 'Fork of Fake Session Title', at(2)],
        ['source', 'Fake Session Title', at(0)],
      ],
    );
  });

  test('a title the agent gave (recorded without ownTitle) follows the newer record', () => {
    const known: KnownSession[] = [{ sessionId: 's', agentId: 'hermes', title: 'old', updatedAt: at(1) }];
    assert.equal(mergeSessions(known, [{ sessionId: 's', agentId: 'hermes', title: 'Fake Session Title', updatedAt: at(2) }])[0]?.title, 'Fake Session Title');
    assert.equal(mergeSessions(known, [{ sessionId: 's', agentId: 'hermes', title: 'older', updatedAt: at(0) }])[0]?.title, 'old');
  });
});
