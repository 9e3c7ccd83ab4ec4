/**
 * Replays how a real agent behaved while it started, from a recording of its stdio
 * (test/fixtures/startFailures/*.jsonl: one `{ms, dir, text}` per line, `dir` one of `in` — what the
 * client sent —, `out` — what the agent answered —, `stderr`, `exit` "<code> <signal>" and `note`).
 *
 *   node out/test/agents/recordedStart.js <recording.jsonl>
 *
 * For each request it reads, it finds the next recorded `in` with the same method and plays what
 * followed it up to the next `in`: the answers (with this request's id), the stderr lines, and an
 * exit the agent made itself (a recorded exit by signal was the recorder stopping it: then it just
 * stays silent, as the agent did). Timing is not replayed (the order is).
 */
import * as fs from 'node:fs';

interface Recorded {
  readonly ms: number;
  readonly dir: 'in' | 'out' | 'stderr' | 'exit' | 'note';
  readonly text: string;
}

const file = process.argv[2];
if (file === undefined) {
  process.stderr.write('usage: recordedStart.js <recording.jsonl>\n');
  process.exit(2);
}
const events = fs
  .readFileSync(file, 'utf8')
  .split('\n')
  .filter((l) => l.trim() !== '')
  .map((l) => JSON.parse(l) as Recorded);

let cursor = 0;

function method(text: string): string | undefined {
  const m = JSON.parse(text) as { method?: unknown };
  return typeof m.method === 'string' ? m.method : undefined;
}

function play(id: unknown, name: string): void {
  const at = events.findIndex((e, i) => i >= cursor && e.dir === 'in' && method(e.text) === name);
  if (at < 0) {
    return; // never recorded: no answer, as an agent that hangs
  }
  for (cursor = at + 1; cursor < events.length && events[cursor]?.dir !== 'in'; cursor++) {
    const e = events[cursor]!;
    if (e.dir === 'out') {
      const frame = JSON.parse(e.text) as Record<string, unknown>;
      process.stdout.write(`${JSON.stringify('id' in frame && !('method' in frame) ? { ...frame, id } : frame)}\n`);
    } else if (e.dir === 'stderr') {
      process.stderr.write(`${e.text}\n`);
    } else if (e.dir === 'exit') {
      const [code] = e.text.split(' ');
      if (code !== undefined && code !== 'null') {
        process.stdout.write('', () => process.stderr.write('', () => process.exit(Number(code))));
        return;
      }
    }
  }
}

let buffer = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk: string) => {
  buffer += chunk;
  for (let i = buffer.indexOf('\n'); i >= 0; i = buffer.indexOf('\n')) {
    const line = buffer.slice(0, i);
    buffer = buffer.slice(i + 1);
    if (line.trim() === '') {
      continue;
    }
    const msg = JSON.parse(line) as { id?: unknown; method?: unknown };
    if (typeof msg.method === 'string') {
      play(msg.id, msg.method);
    }
  }
});
// Like the agents recorded (Claude Agent ACP): stdin ending is no reason to stop; a signal is.
setInterval(() => undefined, 60_000);
