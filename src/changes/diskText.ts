import * as fs from 'node:fs';
import type { Untracked } from './changeTypes';

/** A file on disk as the Changes feature sees it: text, absent, not tracked (and why), or not a file. */
export type DiskText = { readonly kind: 'text'; readonly text: string } | { readonly kind: 'absent' } | { readonly kind: 'untracked'; readonly why: Untracked } | { readonly kind: 'notFile' };

export const defaultMaxFileBytes = 8 * 1024 * 1024;

/** Reads a file as text; every failure is an outcome (absent, binary, too large), never an error. */
export async function readDiskText(p: string, maxFileBytes: number): Promise<DiskText> {
  let stat: fs.Stats;
  try {
    stat = await fs.promises.stat(p);
  } catch {
    return { kind: 'absent' };
  }
  try {
    return unreadable(stat, maxFileBytes) ?? decode(await fs.promises.readFile(p));
  } catch (e) {
    return readFailure(e);
  }
}

/** A file's text (up to `maxFileBytes`), or undefined when it is absent, binary, too large or not a file. */
export async function readTextIfAny(p: string, maxFileBytes = defaultMaxFileBytes): Promise<string | undefined> {
  const disk = await readDiskText(p, maxFileBytes);
  return disk.kind === 'text' ? disk.text : undefined;
}

/** Why a path with this stat is not read as text (not a file, too large), or undefined to read it. */
function unreadable(stat: fs.Stats, maxFileBytes: number): DiskText | undefined {
  if (!stat.isFile()) {
    return { kind: 'notFile' };
  }
  return stat.size > maxFileBytes ? { kind: 'untracked', why: 'tooLarge' } : undefined;
}

/** A file's bytes as text; NUL bytes or invalid UTF-8 mean binary (not tracked). */
function decode(bytes: Uint8Array): DiskText {
  if (bytes.includes(0)) {
    return { kind: 'untracked', why: 'binary' };
  }
  try {
    return { kind: 'text', text: new TextDecoder('utf-8', { fatal: true }).decode(bytes) };
  } catch {
    return { kind: 'untracked', why: 'binary' };
  }
}

/** A read that failed after its stat: gone meanwhile, or unreadable (treated like binary: not tracked). */
function readFailure(e: unknown): DiskText {
  return (e as NodeJS.ErrnoException).code === 'ENOENT' ? { kind: 'absent' } : { kind: 'untracked', why: 'binary' };
}
