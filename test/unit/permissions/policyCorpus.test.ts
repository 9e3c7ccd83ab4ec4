import * as assert from 'node:assert/strict';
import { describeTarget } from '../../../src/permissions/analysis';
import { corpus, decideSimulated } from './corpus';

/**
 * The adversarial corpus through the pure policy (src/permissions), on a simulated file system for
 * each platform (test/unit/permissions/fakeFs.ts). Every case asserts the decision; benign cases
 * of the same shapes must be allowed. The same cases run end to end through `hermes-acp-run` in
 * runnerCorpus.test.ts.
 */
suite('permission corpus: the pure policy', () => {
  test('has at least 150 cases in every group, benign ones included', () => {
    const groups = new Map<string, { total: number; allowed: number }>();
    for (const c of corpus) {
      const g = groups.get(c.group) ?? { total: 0, allowed: 0 };
      groups.set(c.group, { total: g.total + 1, allowed: g.allowed + (c.expect === 'allow' ? 1 : 0) });
    }
    console.log(`      corpus: ${corpus.length} cases: ${[...groups].map(([g, n]) => `${g} ${n.total} (${n.allowed} benign)`).join(', ')}`);
    assert.ok(corpus.length >= 150, `${corpus.length} cases`);
    for (const [g, n] of groups) {
      assert.ok(n.allowed > 0 && n.allowed < n.total, `${g}: benign and adversarial cases`);
    }
    assert.equal(new Set(corpus.map((c) => `${c.group}: ${c.name}`)).size, corpus.length, 'case names are unique');
  });

  for (const [i, c] of corpus.entries()) {
    test(`${c.group} [${c.semantics ?? 'posix'}]: ${c.name} → ${c.expect}`, () => {
      const d = decideSimulated(c, i);
      const why = d.effect === 'ask' ? d.reason : d.rule;
      assert.equal(d.effect, c.expect, `${why}\n  checked: ${d.analysis.targets.map(describeTarget).join(' | ')}\n  problems: ${d.analysis.problems.join(' | ')}`);
    });
  }
});
