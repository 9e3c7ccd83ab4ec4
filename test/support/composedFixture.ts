import * as fs from 'node:fs';
import * as path from 'node:path';
import { fixturesDir } from './paths';

/** The recorded Hermes 0.19.0 transcripts (test/fixtures/hermes, see its README). */
export type HermesRecording = 'main' | 'load' | 'ratelimit' | 'nocreds' | 'retry' | 'cancel' | 'edits' | 'restart';

/**
 * Recorded lines `from`..`to` (0-based, inclusive) of a Hermes transcript, byte for byte. Scenarios
 * that need a sequence no single recording has are built from these: every frame stays as Hermes
 * sent it (the replay agent maps request ids), only the order of whole recorded exchanges changes.
 */
export function recorded(name: HermesRecording, from: number, to = from): string[] {
  const lines = fs.readFileSync(path.join(fixturesDir, 'hermes', `${name}.jsonl`), 'utf8').split('\n');
  if (to >= lines.length || from > to) {
    throw new Error(`${name}.jsonl has no lines ${from}..${to}`);
  }
  return lines.slice(from, to + 1);
}

/**
 * Writes a fixture for the replay agent. A recorded request id may come again once the agent has
 * answered it (recordings each start at 1, and the replay agent maps a recorded id to the live one
 * only until its response), never while a request with that id is still open (checked).
 */
export function writeFixture(file: string, lines: readonly string[]): string {
  const open = new Set<string>();
  for (const line of lines) {
    const entry = JSON.parse(line) as { dir?: string; msg?: { id?: string | number; method?: unknown; result?: unknown; error?: unknown } };
    const id = entry.msg?.id;
    if (id === undefined || entry.dir === undefined) {
      continue;
    }
    const key = JSON.stringify(id);
    if (entry.dir === '->' && typeof entry.msg?.method === 'string') {
      if (open.has(key)) {
        throw new Error(`recorded request id ${key} repeats while the first is open: the replay agent could not tell their responses apart`);
      }
      open.add(key);
    } else if (entry.dir === '<-' && entry.msg?.method === undefined) {
      open.delete(key);
    }
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
