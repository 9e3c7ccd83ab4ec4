/**
 * Timing, volume and robustness scenarios: slow and bursty streams, stdout garbage, oversized
 * lines, crashes and benchmark replays.
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import { appendFileSync, readFileSync } from 'node:fs';
import { log } from './agentLog';
import { intArg, strArg, type Marker } from './markers';
import { exitAfterFlush } from './runtime';
import { TurnCancelled, type Turn } from './turn';

/** "tick i" every `ms`, `n` times (like the `[slow]` stream in Hermes' cancel fixture). */
export async function slow(turn: Turn, marker: Marker): Promise<void> {
  const n = intArg(marker, 'n', 20, 1);
  const ms = intArg(marker, 'ms', 250);
  const messageId = turn.newMessageId();
  for (let i = 1; i <= n; i++) {
    await turn.sleep(ms);
    await turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: `tick ${i}\n` } });
  }
}

/** `n` chunks back to back; only awaits stdout, so the client sees them as fast as it can read. */
export async function burst(turn: Turn, marker: Marker): Promise<void> {
  const n = intArg(marker, 'n', 1000, 1);
  const messageId = turn.newMessageId();
  for (let i = 1; i <= n; i++) {
    turn.throwIfCancelled();
    await turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: `b${i} ` } });
  }
}

/**
 * A normal streamed reply with non-ACP lines written straight to stdout in between. Each raw write
 * goes through the same serialized writer as the SDK, so it is always a whole line.
 */
export async function garbage(turn: Turn): Promise<void> {
  const raw: (string | Buffer)[] = [
    'this line is not JSON at all\n',
    '{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"trunc\n',
    Buffer.concat([Buffer.from('{"jsonrpc":"2.0","method":"_scripted/bad_utf8","params":{"text":"'), Buffer.from([0xff, 0xfe, 0xc3]), Buffer.from('"}}\n')]),
    '{"jsonrpc":"2.0","id":987654321,"result":{"note":"response to a request nobody sent"}}\n',
    '{"jsonrpc":"2.0","method":"scripted/unknown_notification","params":{"hello":"world"}}\n',
  ];
  const chunks = ['Some ', 'garbage ', 'was ', 'written ', 'between ', 'these ', 'chunks.'];
  const messageId = turn.newMessageId();
  for (const [i, chunk] of chunks.entries()) {
    await turn.send({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: chunk } });
    const junk = raw[i];
    if (junk !== undefined) {
      await turn.runtime.stdout.writeRaw(junk);
    }
    await turn.sleep(turn.chunkDelayMs);
  }
}

/** One stdout line of `mb` MB (a giant JSON string, not a JSON-RPC message), then a normal reply. */
export async function hugeLine(turn: Turn, marker: Marker): Promise<void> {
  const mb = intArg(marker, 'mb', 1, 1, 1024);
  await turn.say(`Next comes a single ${mb} MB line.`);
  const line = Buffer.alloc(mb * 1024 * 1024 + 3, 'x');
  line[0] = 0x22; // "
  line[line.length - 2] = 0x22;
  line[line.length - 1] = 0x0a; // \n
  log(`writing a ${mb} MB line to stdout`);
  await turn.runtime.stdout.writeRaw(line);
  await turn.say('After the huge line, the stream continues normally.');
}

/** Exits (mode exit) or SIGKILLs itself (mode kill) at the chosen point of the turn. */
export async function crash(turn: Turn, marker: Marker): Promise<void> {
  const when = strArg(marker, 'when', 'start');
  const mode = strArg(marker, 'mode', 'exit');
  const code = intArg(marker, 'code', 1, 0, 255);
  if (when === 'mid') {
    await turn.stream('agent_message_chunk', ['Working ', 'on ', 'it ']);
  } else if (when === 'permission') {
    turn.runtime.counters.permCheck += 1;
    void turn
      .requestPermission(
        {
          toolCallId: `perm-check-${turn.runtime.counters.permCheck}`,
          title: 'Dangerous command: rm -r ./build',
          kind: 'execute',
          status: 'pending',
          content: [{ type: 'content', content: { type: 'text', text: '$ rm -r ./build' } }],
          rawInput: { command: 'rm -r ./build' },
        },
        [
          { optionId: 'allow_once', name: 'Allow once', kind: 'allow_once' },
          { optionId: 'deny', name: 'Deny', kind: 'reject_once' },
        ],
      )
      .catch(() => undefined);
    // Let the request reach the client before dying.
    await new Promise((r) => setTimeout(r, 50));
  }
  log('about to crash');
  if (mode === 'kill') {
    await turn.runtime.stdout.drain();
    process.kill(process.pid, 'SIGKILL');
  }
  await exitAfterFlush(turn.runtime, code);
}

function asUpdate(value: unknown): SessionUpdate | undefined {
  if (typeof value !== 'object' || value === null) {
    return undefined;
  }
  const candidate = 'update' in value ? value.update : value;
  if (typeof candidate === 'object' && candidate !== null && 'sessionUpdate' in candidate) {
    // Replayed verbatim on purpose: benchmark files may hold anything an agent could send.
    return candidate as SessionUpdate;
  }
  return undefined;
}

/** The updates of an NDJSON file's lines; blank lines are ignored, others that hold none are counted. */
function parseUpdateLines(lines: readonly string[]): { updates: SessionUpdate[]; skipped: number } {
  const updates: SessionUpdate[] = [];
  let skipped = 0;
  for (const line of lines) {
    if (line.trim() === '') {
      continue;
    }
    let update: SessionUpdate | undefined;
    try {
      update = asUpdate(JSON.parse(line));
    } catch {
      update = undefined;
    }
    if (update === undefined) {
      skipped += 1;
    } else {
      updates.push(update);
    }
  }
  return { updates, skipped };
}

/**
 * Streams an NDJSON file of updates (one `{sessionUpdate…}` object, or `{sessionId, update}`
 * params, per line) as fast as stdout takes them. Not recorded in history (benchmark files are big).
 */
export async function replayFile(turn: Turn, marker: Marker): Promise<void> {
  const path = strArg(marker, 'path', '');
  let lines: string[];
  try {
    lines = readFileSync(turn.resolvePath(path), 'utf8').split('\n');
  } catch (err) {
    await turn.say(`Cannot read replay file ${path}: ${err instanceof Error ? err.message : String(err)}`);
    return;
  }
  const started = Date.now();
  const { updates, skipped } = parseUpdateLines(lines);
  let sent = 0;
  if (strArg(marker, 'raw', 'no') === 'yes') {
    // Benchmarks: serialize every notification up front and hand them to stdout in large writes,
    // so the pipe — not this agent's per-message SDK path — sets the pace the client must keep up with.
    const frames = updates.map((update) => JSON.stringify({ jsonrpc: '2.0', method: 'session/update', params: { sessionId: turn.sessionId, update } }));
    for (let i = 0; i < frames.length; i += 1000) {
      await turn.runtime.stdout.writeRaw(`${frames.slice(i, i + 1000).join('\n')}\n`);
    }
    log(`replay-file ${path} (raw): ${frames.length} updates sent, ${skipped} lines skipped, ${Date.now() - started} ms`);
    return;
  }
  // rate=N: N updates a second, as a model streams (each millisecond sends what is due by then).
  const rate = intArg(marker, 'rate', 0, 0);
  for (const update of updates) {
    if (turn.cancelled) {
      throw new TurnCancelled();
    }
    if (rate > 0) {
      const due = started + (sent * 1000) / rate;
      if (due > Date.now()) {
        await turn.sleep(due - Date.now());
      }
    }
    await turn.client.notify('session/update', { sessionId: turn.sessionId, update });
    sent += 1;
  }
  log(`replay-file ${path}: ${sent} updates sent, ${skipped} lines skipped, ${Date.now() - started} ms`);
  // Benchmarks time the client against the moment the last update went out (bench/p9ManyChats.ts).
  const events = process.env.SCRIPTED_AGENT_EVENTS_FILE;
  if (events !== undefined && events !== '') {
    appendFileSync(events, `${JSON.stringify({ event: 'replay-file-done', path, sent, sessionId: turn.sessionId, startedAt: started, at: Date.now() })}\n`);
  }
}
