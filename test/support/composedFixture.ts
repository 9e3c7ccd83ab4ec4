import * as fs from 'node:fs';
import * as path from 'node:path';
import { fixturesDir } from './paths';

/** The recorded Hermes 0.19.0 transcripts (test/fixtures/hermes, see its README). */
export type HermesRecording = 'main' | 'load' | 'ratelimit' | 'nocreds';

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

/** Writes a fixture for the replay agent; the recorded ids it joins must not repeat (checked). */
export function writeFixture(file: string, lines: readonly string[]): string {
  const seen = new Map<string, number>();
  for (const line of lines) {
    const entry = JSON.parse(line) as { dir?: string; msg?: { id?: string | number; method?: unknown } };
    if (entry.dir === '->' && typeof entry.msg?.method === 'string' && entry.msg.id !== undefined) {
      const key = `${entry.msg.id}`;
      seen.set(key, (seen.get(key) ?? 0) + 1);
    }
  }
  const repeated = [...seen].filter(([, n]) => n > 1).map(([id]) => id);
  if (repeated.length > 0) {
    throw new Error(`recorded request ids ${repeated.join(', ')} repeat: the replay agent could not tell their responses apart`);
  }
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, `${lines.join('\n')}\n`);
  return file;
}
