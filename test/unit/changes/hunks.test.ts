import * as assert from 'node:assert/strict';
import { analyzeFile, applyAllHunks, computeHunks, planRevert, textReplacements, type FileModel } from '../../../src/changes/hunks';
import { changeBlocks, splitKeepEnds } from '../../../src/changes/lines';
import { rng } from '../../support/random';

const lines = (n: number, prefix = 'line'): string => Array.from({ length: n }, (_, i) => `${prefix} ${i + 1}\n`).join('');

function model(base: string | undefined, agent: string | undefined, reverted: Iterable<string> = []): FileModel {
  return { base, hunks: computeHunks(base ?? '', agent ?? ''), agentExists: agent !== undefined, reverted: new Set(reverted) };
}

/** Replaces 1-based line `n` of `text`. */
function setLine(text: string, n: number, value: string): string {
  const ls = splitKeepEnds(text);
  ls[n - 1] = value;
  return ls.join('');
}

suite('changes: lines and hunks', () => {
  test('splitKeepEnds keeps terminators, CRLF and a missing final newline', () => {
    assert.deepEqual(splitKeepEnds('a\r\nb\nc'), ['a\r\n', 'b\n', 'c']);
    assert.deepEqual(splitKeepEnds(''), []);
    assert.deepEqual(splitKeepEnds('\n\n'), ['\n', '\n']);
    assert.equal(splitKeepEnds('x\r\ny\n\nz').join(''), 'x\r\ny\n\nz');
  });

  test('changeBlocks: maximal runs, never adjacent', () => {
    const a = ['1', '2', '3', '4', '5'];
    const b = ['1', 'X', '3', 'Y', 'Z', '5'];
    assert.deepEqual(changeBlocks(a, b), [
      { aStart: 1, aEnd: 2, bStart: 1, bEnd: 2 },
      { aStart: 3, aEnd: 4, bStart: 3, bEnd: 5 },
    ]);
    assert.deepEqual(changeBlocks(a, a), []);
    assert.deepEqual(changeBlocks([], ['x']), [{ aStart: 0, aEnd: 0, bStart: 0, bEnd: 1 }]);
  });

  test('hunks of a multi-hunk change, with counts and exact texts', () => {
    const base = lines(20);
    const agent = setLine(setLine(base, 3, 'THREE\n'), 15, 'FIFTEEN\nFIFTEEN-B\n');
    const hunks = computeHunks(base, agent);
    assert.equal(hunks.length, 2);
    assert.deepEqual(
      hunks.map((h) => [h.baseStart, h.baseEnd, h.agentStart, h.agentEnd, h.baseText, h.agentText]),
      [
        [2, 3, 2, 3, 'line 3\n', 'THREE\n'],
        [14, 15, 14, 16, 'line 15\n', 'FIFTEEN\nFIFTEEN-B\n'],
      ],
    );
    assert.equal(applyAllHunks(base, hunks), agent);
    assert.notEqual(hunks[0]?.key, hunks[1]?.key);
    assert.deepEqual(computeHunks(base, agent).map((h) => h.key), hunks.map((h) => h.key), 'keys are stable');
  });

  test('a change of the final newline alone is a hunk', () => {
    const hunks = computeHunks('a\nb', 'a\nb\n');
    assert.equal(hunks.length, 1);
    assert.equal(hunks[0]?.baseText, 'b');
    assert.equal(hunks[0]?.agentText, 'b\n');
  });

  test('reverting one hunk of a multi-hunk change restores exactly that hunk', () => {
    const base = lines(30);
    const agent = setLine(setLine(setLine(base, 5, 'FIVE\n'), 15, 'FIFTEEN\n'), 25, 'TWENTY-FIVE\n');
    const m = model(base, agent);
    const middle = m.hunks[1];
    assert.ok(middle !== undefined);
    const out = planRevert(m, agent, new Set([middle.key]));
    assert.equal(out.result, setLine(agent, 15, 'line 15\n'));
    assert.deepEqual(out.revertedNow.map((h) => h.key), [middle.key]);
    assert.equal(out.conflicts.length, 0);
    // The others still revert cleanly afterwards, ending with the base bytes.
    const after = planRevert(model(base, agent, [middle.key]), out.result, 'all');
    assert.equal(after.result, base);
  });

  test('a user edit in another region survives; an overlapping one is a conflict', () => {
    const base = lines(30);
    const agent = setLine(setLine(base, 5, 'FIVE\n'), 20, 'TWENTY\n');
    const m = model(base, agent);
    const userElsewhere = setLine(agent, 12, 'user line twelve\n');
    const clean = planRevert(m, userElsewhere, 'all');
    assert.equal(clean.conflicts.length, 0);
    assert.equal(clean.result, setLine(base, 12, 'user line twelve\n'));

    const userOverlap = setLine(userElsewhere, 20, 'TWENTY (user)\n');
    const conflicted = planRevert(m, userOverlap, 'all');
    assert.equal(conflicted.conflicts.length, 1);
    assert.equal(conflicted.conflicts[0]?.hunk.baseStart, 19);
    assert.equal(conflicted.result, setLine(setLine(base, 12, 'user line twelve\n'), 20, 'TWENTY (user)\n'), 'the conflicting region is left as the user wrote it');
    const forced = planRevert(m, userOverlap, 'all', { force: true });
    assert.equal(forced.conflicts.length, 1);
    assert.equal(forced.result, setLine(base, 12, 'user line twelve\n'), 'force restores the region');
  });

  test('user edits adjacent to a hunk (the line right before and after) are not conflicts', () => {
    const base = lines(10);
    const agent = setLine(base, 5, 'FIVE\n');
    const user = setLine(setLine(agent, 4, 'user 4\n'), 6, 'user 6\n');
    const out = planRevert(model(base, agent), user, 'all');
    assert.equal(out.conflicts.length, 0);
    assert.equal(out.result, setLine(setLine(base, 4, 'user 4\n'), 6, 'user 6\n'));
  });

  test('pure insertions and deletions revert, with user lines inserted next to them kept', () => {
    const base = lines(10);
    const ls = splitKeepEnds(base);
    const agent = [...ls.slice(0, 3), 'NEW A\n', 'NEW B\n', ...ls.slice(3, 6), ...ls.slice(8)].join('');
    const m = model(base, agent);
    assert.equal(m.hunks.length, 2);
    assert.equal(planRevert(m, agent, 'all').result, base);
    // The user inserts a line right where the agent deleted two.
    const al = splitKeepEnds(agent);
    const user = [...al.slice(0, 8), 'user inserted\n', ...al.slice(8)].join('');
    const out = planRevert(m, user, 'all');
    assert.equal(out.conflicts.length, 0);
    const expected = [...ls.slice(0, 6), 'user inserted\n', ...ls.slice(6)].join('');
    assert.equal(out.result, expected);
  });

  test('a new file: reverting deletes it; a deleted file: reverting recreates it', () => {
    const created = model(undefined, 'hello\nworld\n');
    const gone = planRevert(created, 'hello\nworld\n', 'all');
    assert.equal(gone.result, undefined);
    assert.equal(gone.changed, true);
    const single = created.hunks[0];
    assert.ok(single !== undefined);
    assert.equal(planRevert(created, 'hello\nworld\n', new Set([single.key])).result, undefined, 'its only hunk too');
    assert.equal(planRevert(created, undefined, 'all').changed, false, 'already gone');
    const userAdded = planRevert(created, 'hello\nworld\nuser\n', 'all');
    assert.equal(userAdded.result, 'user\n', 'user lines stay, so the file stays');

    const deleted = model('keep me\n', undefined);
    const back = planRevert(deleted, undefined, 'all');
    assert.equal(back.result, 'keep me\n');
    assert.equal(back.changed, true);

    const emptyCreated = model(undefined, '');
    assert.equal(planRevert(emptyCreated, '', 'all').result, undefined);
    const written = planRevert(emptyCreated, 'someone wrote\n', 'all');
    assert.equal(written.conflicts.length, 1);
    assert.equal(written.result, 'someone wrote\n');
    assert.equal(planRevert(emptyCreated, 'someone wrote\n', 'all', { force: true }).result, undefined);

    const emptyDeleted = model('', undefined);
    assert.equal(planRevert(emptyDeleted, undefined, 'all').result, '');
  });

  test('a file modified by the agent and deleted by the user since: conflict, nothing recreated', () => {
    const base = lines(5);
    const agent = setLine(base, 2, 'TWO\n');
    const out = planRevert(model(base, agent), undefined, 'all');
    assert.equal(out.conflicts.length, 1);
    assert.equal(out.result, undefined);
    assert.equal(out.changed, false);
  });

  test('status follows the text: an undo or the diff editor arrow flips hunks, and reverts are idempotent', () => {
    const base = lines(12);
    const agent = setLine(setLine(base, 2, 'TWO\n'), 9, 'NINE\n');
    const m = model(base, agent);
    const [first, second] = m.hunks;
    assert.ok(first !== undefined && second !== undefined);
    assert.deepEqual(analyzeFile(m, agent).hunks.map((h) => h.status), ['applied', 'applied']);
    // Reverted outside the Changes view (by hand): seen as reverted.
    const byHand = setLine(agent, 9, 'line 9\n');
    assert.deepEqual(analyzeFile(m, byHand).hunks.map((h) => h.status), ['applied', 'reverted']);
    const again = planRevert(m, byHand, new Set([second.key]));
    assert.equal(again.changed, false);
    assert.deepEqual(again.reverted.map((h) => h.key), [second.key]);
    // We reverted the first, the user undid it: applied again.
    const m2 = model(base, agent, [first.key]);
    assert.deepEqual(analyzeFile(m2, agent).hunks.map((h) => h.status), ['applied', 'applied']);
    assert.deepEqual(analyzeFile(m2, setLine(agent, 2, 'line 2\n')).hunks.map((h) => h.status), ['reverted', 'applied']);
    assert.deepEqual(analyzeFile(m2, setLine(agent, 2, 'other\n')).hunks.map((h) => h.status), ['modified', 'applied']);
  });

  test('hunk regions are located in the current text after user insertions above them', () => {
    const base = lines(10);
    const agent = setLine(base, 8, 'EIGHT\n');
    const user = 'header 1\nheader 2\n' + agent;
    const a = analyzeFile(model(base, agent), user);
    assert.deepEqual(a.hunks.map((h) => [h.status, h.currentStart, h.currentEnd]), [['applied', 9, 10]]);
  });

  test('CRLF files and a missing final newline come back byte for byte', () => {
    const base = 'one\r\ntwo\r\nthree';
    const agent = 'one\r\nTWO\r\nthree\r\nfour\n';
    assert.equal(planRevert(model(base, agent), agent, 'all').result, base);
  });

  test('textReplacements turns one text into another with minimal line edits', () => {
    const from = lines(6);
    const to = setLine(setLine(from, 2, 'B\n'), 5, 'E\nE2\n');
    const reps = textReplacements(from, to);
    assert.equal(reps.length, 2);
    let out = from;
    for (const r of [...reps].reverse()) {
      out = out.slice(0, r.start) + r.text + out.slice(r.end);
    }
    assert.equal(out, to);
  });
});

function randomEdit(text: string, r: () => number, tag: string, alphabet: number): string {
  const ls = splitKeepEnds(text);
  const at = Math.floor(r() * (ls.length + 1));
  const del = Math.min(ls.length - at, Math.floor(r() * 3));
  const ins = Math.floor(r() * 3);
  const added = Array.from({ length: ins }, (_, i) => (alphabet > 0 ? `${tag}${Math.floor(r() * alphabet)}\n` : `${tag} ${at}.${i}\n`));
  ls.splice(at, del, ...added);
  return ls.join('');
}

suite('changes: revert properties (randomised, seeded)', () => {
  test('reverting everything, all at once or hunk by hunk in any order, gives the base bytes back', () => {
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed);
      // Few distinct lines, so the diff has ambiguous alignments; mixed terminators.
      const n = Math.floor(r() * 25);
      let base = Array.from({ length: n }, () => `v${Math.floor(r() * 4)}${r() < 0.2 ? '\r\n' : '\n'}`).join('');
      if (r() < 0.3) {
        base += 'no newline at end';
      }
      let agent = base;
      const edits = 1 + Math.floor(r() * 4);
      for (let i = 0; i < edits; i++) {
        agent = randomEdit(agent, r, 'a', 5);
      }
      const m = model(base, agent);
      assert.equal(applyAllHunks(base, m.hunks), agent, `seed ${seed}: hunks rebuild the agent text`);
      assert.equal(planRevert(m, agent, 'all').result ?? '', base, `seed ${seed}: revert all`);
      const order = [...m.hunks].sort(() => r() - 0.5);
      let current = agent;
      const reverted = new Set<string>();
      for (const h of order) {
        const out = planRevert(model(base, agent, reverted), current, new Set([h.key]));
        assert.equal(out.conflicts.length, 0, `seed ${seed}: no conflicts without user edits`);
        current = out.result ?? '';
        reverted.add(h.key);
      }
      assert.equal(current, base, `seed ${seed}: hunk by hunk`);
    }
  });

  test('a user edit outside every hunk survives a full revert; one inside a hunk is always reported', () => {
    let conflictsSeen = 0;
    for (let seed = 1; seed <= 300; seed++) {
      const r = rng(seed * 7919);
      const n = 8 + Math.floor(r() * 30);
      const base = Array.from({ length: n }, (_, i) => `base ${i}\n`).join('');
      let agent = base;
      for (let i = 0, edits = 1 + Math.floor(r() * 3); i < edits; i++) {
        agent = randomEdit(agent, r, `agent${i}`, 0);
      }
      const m = model(base, agent);
      const agentLines = splitKeepEnds(agent);
      // Lines of the agent text outside every hunk region, and where they came from in base.
      const outside: { agentIndex: number; baseIndex: number }[] = [];
      let ai = 0;
      let bi = 0;
      for (const h of m.hunks) {
        for (; ai < h.agentStart; ai++, bi++) {
          outside.push({ agentIndex: ai, baseIndex: bi });
        }
        ai = h.agentEnd;
        bi = h.baseEnd;
      }
      for (; ai < agentLines.length; ai++, bi++) {
        outside.push({ agentIndex: ai, baseIndex: bi });
      }
      const pick = outside[Math.floor(r() * outside.length)];
      if (pick !== undefined) {
        const user = setLine(agent, pick.agentIndex + 1, `USER ${seed}\n`);
        const out = planRevert(m, user, 'all');
        assert.equal(out.conflicts.length, 0, `seed ${seed}`);
        assert.equal(out.result, setLine(base, pick.baseIndex + 1, `USER ${seed}\n`), `seed ${seed}: user line kept, agent hunks reverted`);
      }
      const inside = m.hunks.filter((h) => h.agentEnd > h.agentStart);
      const target = inside[Math.floor(r() * inside.length)];
      if (target !== undefined) {
        const line = target.agentStart + Math.floor(r() * (target.agentEnd - target.agentStart));
        const user = setLine(agent, line + 1, `USER IN HUNK ${seed}\n`);
        const out = planRevert(m, user, 'all');
        assert.ok(out.conflicts.some((c) => c.hunk.key === target.key), `seed ${seed}: overlapping edit reported`);
        assert.ok((out.result ?? '').includes(`USER IN HUNK ${seed}\n`), `seed ${seed}: never overwritten silently`);
        conflictsSeen++;
      }
    }
    assert.ok(conflictsSeen > 100);
  });
});
