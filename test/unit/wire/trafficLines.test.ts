import * as assert from 'node:assert/strict';
import { TrafficLines, updateSummaryMs, type TrafficLineLevel, type TrafficTraceLevel } from '../../../src/wire/trafficLines';
import { TrafficLog } from '../../../src/wire/trafficLog';

/** A traffic log feeding `TrafficLines` at `level`, with a clock and timers the test moves. */
function rig(level: TrafficTraceLevel): { log: TrafficLog; lines: TrafficLines; out: { level: TrafficLineLevel; line: string }[]; advance(ms: number): void } {
  let now = 1_000;
  const timers = new Map<number, { at: number; cb: () => void }>();
  let next = 1;
  const out: { level: TrafficLineLevel; line: string }[] = [];
  const lines = new TrafficLines(() => level, {
    write: (l, line) => out.push({ level: l, line }),
    setTimeout: (cb, ms) => {
      timers.set(next, { at: now + ms, cb });
      return next++;
    },
    clearTimeout: (h) => timers.delete(h as number),
    now: () => now,
  });
  const log = new TrafficLog({ now: () => now });
  log.onDidAppend((e) => lines.append('Agent', e));
  return {
    log,
    lines,
    out,
    advance(ms) {
      now += ms;
      for (const [id, t] of [...timers]) {
        if (t.at <= now) {
          timers.delete(id);
          t.cb();
        }
      }
    },
  };
}

/** A traffic input with its size on the wire, as the connection records it. */
const sized = <T extends { text: string }>(input: T): T & { size: number } => ({ ...input, size: Buffer.byteLength(input.text) });

const chunk = (i: number): string => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: `w${i} ` } } } });

suite('traffic lines: what hermes.trace writes to the Hermes Traffic channel', () => {
  test('"messages": a streamed reply is a few summary lines, requests and responses one line each', () => {
    const r = rig('messages');
    r.log.append(sized({ dir: 'out', kind: 'request', method: 'session/prompt', id: 3, text: '{"jsonrpc":"2.0","id":3,"method":"session/prompt"}' }));
    for (let i = 0; i < 20_000; i++) {
      r.log.append(sized({ dir: 'in', kind: 'notification', method: 'session/update', text: chunk(i) }));
      if (i % 1_000 === 999) {
        r.advance(100); // 1,000 chunks every 100 ms: 2 s in all
      }
    }
    r.log.append(sized({ dir: 'in', kind: 'response', id: 3, text: '{"jsonrpc":"2.0","id":3,"result":{"stopReason":"end_turn"}}' }));
    const lines = r.out.map((o) => o.line);
    assert.ok(lines.length <= 5, `${lines.length} lines:\n${lines.join('\n')}`);
    assert.match(lines[0] ?? '', /→ request session\/prompt #3/);
    assert.match(lines.at(-1) ?? '', /← response #3/);
    const summed = lines.slice(1, -1).map((l) => Number(/×([\d,]+)/.exec(l)?.[1]?.replace(/,/g, '')));
    assert.equal(summed.reduce((a, b) => a + b, 0), 20_000, 'every update is counted');
    assert.match(lines[1] ?? '', /← notification session\/update ×10,000 \([\d,]+ KB in 1\.0 s; hermes\.trace "verbose" shows each\)/);
  });

  test('"messages": a pause writes what is pending after a second; problems are never summed up', () => {
    const r = rig('messages');
    r.log.append(sized({ dir: 'in', kind: 'notification', method: 'session/update', text: chunk(1) }));
    assert.equal(r.out.length, 0);
    r.advance(updateSummaryMs);
    assert.equal(r.out.length, 1);
    r.log.append(sized({ dir: 'in', kind: 'invalid', text: 'not json', note: 'Unexpected token' }));
    assert.equal(r.out.at(-1)?.level, 'warn');
  });

  test('"verbose" writes each update in full; "off" only problems and stderr', () => {
    const v = rig('verbose');
    for (let i = 0; i < 50; i++) {
      v.log.append(sized({ dir: 'in', kind: 'notification', method: 'session/update', text: chunk(i) }));
    }
    assert.equal(v.out.length, 50);
    assert.ok(v.out[7]?.line.includes('"text":"w7 "'));
    const off = rig('off');
    off.log.append(sized({ dir: 'in', kind: 'notification', method: 'session/update', text: chunk(1) }));
    off.log.append(sized({ dir: 'stderr', kind: 'text', text: 'boom' }));
    off.advance(updateSummaryMs * 2);
    assert.deepEqual(off.out.map((o) => o.line), ['[Agent] stderr boom']);
  });
});
