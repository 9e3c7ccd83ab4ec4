import * as assert from 'node:assert/strict';
import { ReviewLedger, type ReviewOutcome } from '../../../src/permissions/reviewLedger';

type Step = { readonly end: 'session' | 'other session' | 'all'; readonly reason: string } | { readonly click: boolean };

interface LateClickCase {
  readonly name: string;
  readonly steps: readonly Step[];
  readonly outcome: ReviewOutcome['kind'];
  /** What the LAST click did. */
  readonly click: 'answered' | 'ended' | 'unknown';
}

/**
 * "Late review clicks": a write waiting for review (`hermes.review.writes: review`) ends as
 * rejected on cancel, close, exit, restart and deactivate, and a click after that changes
 * nothing — the write's promise (what `fs/write_text_file` waits on) keeps its first outcome.
 */
const cases: LateClickCase[] = [
  { name: 'Allow after the turn was cancelled', steps: [{ end: 'session', reason: 'the turn was cancelled' }, { click: true }], outcome: 'ended', click: 'ended' },
  { name: 'Reject after the session closed', steps: [{ end: 'session', reason: 'the session was closed' }, { click: false }], outcome: 'ended', click: 'ended' },
  { name: 'Allow after the agent exited', steps: [{ end: 'session', reason: 'the agent exited' }, { click: true }], outcome: 'ended', click: 'ended' },
  { name: 'Allow after a restart', steps: [{ end: 'session', reason: 'the agent was restarted' }, { click: true }], outcome: 'ended', click: 'ended' },
  { name: 'Allow after deactivate', steps: [{ end: 'all', reason: 'the extension was deactivated' }, { click: true }], outcome: 'ended', click: 'ended' },
  { name: 'Allow after the turn ended', steps: [{ end: 'session', reason: 'the turn ended' }, { click: true }], outcome: 'ended', click: 'ended' },
  { name: 'a second Allow after Allow', steps: [{ click: true }, { click: true }], outcome: 'accepted', click: 'ended' },
  { name: 'Allow after Reject', steps: [{ click: false }, { click: true }], outcome: 'rejected', click: 'ended' },
  { name: 'cancel after Allow changes nothing', steps: [{ click: true }, { end: 'session', reason: 'the turn was cancelled' }, { click: false }], outcome: 'accepted', click: 'ended' },
  { name: 'another session ending leaves this one pending (benign)', steps: [{ end: 'other session', reason: 'the turn was cancelled' }, { click: true }], outcome: 'accepted', click: 'answered' },
  { name: 'Allow in time (benign)', steps: [{ click: true }], outcome: 'accepted', click: 'answered' },
  { name: 'Reject in time (benign)', steps: [{ click: false }], outcome: 'rejected', click: 'answered' },
];

suite('permission corpus: late review clicks (the pure review ledger)', () => {
  for (const c of cases) {
    test(`${c.name} → ${c.outcome}, the last click ${c.click}`, async () => {
      const ledger = new ReviewLedger();
      const settled: number[] = [];
      ledger.onDidSettle((id) => settled.push(id));
      const { id, outcome } = ledger.begin('s1', '/ws/a.txt');
      let last = '';
      for (const step of c.steps) {
        if ('click' in step) {
          last = ledger.answer(id, step.click).kind;
        } else if (step.end === 'all') {
          ledger.endAll(step.reason);
        } else {
          ledger.endSession(step.end === 'session' ? 's1' : 's2', step.reason);
        }
      }
      assert.equal((await outcome).kind, c.outcome);
      assert.equal(last, c.click);
      assert.deepEqual(settled, [id], 'settles exactly once');
      assert.equal(ledger.isPending(id), false);
    });
  }

  test('a late click says why the write ended', () => {
    const ledger = new ReviewLedger();
    const { id } = ledger.begin('s1', '/ws/a.txt');
    ledger.endSession('s1', 'the turn was cancelled');
    assert.deepEqual(ledger.answer(id, true), { kind: 'ended', reason: 'the turn was cancelled', label: '/ws/a.txt' });
    assert.deepEqual(ledger.answer(999, true), { kind: 'unknown' });
  });

  test('every pending write of the session ends; the memory of ended ones is bounded', async () => {
    const ledger = new ReviewLedger();
    const reviews = Array.from({ length: 300 }, () => ledger.begin('s1', 'f'));
    assert.equal(ledger.endSession('s1', 'the turn was cancelled'), 300);
    assert.deepEqual(new Set((await Promise.all(reviews.map((r) => r.outcome))).map((o) => o.kind)), new Set(['ended']));
    assert.equal(ledger.answer(reviews[0]?.id ?? 0, true).kind, 'unknown', 'the oldest explanations are dropped');
    assert.equal(ledger.answer(reviews[299]?.id ?? 0, true).kind, 'ended');
  });
});
