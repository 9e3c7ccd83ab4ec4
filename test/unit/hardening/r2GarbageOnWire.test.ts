/**
 * R2 — garbage on the wire. Non-JSON lines, truncated JSON, a 40 MB single line (beyond the SDK's
 * 32 MiB limit), invalid UTF-8 and responses to unknown ids, interleaved with a normal turn: the
 * turn completes, every bad line is in the traffic log, memory stays bounded.
 *
 * 1. The scripted agent (a real process): `[garbage]` 200 times (5 bad lines each) around a
 *    `[huge-line mb=40]`, with the client's line limit at the SDK's 32 MiB (the line is skipped).
 * 2. The same with the default limit the extension runs with (AgentHost passes none: 64 MiB), so
 *    the 40 MB line is read, parsed and logged as "not a JSON-RPC object".
 * 3. An in-process hostile peer for framing cases a process cannot time precisely: the 40 MB line
 *    in 64 KB pieces, a UTF-8 sequence split across chunks, CRLF, duplicate and unknown-id
 *    responses while a request is in flight, JSON that is not JSON-RPC, a truncated last line.
 */
import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import { PassThrough } from 'node:stream';
import type * as acp from '@agentclientprotocol/sdk';
import { AcpClient } from '../../../src/acp/acpConnection';
import { AgentProcess } from '../../../src/wire/agentProcess';
import { AgentExitedError } from '../../../src/agentPort/agentErrors';
import { TrafficLog, type TrafficEntry } from '../../../src/wire/trafficLog';
import { quirksFor } from '../../../src/session/agentQuirks';
import { SessionController } from '../../../src/session/sessionController';
import { scriptedAgentCommand, tempWorkspace } from '../../support/agentStack';
import { heapAfterGc, killTagged, mb, MiB, newTag, scaled, summary, TAG_VAR, within } from './support';

const HUGE_MB = 40;
const SDK_LIMIT = 32 * MiB;

interface Sampler {
  stop(): { peakRss: number; peakHeapExternal: number };
}

/** heapUsed + external (external includes ArrayBuffers, i.e. Buffers read from the pipe). */
function heapAndExternal(): number {
  const m = process.memoryUsage();
  return m.heapUsed + m.external;
}

/** Samples rss and heap+external every 5 ms (the reads of a 40 MB line are synchronous, so this is a lower bound of the true peak). */
function sampleMemory(): Sampler {
  let peakRss = 0;
  let peakHeapExternal = 0;
  const take = (): void => {
    const m = process.memoryUsage();
    peakRss = Math.max(peakRss, m.rss);
    peakHeapExternal = Math.max(peakHeapExternal, m.heapUsed + m.external);
  };
  take();
  const timer = setInterval(take, 5);
  return {
    stop: () => {
      clearInterval(timer);
      take();
      return { peakRss, peakHeapExternal };
    },
  };
}

function assistantText(controller: SessionController): string {
  return controller.state.entries
    .filter((e) => e.kind === 'assistant')
    .map((e) => (e.kind === 'assistant' ? e.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('') : ''))
    .join('\n');
}

/** Bad lines the scripted agent's `[garbage]` writes, and how the client must log each. */
const garbageKinds: { name: string; match: (e: TrafficEntry) => boolean }[] = [
  { name: 'non-JSON', match: (e) => e.kind === 'invalid' && e.text === 'this line is not JSON at all' && e.note?.startsWith('not JSON') === true },
  { name: 'truncated JSON', match: (e) => e.kind === 'invalid' && e.text.startsWith('{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"trunc') && e.note?.startsWith('not JSON') === true },
  { name: 'invalid UTF-8', match: (e) => e.method === '_scripted/bad_utf8' && e.note?.includes('invalid UTF-8 replaced') === true && e.text.includes('\ufffd') },
  { name: 'unknown-id response', match: (e) => e.kind === 'ignored' && e.id === 987654321 && e.note === 'response to an unknown request id' },
  { name: 'unknown notification', match: (e) => e.kind === 'notification' && e.method === 'scripted/unknown_notification' },
];

suite('R2 hardening: garbage on the wire', function () {
  this.timeout(scaled(180_000, 120_000));
  const repeats = scaled(200, 50);
  const tag = newTag('r2');

  suiteTeardown(() => {
    killTagged(tag);
  });

  async function garbageTurn(maxLineBytes: number | undefined): Promise<{ line: string; problems: string[] }> {
    const ws = tempWorkspace('hermes-r2-');
    const cmd = scriptedAgentCommand(ws, { SCRIPTED_AGENT_CHUNK_DELAY_MS: '0', [TAG_VAR]: tag });
    const proc = await AgentProcess.start(cmd, { killGraceMs: 1000 });
    const log = new TrafficLog();
    proc.onStderrLine((line) => log.append({ dir: 'stderr', kind: 'text', size: line.length, text: line }));
    const client = new AcpClient(proc, {
      clientInfo: { name: 'hermes-acp-hardening', version: '0.0.0' },
      ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
      log,
      ...(maxLineBytes !== undefined ? { maxLineBytes } : {}),
    });
    let ids = 0;
    const controller = new SessionController({ connection: client, cwd: ws, quirks: quirksFor(undefined), now: Date.now, newId: () => `e${++ids}` });
    try {
      await within(client.initialize(), 20_000, 'initialize');
      await within(controller.start(), 20_000, 'session/new');
      const half = Math.floor(repeats / 2);
      const prompt = `[plain] ${'[garbage] '.repeat(half)}[huge-line mb=${HUGE_MB}] ${'[garbage] '.repeat(repeats - half)}[tools] [plain]`;
      const heapBefore = heapAfterGc();
      const baseline = heapAndExternal();
      const sampler = sampleMemory();
      const started = Date.now();
      const result = await within(controller.prompt([{ type: 'text', text: prompt }]), 120_000, 'the garbage turn');
      const ms = Date.now() - started;
      const peak = sampler.stop();
      const heapAfter = heapAfterGc();

      // The turn completes, with every normal chunk around the garbage.
      assert.equal(result.kind, 'ended', `turn result: ${result.kind === 'ended' ? '' : String(result.error)}`);
      assert.equal(result.kind === 'ended' ? result.stopReason : undefined, 'end_turn');
      assert.equal(client.isClosed, false, 'the connection survived');
      const text = assistantText(controller);
      assert.equal(text.split('Some garbage was written between these chunks.').length - 1, repeats, 'every garbage reply arrived whole');
      assert.match(text, /After the huge line, the stream continues normally\./);
      assert.ok(text.includes('Hello from the scripted agent!'));
      assert.equal(controller.state.phase, 'idle');

      // Every bad line is in the traffic log (nothing evicted: the default log holds them all).
      const entries = log.snapshot();
      assert.equal(entries[0]?.seq, 1, 'no entry was evicted from the traffic log');
      const counts = garbageKinds.map((k) => ({ name: k.name, n: entries.filter(k.match).length }));
      for (const c of counts) {
        assert.equal(c.n, repeats, `${c.name} lines in the traffic log`);
      }
      const lineSize = HUGE_MB * MiB + 2; // "x…x" without the newline
      const huge = entries.filter((e) => e.dir === 'in' && e.size === lineSize);
      assert.equal(huge.length, 1, 'the 40 MB line is in the traffic log once');
      const hugeEntry = huge[0];
      assert.ok(hugeEntry !== undefined);
      let hugeHow: string;
      if (maxLineBytes !== undefined && maxLineBytes < lineSize) {
        assert.equal(hugeEntry.kind, 'oversized');
        assert.ok(hugeEntry.text.length <= 512, 'only a prefix of the skipped line is kept');
        hugeHow = `skipped as oversized (${hugeEntry.text.length}-char prefix kept)`;
      } else {
        assert.equal(hugeEntry.kind, 'invalid');
        assert.match(hugeEntry.note ?? '', /not a JSON-RPC object; kept the first 262144 of/);
        hugeHow = `read whole, parsed, logged as "not a JSON-RPC object" with a ${hugeEntry.text.length}-char prefix`;
      }

      // Memory stays bounded: what is retained after the turn is the traffic log (≤ its character
      // cap) and the transcript; transient peaks come from the huge line.
      const problems: string[] = [];
      const retained = heapAfter - heapBefore;
      const limit = maxLineBytes ?? 64 * MiB;
      if (log.heldChars > 16 * MiB) {
        problems.push(`traffic log holds ${log.heldChars} chars, above its 16 MiB cap`);
      }
      const retainedBound = 2 * log.heldChars + 16 * MiB;
      if (retained > retainedBound) {
        problems.push(
          `heap retained after the turn: ${mb(retained)} (bound ${mb(retainedBound)}; the traffic log says it holds ${log.heldChars} chars) — ` +
            'TrafficLog.append keeps `text.slice(0, maxEntryChars)`, a V8 sliced string that keeps the whole line alive',
        );
      }
      // Skipped: the pieces held until the limit (≤ limit) + the copy taken for the 512-byte prefix (≤ limit).
      // Read whole: the pieces + the joined line + the decoded text + the parsed string (4 × the line).
      const skipped = limit < lineSize;
      const transient = peak.peakHeapExternal - baseline;
      const transientBound = (skipped ? 2 : 4) * Math.min(limit, lineSize) + 48 * MiB;
      if (transient > transientBound) {
        problems.push(`peak heap+external growth ${mb(transient)} (bound ${mb(transientBound)})`);
      }
      const bad = counts.map((c) => `${c.n} ${c.name}`).join(', ');
      return {
        line:
          `limit ${maxLineBytes === undefined ? 'default 64 MiB (as the extension)' : mb(maxLineBytes)}: ${bad} + one ${HUGE_MB} MB line ${hugeHow}; ` +
          `turn ended end_turn in ${ms} ms with all ${repeats} interleaved replies whole; ${repeats * 5 + 1}/${repeats * 5 + 1} bad lines in the traffic log; ` +
          `heap retained ${mb(retained)} (bound ${mb(retainedBound)}), traffic log ${mb(log.heldChars)} chars of its 16 MiB cap, ` +
          `sampled peak heap+external +${mb(transient)} (bound ${mb(transientBound)}), peak rss ${mb(peak.peakRss)}` +
          (problems.length > 0 ? ` — FAILED: ${problems.length} bound(s) exceeded` : ''),
        problems,
      };
    } finally {
      controller.dispose();
      client.dispose();
      await proc.dispose();
      fs.rmSync(ws, { recursive: true, force: true });
    }
  }

  test(`${repeats} × [garbage] around a ${HUGE_MB} MB line, client limit at the SDK's 32 MiB: the line is skipped, the turn completes`, async () => {
    const r = await garbageTurn(SDK_LIMIT);
    summary(`R2a: ${r.line}`);
    assert.deepEqual(r.problems, []);
  });

  test(`the same with the default line limit the extension uses (64 MiB): the ${HUGE_MB} MB line is read and logged, the turn completes`, async () => {
    const r = await garbageTurn(undefined);
    summary(`R2b: ${r.line}`);
    assert.deepEqual(r.problems, []);
  });

  test('a hostile in-process peer: split lines, split UTF-8, CRLF, duplicate and unknown-id responses mid-request, non-JSON-RPC JSON, a truncated last line', async () => {
    const peer = hostilePeer();
    const log = new TrafficLog();
    const client = new AcpClient(peer.transport, {
      clientInfo: { name: 'hermes-acp-hardening', version: '0.0.0' },
      ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
      log,
      maxLineBytes: SDK_LIMIT,
    });
    const updates: acp.SessionNotification[] = [];
    client.subscribeSession('s1', (n) => updates.push(n));
    const heapBefore = heapAfterGc();
    const res = await within(client.prompt({ sessionId: 's1', prompt: [{ type: 'text', text: 'go' }] }), 30_000, 'prompt to the hostile peer');
    assert.equal(res.stopReason, 'end_turn');
    // A second request on the same connection still works.
    const list = await within(client.listSessions({}), 5000, 'session/list after the garbage');
    assert.deepEqual(list.sessions, []);
    const texts = updates.map((u) => (u.update.sessionUpdate === 'agent_message_chunk' && u.update.content.type === 'text' ? u.update.content.text : ''));
    assert.deepEqual(texts, ['one ', 'two ', 'drei → ', 'vier ', 'fünf']);
    const entries = log.snapshot();
    const find = (pred: (e: TrafficEntry) => boolean, what: string): TrafficEntry => {
      const e = entries.find(pred);
      assert.ok(e !== undefined, `traffic log lacks: ${what}`);
      return e;
    };
    find((e) => e.kind === 'oversized' && e.size === HUGE_MB * MiB, 'the 40 MB line in 64 KB pieces');
    find((e) => e.kind === 'ignored' && e.id === 'nobody-asked' && e.note === 'response to an unknown request id', 'response to an unknown string id');
    const dupes = entries.filter((e) => e.kind === 'ignored' && e.note === 'response to an unknown request id' && typeof e.id === 'number');
    assert.equal(dupes.length, 1, 'the duplicate prompt response is logged and dropped');
    for (const t of ['[1,2,3]', 'null', '42', '"just a string"']) {
      find((e) => e.kind === 'invalid' && e.text === t && e.note === 'not a JSON-RPC object', `JSON that is not JSON-RPC: ${t}`);
    }
    find((e) => e.kind === 'invalid' && e.text === '{"jsonrpc":"2.0","id":{"no":"object ids"},"result":{}}' && e.note === 'not a JSON-RPC request, response or notification', 'an object id');
    find((e) => e.kind === 'ignored' && e.method === 'session/update' && e.note !== undefined, 'a session/update with an unknown kind');
    await within(peer.end(), 5000, 'peer end');
    const closed = await within(client.closed, 5000, 'client closed after the peer ended');
    assert.ok(AgentExitedError.is(closed));
    assert.ok(client.isClosed);
    assert.ok(
      log.snapshot().some((e) => e.kind === 'invalid' && e.text.startsWith('{"jsonrpc":"2.0","method":"session/upd') && e.note?.startsWith('not JSON') === true),
      'the truncated last line (at EOF) is in the traffic log',
    );
    await assert.rejects(client.listSessions({}), (e: unknown) => AgentExitedError.is(e));
    const retained = heapAfterGc() - heapBefore;
    assert.ok(retained <= 2 * log.heldChars + 16 * MiB, `heap retained ${mb(retained)}`);
    summary(
      `R2c: in-process peer: 40 MB line in 64 KB pieces skipped, split UTF-8 and CRLF lines decoded, duplicate + unknown-id responses during an in-flight request dropped and logged, 5 non-JSON-RPC JSON lines logged, truncated last line logged at EOF; turn ended end_turn, next request answered; heap retained ${mb(retained)}`,
    );
  });

  test('the traffic log\'s memory bound holds for long lines: 10 lines of 10 M chars retain no more than the log says it holds', () => {
    const log = new TrafficLog();
    const before = heapAfterGc();
    for (let i = 0; i < 10; i++) {
      const line = JSON.stringify(`${'x'.repeat(10 * MiB)}${i}`);
      log.append({ dir: 'in', kind: 'invalid', size: line.length, text: line, note: 'not a JSON-RPC object' });
    }
    const retained = heapAfterGc() - before;
    const bound = 2 * log.heldChars + 8 * MiB;
    summary(`R2d: TrafficLog: 10 × 10 M-char lines appended; heldChars ${log.heldChars} (${mb(2 * log.heldChars)} at 2 B/char), heap retained ${mb(retained)} (bound ${mb(bound)})`);
    assert.ok(
      retained <= bound,
      `TrafficLog retains ${mb(retained)} while heldChars says ${log.heldChars}: text.slice(0, maxEntryChars) in TrafficLog.append keeps each whole line alive (V8 sliced string)`,
    );
    log.dispose();
  });
});

/**
 * An agent written by hand on plain streams: answers `session/prompt` and `session/list`, and
 * writes the hostile bytes around them in chunks of its choosing.
 */
function hostilePeer(): { transport: { stdin: PassThrough; stdout: PassThrough; exited: Promise<AgentExitedError> }; end(): Promise<void> } {
  const stdin = new PassThrough();
  const stdout = new PassThrough({ highWaterMark: 64 * 1024 });
  let resolveExit: (e: AgentExitedError) => void = () => undefined;
  const exited = new Promise<AgentExitedError>((resolve) => {
    resolveExit = resolve;
  });
  const write = (chunk: string | Buffer): Promise<void> =>
    new Promise((resolve) => {
      if (!stdout.write(chunk)) {
        stdout.once('drain', resolve);
      } else {
        setImmediate(resolve);
      }
    });
  const update = (text: string): string =>
    `${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } } } })}\n`;
  let buffered = '';
  stdin.on('data', (chunk: Buffer) => {
    buffered += chunk.toString('utf8');
    let nl: number;
    while ((nl = buffered.indexOf('\n')) >= 0) {
      const line = buffered.slice(0, nl);
      buffered = buffered.slice(nl + 1);
      void handle(JSON.parse(line) as { id?: number | string; method?: string });
    }
  });
  async function handle(msg: { id?: number | string; method?: string }): Promise<void> {
    if (msg.method === 'session/list') {
      await write(`${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { sessions: [] } })}\n`);
      return;
    }
    if (msg.method !== 'session/prompt' || msg.id === undefined) {
      return;
    }
    await write(update('one '));
    // 40 MB without a newline, in 64 KB pieces, then the newline with the next line in the same chunk.
    const piece = Buffer.alloc(64 * 1024, 0x78);
    for (let sent = 0; sent < HUGE_MB * MiB; sent += piece.length) {
      await write(piece);
    }
    await write(`\n${update('two ')}`);
    // A valid update whose UTF-8 sequence (→, 3 bytes) is split across two chunks.
    const split = Buffer.from(update('drei → '), 'utf8');
    const cut = split.indexOf(Buffer.from('→', 'utf8')) + 1;
    await write(split.subarray(0, cut));
    await write(split.subarray(cut));
    // CRLF framing, JSON that is not JSON-RPC, an object id, an unknown update kind, an unknown string id.
    await write(update('vier ').replace(/\n$/, '\r\n'));
    await write('[1,2,3]\nnull\n42\n"just a string"\n\n\n');
    await write('{"jsonrpc":"2.0","id":{"no":"object ids"},"result":{}}\n');
    await write(`${JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: 's1', update: { sessionUpdate: 'no_such_kind', x: 1 } } })}\n`);
    await write('{"jsonrpc":"2.0","id":"nobody-asked","result":{"stopReason":"end_turn"}}\n');
    await write(update('fünf'));
    const response = `${JSON.stringify({ jsonrpc: '2.0', id: msg.id, result: { stopReason: 'end_turn' } })}\n`;
    // The response, then the same response again (a duplicate for an id no longer pending).
    await write(response + response);
  }
  return {
    transport: { stdin, stdout, exited },
    end: async () => {
      // A truncated message as the very last bytes, then EOF and exit.
      await write('{"jsonrpc":"2.0","method":"session/upd');
      stdout.end();
      resolveExit(new AgentExitedError(0, null, '', false));
    },
  };
}
