import * as assert from 'node:assert/strict';
import { briefBudget, CHARS_PER_TOKEN, DEFAULT_BRIEF_TOKENS, handoffBrief } from '../../../src/session/handoff';
import { plan, SessionHarness, textChunk, toolCall, toolUpdate } from '../../builders/sessionBuilders';

/** A session of `turns` turns in `root`: each asks, edits `src/fN.ts`, and replies; a notice in the middle. */
function session(turns: number, root = '/repo', sep = '/'): SessionHarness {
  const h = new SessionHarness();
  for (let i = 1; i <= turns; i++) {
    h.prompt(`Question number ${i}`);
    h.update(toolCall(`t${i}`, { title: `Edit src/f${i}.ts`, kind: 'edit', locations: [{ path: `${root}${sep}src${sep}f${i}.ts` }] }));
    h.update(toolUpdate(`t${i}`, { status: 'completed', content: [{ type: 'diff', path: `${root}${sep}src${sep}f${i}.ts`, oldText: 'a\n', newText: 'b\n' }] }));
    h.update(textChunk(`Answer number ${i}.`));
    h.end();
    if (i === 1) {
      h.apply({ type: 'noticeAdded', id: 'n1', at: h.tick(), level: 'warning', title: 'A client notice the agent never saw' });
    }
  }
  h.update(plan(['Read the code', 'completed'], ['Finish the change', 'in_progress']));
  return h;
}

suite('hand-off brief (issue 40)', () => {
  test('carries the user’s messages, the replies, the tool calls with their outcomes, the files changed and the plan — not the client’s notices', () => {
    const h = session(2);
    const brief = handoffBrief({ state: h.state, agentName: 'Hermes', cwd: '/repo' }, { budgetChars: 100_000 });
    assert.equal(brief.turns, 2);
    assert.equal(brief.keptTurns, 2);
    assert.equal(brief.cut, false);
    assert.match(brief.text, /another coding agent, Hermes, in the folder `\/repo`/);
    for (const part of ['Question number 1', 'Answer number 1.', 'Question number 2', 'Answer number 2.', 'Edit src/f1.ts', '— completed', 'Diff `/repo/src/f2.ts`: +1 −1']) {
      assert.ok(brief.text.includes(part), `the brief has ${part}`);
    }
    assert.deepEqual(brief.files, ['src/f1.ts', 'src/f2.ts']);
    assert.match(brief.text, /## Files changed so far\n\n- `src\/f1.ts`\n- `src\/f2.ts`/);
    assert.match(brief.text, /## Current plan\n\n- \[x\] Read the code\n- \[~\] Finish the change/);
    assert.doesNotMatch(brief.text, /client notice/);
    assert.ok(brief.text.indexOf('Question number 1') < brief.text.indexOf('Question number 2'), 'in order');
  });

  test('too long for the budget: the oldest turns go first, and the brief says how many', () => {
    const h = session(30);
    const whole = handoffBrief({ state: h.state, agentName: 'Hermes', cwd: '/repo' }, { budgetChars: 1_000_000 });
    const budget = Math.floor(whole.text.length / 3);
    const brief = handoffBrief({ state: h.state, agentName: 'Hermes', cwd: '/repo' }, { budgetChars: budget });
    assert.ok(brief.text.length <= budget, `${brief.text.length} ≤ ${budget}`);
    assert.ok(brief.keptTurns > 0 && brief.keptTurns < 30, `kept ${brief.keptTurns}`);
    assert.ok(brief.text.includes(`its ${brief.keptTurns} newest turns; the ${30 - brief.keptTurns} earlier ones were left out to fit`));
    assert.ok(brief.text.includes('Question number 30') && !brief.text.includes('Question number 1\n'), 'the newest kept, the oldest gone');
    assert.ok(brief.text.includes('src/f1.ts'), 'the files changed are listed even when their turns were left out');
  });

  test('a newest turn longer than the whole budget keeps its end, marked as cut', () => {
    const h = new SessionHarness();
    h.prompt('Start');
    h.update(textChunk(`${'x'.repeat(20_000)} THE END`));
    h.end();
    const brief = handoffBrief({ state: h.state, agentName: 'Codex', cwd: '/repo' }, { budgetChars: 4_000 });
    assert.equal(brief.cut, true);
    assert.ok(brief.text.length <= 4_000);
    assert.match(brief.text, /earlier characters of this turn left out/);
    assert.match(brief.text, /THE END/);
  });

  test('with a summary the turns are replaced by it, named as the previous agent’s', () => {
    const h = session(3);
    const brief = handoffBrief({ state: h.state, agentName: 'Hermes', cwd: '/repo' }, { budgetChars: 50_000, summary: '  Goal: finish f3. Done: f1, f2.  ' });
    assert.equal(brief.keptTurns, 0);
    assert.equal(brief.turns, 3);
    assert.match(brief.text, /## Summary written by Hermes\n\nGoal: finish f3\. Done: f1, f2\.\n/);
    assert.doesNotMatch(brief.text, /Question number/);
    assert.match(brief.text, /## Files changed so far/);
  });

  test('Windows and macOS paths are shown relative to the cwd; paths outside it stay whole', () => {
    const win = session(1, 'C:\\Users\\ana\\repo', '\\');
    const w = handoffBrief({ state: win.state, agentName: 'Hermes', cwd: 'C:\\Users\\ana\\repo\\' }, { budgetChars: 50_000 });
    assert.deepEqual(w.files, ['src\\f1.ts']);
    const mac = session(1, '/Users/ana/My Repo');
    const m = handoffBrief(
      { state: mac.state, agentName: 'Hermes', cwd: '/Users/ana/My Repo', changedFiles: ['/Users/ana/other/notes.md', '/Users/ana/My Repo2/x.ts'] },
      { budgetChars: 50_000 },
    );
    assert.deepEqual(m.files, ['/Users/ana/My Repo2/x.ts', '/Users/ana/other/notes.md', 'src/f1.ts'], 'a sibling folder sharing the prefix is not inside');
  });

  test('tool calls that failed are not files changed', () => {
    const h = new SessionHarness();
    h.prompt('Edit it');
    h.update(toolCall('t1', { title: 'Edit a.ts', kind: 'edit', locations: [{ path: '/repo/a.ts' }] }));
    h.update(toolUpdate('t1', { status: 'failed' }));
    h.end();
    const brief = handoffBrief({ state: h.state, agentName: 'Hermes', cwd: '/repo' }, { budgetChars: 50_000 });
    assert.deepEqual(brief.files, []);
    assert.match(brief.text, /Edit a\.ts.*— failed/);
  });

  test('the budget: 40% of a known context window, else the default', () => {
    assert.equal(briefBudget(200_000), Math.floor(80_000 * CHARS_PER_TOKEN));
    assert.equal(briefBudget(undefined), Math.floor(DEFAULT_BRIEF_TOKENS * CHARS_PER_TOKEN));
    assert.equal(briefBudget(0), Math.floor(DEFAULT_BRIEF_TOKENS * CHARS_PER_TOKEN));
  });
});
