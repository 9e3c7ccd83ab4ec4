import * as assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import { diffEntries, type EntryChange } from '../../../src/session/entryDiff';
import type { Entry } from '../../../src/session/sessionState';
import { indicesSetSince } from '../../../src/session/slices/entryList';
import { nextId, plan, SessionHarness, textChunk, toolCall, toolUpdate } from '../../builders/sessionBuilders';
import { rng } from '../../support/random';

/** What the walk over every entry finds: copies of the lists carry no record of how they were made. */
function walked(prev: readonly Entry[], next: readonly Entry[]): EntryChange[] {
  return diffEntries([...prev], [...next]);
}

const summary = (ops: readonly EntryChange[]): string[] => ops.map((o) => (o.op === 'remove' ? `remove ${o.index}+${o.count}` : `${o.op} ${o.index} ${o.entry.id}`));

/**
 * A session of `turns` turns driven by random agent traffic: text, thoughts, tool calls and updates
 * to earlier ones (still open or not), plans, batches of updates (reduced in place as drafts), turn
 * ends (which close open tools by copying the list another way).
 */
function randomSession(seed: number, turns: number, onStep: (prev: readonly Entry[], next: readonly Entry[]) => void): SessionHarness {
  const random = rng(seed);
  const h = new SessionHarness();
  const tools: string[] = [];
  const step = (apply: () => void): void => {
    const prev = h.state.entries;
    apply();
    onStep(prev, h.state.entries);
  };
  const someUpdate = (): acp.SessionUpdate => {
    const r = random();
    if (r < 0.45) {
      return textChunk(`word${Math.floor(random() * 100)} `, 'agent_message_chunk', `m${h.turn}`);
    }
    if (r < 0.55) {
      return textChunk('hmm ', 'agent_thought_chunk', `t${h.turn}`);
    }
    if (r < 0.7) {
      const id = `tool-${tools.length}`;
      tools.push(id);
      return toolCall(id, { title: `run ${id}`, kind: 'execute', status: 'in_progress' });
    }
    if (r < 0.9 && tools.length > 0) {
      const id = tools[Math.floor(random() * tools.length)] ?? 'none';
      return toolUpdate(id, { status: random() < 0.5 ? 'completed' : 'in_progress', content: [{ type: 'content', content: { type: 'text', text: `out ${random()}` } }] });
    }
    return plan(['step one', random() < 0.5 ? 'completed' : 'in_progress'], ['step two', 'pending']);
  };
  for (let t = 0; t < turns; t++) {
    step(() => h.prompt(`prompt ${t}`));
    const updates = 2 + Math.floor(random() * 6);
    for (let u = 0; u < updates; u++) {
      if (random() < 0.3) {
        const n = 2 + Math.floor(random() * 5);
        step(() => h.apply({ type: 'updatesReceived', updates: Array.from({ length: n }, () => ({ id: nextId(), at: h.tick(), update: someUpdate() })) }));
      } else {
        step(() => h.update(someUpdate()));
      }
    }
    step(() => h.end());
  }
  return h;
}

suite('entry diff: following how the reducer made a list', () => {
  test('every step of random traffic into a long session diffs as the walk over every entry does', () => {
    for (const seed of [1, 2, 3]) {
      let steps = 0;
      let compared = 0;
      let followed = 0;
      const h = randomSession(seed, 120, (prev, next) => {
        steps++;
        // Only long lists are recorded; compare every step once the session is long.
        if (next.length >= 256) {
          assert.deepEqual(summary(diffEntries(prev, next)), summary(walked(prev, next)), `seed ${seed}, step ${steps}`);
          compared++;
          followed += indicesSetSince(prev, next) !== undefined ? 1 : 0;
        }
      });
      assert.ok(h.state.entries.length > 300, `a long session (${h.state.entries.length} entries)`);
      assert.ok(compared > 100, `${compared} steps compared`);
      // Most steps are followed (a turn's end, which closes open tools another way, is walked).
      assert.ok(followed > compared * 0.7, `${followed} of ${compared} steps followed the records`);
    }
  });

  test('lists several steps apart (a post that coalesced many changes) diff as the walk does, far apart too', () => {
    const history: (readonly Entry[])[] = [];
    randomSession(7, 150, (_prev, next) => history.push(next));
    let compared = 0;
    for (let i = 0; i < history.length; i += 5) {
      for (const gap of [1, 3, 10, 40, 70, 200]) {
        const prev = history[i];
        const next = history[i + gap];
        if (prev === undefined || next === undefined || next.length < 256) {
          continue;
        }
        assert.deepEqual(summary(diffEntries(prev, next)), summary(walked(prev, next)), `from step ${i}, ${gap} later`);
        compared++;
      }
    }
    assert.ok(compared > 100);
  });

  test('a streamed chunk in a 1,000-entry session looks at the entries it changed, not at every entry', () => {
    const h = randomSession(11, 260, () => undefined);
    h.prompt('one more');
    h.update(textChunk('start ', 'agent_message_chunk', 'live'));
    const prev = h.state.entries;
    assert.ok(prev.length >= 1000, `${prev.length} entries`);
    h.update(textChunk('more', 'agent_message_chunk', 'live'));
    const next = h.state.entries;
    // The proof it did not walk: an entry it was not told about that differs (a list edited in
    // place, which the reducer never does) goes unseen, while the walk sees it.
    const edited = next as Entry[];
    const first = edited[0];
    assert.ok(first !== undefined);
    edited[0] = { ...first };
    assert.deepEqual(summary(diffEntries(prev, next)), [`replace ${next.length - 1} ${next.at(-1)?.id ?? ''}`]);
    assert.deepEqual(summary(walked(prev, next)), [`replace 0 ${first.id}`, `replace ${next.length - 1} ${next.at(-1)?.id ?? ''}`]);
  });
});
