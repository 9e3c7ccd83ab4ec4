import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { fastSessionNotification } from '../../../src/acp/updateFastPath';
import { checkSetupResponse, parseSessionNotification, parseWithSchema } from '../../../src/acp/updateValidation';
import { zNewSessionResponse } from '../../../src/acp/sdkSchema';
import { readFixture } from '../../agents/fixtureFile';
import { fixturesDir } from '../../support/paths';
import * as legacy from './legacyUpdateGuard';

/** JSON with sorted keys and without undefined members: equal text = equal wire value. */
function canon(value: unknown): string {
  return JSON.stringify(value, (_key, v: unknown) =>
    v !== null && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(Object.keys(v).sort().map((k) => [k, (v as Record<string, unknown>)[k]]))
      : v,
  );
}

/** Every `session/update` params an agent sent in the recorded transcripts, with where it came from. */
function recordedUpdates(): { where: string; params: unknown }[] {
  const out: { where: string; params: unknown }[] = [];
  for (const dir of ['hermes', 'agents']) {
    for (const file of readdirSync(path.join(fixturesDir, dir)).filter((f) => f.endsWith('.jsonl'))) {
      for (const e of readFixture(path.join(fixturesDir, dir, file))) {
        if (e.type === 'frame' && e.from === 'agent' && e.method === 'session/update') {
          out.push({ where: `${dir}/${file}:${e.line}`, params: (JSON.parse(e.raw) as { params: unknown }).params });
        }
      }
    }
  }
  return out;
}

interface HostileCase {
  readonly id: string;
  readonly expect: 'rejected' | 'salvaged';
  readonly reason: string;
  readonly update: unknown;
  readonly benign: unknown;
}
interface LenientCase {
  readonly id: string;
  readonly dropped: string;
  readonly update: Record<string, unknown>;
}
export const hostile = JSON.parse(readFileSync(path.join(fixturesDir, 'hostile', 'updates.json'), 'utf8')) as {
  readonly cases: readonly HostileCase[];
  readonly lenient: readonly LenientCase[];
};

const asParams = (update: unknown): Record<string, unknown> => ({ sessionId: 'sess-1', update });

/** Variants of `value` with one thing changed at one place: deleted, retyped, extended, polluted. */
function* mutants(value: unknown, maxPerValue: number): Generator<unknown> {
  const replacements: unknown[] = [null, 1.5, -1, 4294967296, 'weird', '', [], {}, true];
  let produced = 0;
  for (const at of placesIn(value, 5)) {
    const edits: ((target: unknown) => void)[] = [];
    const parent = at.length === 0 ? undefined : get(value, at.slice(0, -1));
    const key = at.at(-1);
    if (parent !== undefined && key !== undefined) {
      edits.push((t) => {
        const p = get(t, at.slice(0, -1)) as Record<PropertyKey, unknown>;
        if (Array.isArray(p)) {
          p.splice(Number(key), 1);
        } else {
          delete p[key];
        }
      });
      for (const r of replacements) {
        edits.push((t) => {
          (get(t, at.slice(0, -1)) as Record<PropertyKey, unknown>)[key] = structuredClone(r);
        });
      }
    }
    const here = get(value, at);
    if (here !== null && typeof here === 'object' && !Array.isArray(here)) {
      edits.push((t) => {
        (get(t, at) as Record<string, unknown>).zzUnknown = 1;
      });
      edits.push((t) => {
        Object.defineProperty(get(t, at), '__proto__', { value: { polluted: 1 }, enumerable: true, configurable: true, writable: true });
      });
    }
    if (Array.isArray(here)) {
      edits.push((t) => (get(t, at) as unknown[]).push({ type: 'weird' }));
      edits.push((t) => (get(t, at) as unknown[]).push(null));
    }
    for (const edit of edits) {
      const copy = structuredClone(value);
      edit(copy);
      yield copy;
      if (++produced >= maxPerValue) {
        return;
      }
    }
  }
}

function placesIn(value: unknown, depth: number, at: PropertyKey[] = []): PropertyKey[][] {
  const out: PropertyKey[][] = [at];
  if (depth === 0 || value === null || typeof value !== 'object') {
    return out;
  }
  const keys = Array.isArray(value) ? value.map((_, i) => i).slice(0, 3) : Object.keys(value);
  for (const k of keys) {
    out.push(...placesIn((value as Record<PropertyKey, unknown>)[k], depth - 1, [...at, k]));
  }
  return out;
}

function get(value: unknown, at: readonly PropertyKey[]): unknown {
  let v = value;
  for (const k of at) {
    v = (v as Record<PropertyKey, unknown>)[k];
  }
  return v;
}

suite('session/update validation with the SDK schema', () => {
  suite('recorded transcripts, against the hand-written guard it replaces', () => {
    const updates = recordedUpdates();

    test('the transcripts hold updates of every agent (the test has something to compare)', () => {
      assert.ok(updates.length > 300, `${updates.length} updates`);
      for (const agent of ['hermes/', 'claude-', 'codex-', 'sdk-example']) {
        assert.ok(updates.some((u) => u.where.includes(agent)), agent);
      }
    });

    test('every update the old guard accepted passes, unchanged (nothing stripped, reset or dropped; _meta kept)', () => {
      const problems: string[] = [];
      for (const { where, params } of updates) {
        const old = legacy.parseSessionNotification(params);
        const now = parseSessionNotification(params);
        if (old.ok && !now.ok) {
          problems.push(`${where}: rejected: ${now.reason}`);
        } else if (now.ok && (now.salvaged !== undefined || canon(now.value) !== canon(params))) {
          problems.push(`${where}: changed: ${JSON.stringify(now.salvaged)}`);
        }
      }
      assert.deepEqual(problems, []);
    });

    test('_meta is kept on every variant (the old guard dropped it on plans, usage, modes, commands, config and notices)', () => {
      const droppedBefore = new Set<string>();
      for (const c of hostile.cases) {
        const update: Record<string, unknown> = { ...(c.benign as Record<string, unknown>), _meta: { vendor: { note: c.id } } };
        const params = { ...asParams(update), _meta: { traceparent: '00-abc-def-01' } };
        const now = parseSessionNotification(params);
        assert.ok(now.ok && canon(now.value) === canon(params), c.id);
        const old = legacy.parseSessionNotification(params);
        if (old.ok && !canon(old.value).includes('"vendor"')) {
          droppedBefore.add(String(update.sessionUpdate));
        }
      }
      assert.deepEqual([...droppedBefore].sort(), ['available_commands_update', 'config_option_update', 'current_mode_update', 'notice', 'plan', 'usage_update']);
    });

    test('the fast path takes most of them, and returns exactly what the schema returns', () => {
      let fast = 0;
      for (const { where, params } of updates) {
        const f = fastSessionNotification(params);
        if (f === undefined) {
          continue;
        }
        fast++;
        const slow = parseWithSchema(params);
        assert.ok(slow.ok, where);
        assert.equal(slow.salvaged, undefined, where);
        assert.equal(canon(f), canon(slow.value), where);
      }
      assert.ok(fast > updates.length / 2, `fast path took ${fast} of ${updates.length}`);
    });
  });

  suite('the fast path is equivalent to the SDK schema', () => {
    test('on thousands of one-edit variants of recorded and hostile updates, it accepts only what the schema returns unchanged', function () {
      this.timeout(120_000);
      const bases: unknown[] = [...recordedUpdates().map((u) => u.params), ...hostile.cases.flatMap((c) => [asParams(c.update), asParams(c.benign)])];
      // One base per shape: the recordings repeat the same chunk thousands of times.
      const byShape = new Map<string, unknown>();
      for (const b of bases) {
        byShape.set(canon(b).replace(/"(?:[^"\\]|\\.)*"/g, 's').replace(/-?\d+(\.\d+)?/g, 'n').slice(0, 400), b);
      }
      let checked = 0;
      let fastAccepted = 0;
      for (const base of byShape.values()) {
        for (const m of [base, ...mutants(base, 120)]) {
          checked++;
          const full = parseSessionNotification(m);
          const slow = parseWithSchema(m);
          assert.equal(full.ok, slow.ok, canon(m));
          if (full.ok && slow.ok) {
            assert.equal(canon(full.value), canon(slow.value), canon(m));
          }
          const fast = fastSessionNotification(m);
          if (fast !== undefined) {
            fastAccepted++;
            assert.ok(slow.ok, `fast accepted what the schema rejects: ${canon(m)}`);
            assert.equal(slow.salvaged, undefined, `fast accepted what the schema changes: ${canon(m)}`);
            assert.equal(canon(fast), canon(slow.value));
          }
        }
      }
      assert.ok(checked > 5000, `${checked} variants`);
      assert.ok(fastAccepted > 200 && fastAccepted < checked / 2, `fast path accepted ${fastAccepted} of ${checked}`);
    });
  });

  suite('hostile updates (test/fixtures/hostile/updates.json)', () => {
    for (const c of hostile.cases) {
      test(`${c.id}: ${c.expect}, and its benign twin passes unchanged`, () => {
        const bad = parseSessionNotification(asParams(c.update));
        if (c.expect === 'rejected') {
          assert.equal(bad.ok, false);
          assert.ok(!bad.ok && bad.reason.includes(c.reason), !bad.ok ? bad.reason : '');
          assert.equal(!bad.ok ? bad.sessionId : undefined, 'sess-1');
        } else {
          assert.ok(bad.ok && bad.salvaged !== undefined, JSON.stringify(bad));
          assert.ok(bad.salvaged.droppedItems.some((d) => d.includes(c.reason)), JSON.stringify(bad.salvaged));
        }
        const good = parseSessionNotification(asParams(c.benign));
        assert.ok(good.ok && good.salvaged === undefined, JSON.stringify(good));
        assert.equal(canon(good.value), canon(asParams(c.benign)));
      });
    }

    for (const c of hostile.lenient) {
      test(`${c.id}: the schema resets ${c.dropped}; nothing the user sees is dropped`, () => {
        const r = parseSessionNotification(asParams(c.update));
        assert.ok(r.ok && r.salvaged !== undefined, JSON.stringify(r));
        assert.deepEqual(r.salvaged.droppedItems, []);
        assert.ok(r.salvaged.droppedFields.includes(c.dropped), JSON.stringify(r.salvaged));
        assert.equal(({} as Record<string, unknown>).polluted, undefined, 'Object.prototype untouched');
      });
    }

    test('hostile content (payloads.json: HTML, SVG, Markdown, bidi) is valid ACP: it passes unchanged, as text, titles, paths and diffs', () => {
      const corpus = JSON.parse(readFileSync(path.join(fixturesDir, 'hostile', 'payloads.json'), 'utf8')) as { payloads: { id: string; text: string | null }[] };
      const texts = corpus.payloads.flatMap((p) => (typeof p.text === 'string' ? [p.text.replaceAll('{{B}}', 'console.log(1)')] : []));
      assert.ok(texts.length > 50);
      for (const text of texts) {
        for (const update of [
          { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } },
          { sessionUpdate: 'tool_call', toolCallId: text, title: text, kind: 'edit', locations: [{ path: text }], content: [{ type: 'diff', path: text, oldText: text, newText: text }] },
          { sessionUpdate: 'plan', entries: [{ content: text, priority: 'high', status: 'pending' }] },
          { sessionUpdate: 'session_info_update', title: text },
        ]) {
          const r = parseSessionNotification(asParams(update));
          assert.ok(r.ok && r.salvaged === undefined && canon(r.value) === canon(asParams(update)), `${update.sessionUpdate}: ${text.slice(0, 60)}`);
          assert.ok(legacy.parseSessionNotification(asParams(update)).ok);
        }
      }
    });

    test('params that are not a session notification are rejected with a reason and no session', () => {
      for (const [params, reason] of [
        [null, 'params is not an object'],
        [[], 'params is not an object'],
        [{ update: { sessionUpdate: 'plan', entries: [] } }, 'missing sessionId'],
        [{ sessionId: 7, update: { sessionUpdate: 'plan', entries: [] } }, 'missing sessionId'],
        [{ sessionId: 's' }, 'missing update'],
      ] as const) {
        const r = parseSessionNotification(params);
        assert.ok(!r.ok && r.reason === reason, JSON.stringify(r));
      }
    });
  });

  suite('session setup answers (the SDK validates no responses)', () => {
    test('a config option with options: null is left out of session/new; Hermes\' legacy models stay', () => {
      const response = {
        sessionId: 's',
        models: { currentModelId: 'a', availableModels: [{ modelId: 'a', name: 'A' }] },
        configOptions: [
          { id: 'mode', name: 'Mode', type: 'select', currentValue: 'x', options: null },
          { id: 'model', name: 'Model', type: 'select', currentValue: 'a', options: [{ value: 'a', name: 'A' }] },
        ],
      };
      const { value, note } = checkSetupResponse(response, zNewSessionResponse);
      assert.deepEqual(value.models, response.models);
      assert.deepEqual(
        value.configOptions.map((o) => o.id),
        ['model'],
      );
      assert.match(note ?? '', /configOptions: 1 of 2 items/);
    });

    test('valid answers come back as sent, with no note', () => {
      const response = { sessionId: 's', modes: { currentModeId: 'a', availableModes: [{ id: 'a', name: 'A' }] }, _meta: { x: 1 } };
      const { value, note } = checkSetupResponse(response, zNewSessionResponse);
      assert.equal(canon(value), canon(response));
      assert.equal(note, undefined);
    });
  });
});
