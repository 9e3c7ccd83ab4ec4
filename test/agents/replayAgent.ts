/**
 * Replay agent: plays a recorded ACP transcript back to a live client over stdio, as raw NDJSON
 * (no SDK), reproducing the recorded agent frames byte for byte apart from ids and paths.
 *
 *   node out/test/agents/replayAgent.js <fixture.jsonl> [--lab <abs dir>] [--segment N]
 *                                       [--prompt N] [--speed F] [--map FROM=TO]…
 *                                       [--next-segment STATE] [--received LOG]
 *
 * Walk, in recorded order:
 * - client→agent request: wait for the next live client request of that method; live requests
 *   of any other method meanwhile are answered -32601 (they never appear at this point);
 * - agent→client response: sent with the live id of the matching client request;
 * - agent→client request/notification: sent as recorded (request ids kept, even strings);
 * - client→agent response: wait for the live client's response to that id;
 * - client→agent notification (e.g. `session/cancel`): wait for it, at most 5 s.
 * `<LAB>` becomes `--lab` (default: the cwd); `--map` rewrites other recorded paths (e.g.
 * `/tmp/ws/claude`). `--segment N` plays only the N-th agent process of a multi-process recording;
 * `--prompt N` only its setup and its N-th prompt (for one-prompt clients such as hermes-acp-run).
 * No delays unless `--speed F` (recorded gaps divided by F). `--next-segment STATE` plays the next
 * agent process of the recording each time the agent is started (the count is kept in STATE): a
 * client that restarts the agent meets the recording's second process. `--received LOG` appends
 * every line the client sent to LOG, as sent — what the agent received, for tests to check.
 * Exits 0 at the end of the recording or when stdin closes. Every decision is logged to stderr.
 */
import { appendFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createLogger } from './agentLog';
import { readFixture, selectPrompt, splitSegments, type FixtureEntry, type FrameEntry } from './fixtureFile';
import { EndOfInput, idKey, LivePeer, type LiveRequest } from './livePeer';
import { replaceMember } from './rawJson';

const log = createLogger('replay-agent');

interface Options {
  readonly fixture: string;
  readonly lab: string;
  readonly segment: number | undefined;
  /** Play the setup and this prompt's exchange only (1-based). */
  readonly prompt: number | undefined;
  readonly speed: number | undefined;
  readonly maps: readonly (readonly [string, string])[];
  /** Stay alive after the recording until stdin closes (golden tests read the transcript first). */
  readonly stay: boolean;
  /** A file counting the agent's starts: each start plays the next segment. */
  readonly nextSegment: string | undefined;
  /** Every line the client sent is appended here. */
  readonly received: string | undefined;
}

function usage(message: string): never {
  process.stderr.write(
    `replay-agent: ${message}\nusage: replayAgent.js <fixture.jsonl> [--lab DIR] [--segment N] [--prompt N] [--speed F] [--map FROM=TO] [--stay] [--next-segment STATE] [--received LOG]\n`,
  );
  process.exit(2);
}

function parseArgs(argv: readonly string[]): Options {
  let fixture: string | undefined;
  let lab = process.cwd();
  let segment: number | undefined;
  let prompt: number | undefined;
  let speed: number | undefined;
  const maps: [string, string][] = [];
  let stay = false;
  let nextSegment: string | undefined;
  let received: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i] ?? '';
    const value = (): string => {
      const v = argv[++i];
      if (v === undefined) {
        usage(`${a} needs a value`);
      }
      return v;
    };
    if (a === '--lab') {
      lab = resolve(value());
    } else if (a === '--segment') {
      segment = Number.parseInt(value(), 10);
      if (!Number.isInteger(segment) || segment < 1) {
        usage('--segment must be a positive integer');
      }
    } else if (a === '--prompt') {
      prompt = Number.parseInt(value(), 10);
      if (!Number.isInteger(prompt) || prompt < 1) {
        usage('--prompt must be a positive integer');
      }
    } else if (a === '--speed') {
      speed = Number.parseFloat(value());
      if (!Number.isFinite(speed) || speed <= 0) {
        usage('--speed must be a positive number');
      }
    } else if (a === '--map') {
      const m = value();
      const eq = m.indexOf('=');
      if (eq <= 0) {
        usage('--map needs FROM=TO');
      }
      maps.push([m.slice(0, eq), m.slice(eq + 1)]);
    } else if (a === '--stay') {
      stay = true;
    } else if (a === '--next-segment') {
      nextSegment = resolve(value());
    } else if (a === '--received') {
      received = resolve(value());
    } else if (a.startsWith('--')) {
      usage(`unknown option ${a}`);
    } else if (fixture === undefined) {
      fixture = resolve(a);
    } else {
      usage(`unexpected argument ${a}`);
    }
  }
  if (fixture === undefined) {
    usage('missing fixture path');
  }
  return { fixture, lab, segment, prompt, speed, maps, stay, nextSegment, received };
}

/** Replaces a path inside JSON text; the replacement is JSON-escaped so the frame stays valid. */
function replaceAll(text: string, from: string, to: string): string {
  return text.split(from).join(JSON.stringify(to).slice(1, -1));
}

class Replayer {
  /** Recorded client request id → live id of the request it was matched with. */
  private readonly idMap = new Map<string, unknown>();
  private lastTime: number | undefined;

  constructor(
    private readonly options: Options,
    private readonly peer: LivePeer,
  ) {}

  async play(entries: readonly FixtureEntry[]): Promise<void> {
    for (const entry of entries) {
      if (entry.type === 'note') {
        log(`line ${entry.line}: note: ${entry.text}`);
      } else if (entry.from === 'client') {
        await this.expectFromClient(entry);
      } else {
        await this.delayFor(entry);
        await this.sendFromAgent(entry);
      }
      this.lastTime = entry.time ?? this.lastTime;
    }
    log('end of the recording');
  }

  private mapPaths(raw: string): string {
    let text = replaceAll(raw, '<LAB>', this.options.lab);
    for (const [from, to] of this.options.maps) {
      text = replaceAll(text, from, to);
    }
    return text;
  }

  private async delayFor(entry: FrameEntry): Promise<void> {
    const { speed } = this.options;
    if (speed === undefined || entry.time === undefined || this.lastTime === undefined) {
      return;
    }
    const ms = ((entry.time - this.lastTime) * 1000) / speed;
    if (ms > 0) {
      await new Promise((r) => setTimeout(r, ms));
    }
  }

  private async sendFromAgent(entry: FrameEntry): Promise<void> {
    let raw = this.mapPaths(entry.raw);
    if (entry.kind === 'response') {
      const key = idKey(entry.id);
      if (this.idMap.has(key)) {
        const liveId = this.idMap.get(key);
        this.idMap.delete(key);
        raw = replaceMember(raw, 'id', JSON.stringify(liveId) ?? 'null');
        log(`line ${entry.line}: send response to recorded id ${key} as live id ${idKey(liveId)}`);
      } else {
        log(`line ${entry.line}: send response for recorded id ${key}, which matched no live request; id kept`);
      }
    } else {
      log(`line ${entry.line}: send ${entry.kind} ${entry.method ?? ''}${entry.kind === 'request' ? ` id=${idKey(entry.id)}` : ''}`);
    }
    await this.peer.send(raw);
  }

  private async expectFromClient(entry: FrameEntry): Promise<void> {
    switch (entry.kind) {
      case 'request': {
        const method = entry.method ?? '';
        log(`line ${entry.line}: waiting for a live ${method} request (recorded id ${idKey(entry.id)})`);
        const live = await this.nextRequest(method);
        this.idMap.set(idKey(entry.id), live.id);
        log(`line ${entry.line}: matched live ${method} id=${idKey(live.id)}`);
        return;
      }
      case 'notification': {
        const method = entry.method ?? '';
        log(`line ${entry.line}: waiting up to 5 s for a live ${method} notification`);
        const got = await this.nextNotification(method, 5000);
        log(`line ${entry.line}: ${got ? `received ${method}` : `no ${method} within 5 s; continuing`}`);
        return;
      }
      case 'response': {
        log(`line ${entry.line}: waiting for the client's response to agent request id ${idKey(entry.id)}`);
        while (!this.peer.takeResponse(entry.id)) {
          await this.peer.changed();
        }
        log(`line ${entry.line}: client answered id ${idKey(entry.id)}`);
        return;
      }
    }
  }

  private async nextRequest(method: string): Promise<LiveRequest> {
    for (;;) {
      let req: LiveRequest | undefined;
      while ((req = this.peer.requests.shift()) !== undefined) {
        if (req.method === method) {
          return req;
        }
        log(`live ${req.method} id=${idKey(req.id)} does not match the recording (next recorded request: ${method}); answering -32601`);
        await this.peer.send(
          JSON.stringify({ jsonrpc: '2.0', id: req.id, error: { code: -32601, message: 'Method not found', data: { method: req.method } } }),
        );
      }
      await this.peer.changed();
    }
  }

  private async nextNotification(method: string, timeoutMs: number): Promise<boolean> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.peer.notifications.findIndex((n) => n.method === method);
      if (index >= 0) {
        this.peer.notifications.splice(index, 1);
        return true;
      }
      const left = deadline - Date.now();
      if (left <= 0 || this.peer.inputEnded) {
        return false;
      }
      await this.peer.changed(left);
    }
  }
}

/** With `--next-segment STATE`: this start's number (1 for the first), counted in STATE. */
function startCount(state: string | undefined): number | undefined {
  if (state === undefined) {
    return undefined;
  }
  const n = (existsSync(state) ? Number.parseInt(readFileSync(state, 'utf8'), 10) || 0 : 0) + 1;
  writeFileSync(state, String(n));
  return n;
}

async function main(): Promise<void> {
  const options = parseArgs(process.argv.slice(2));
  let entries: FixtureEntry[];
  try {
    entries = readFixture(options.fixture);
  } catch (err) {
    usage(`cannot read ${options.fixture}: ${err instanceof Error ? err.message : String(err)}`);
  }
  const segments = splitSegments(entries);
  let selected = entries;
  const segment = options.segment ?? startCount(options.nextSegment);
  if (segment !== undefined) {
    const seg = segments[segment - 1];
    if (seg === undefined) {
      usage(`segment ${segment}: the recording has ${segments.length} segment(s)`);
    }
    selected = seg;
  }
  if (options.prompt !== undefined) {
    const turn = selectPrompt(selected, options.prompt);
    if (turn === undefined) {
      usage(`--prompt ${options.prompt}: no such prompt after a session/new in the recording`);
    }
    selected = turn;
  }
  log(
    `replaying ${options.fixture}${options.segment === undefined ? '' : ` segment ${options.segment}/${segments.length}`}` +
      `${options.prompt === undefined ? '' : ` prompt ${options.prompt}`}: ` +
      `${selected.filter((e) => e.type === 'frame').length} frames, lab ${options.lab}`,
  );
  const peer = new LivePeer(log);
  const receivedLog = options.received;
  if (receivedLog !== undefined) {
    peer.onReceived = (line) => appendFileSync(receivedLog, `${line}\n`);
  }
  const replayer = new Replayer(options, peer);
  try {
    await replayer.play(selected);
  } catch (err) {
    if (!(err instanceof EndOfInput)) {
      throw err;
    }
    log('stdin closed before the end of the recording');
  }
  await peer.drain();
  if (options.stay && !process.stdin.readableEnded) {
    log('--stay: waiting for stdin to close');
    await new Promise<void>((resolveEnd) => {
      process.stdin.once('end', resolveEnd);
      process.stdin.once('close', resolveEnd);
    });
  }
  process.exit(0);
}

main().catch((err: unknown) => {
  log(`failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}`);
  process.exit(1);
});
