import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as path from 'node:path';
import { ownString } from './lines';

/** A stored text: what the tracker keeps instead of the text itself. */
export interface SnapshotRef {
  readonly id: string;
  /** UTF-8 size of the text. */
  readonly bytes: number;
}

export interface SnapshotUsage {
  /** Distinct texts held (identical texts are stored once). */
  readonly snapshots: number;
  readonly bytesInMemory: number;
  readonly bytesOnDisk: number;
}

export interface SnapshotStoreOptions {
  /** Where texts go once memory is full; without it everything stays in memory. Created on first use, removed by dispose(). */
  readonly spillDir?: string;
  /** Texts kept in memory up to this many bytes (default 64 MiB); older ones move to `spillDir`. */
  readonly memoryCapBytes?: number;
  /** At most this many bytes on disk (default 1 GiB); past it `put` refuses. */
  readonly diskCapBytes?: number;
}

interface Entry {
  readonly bytes: number;
  refs: number;
  /** In memory, or undefined when spilled to disk. */
  text: string | undefined;
}

export const defaultMemoryCapBytes = 64 * 1024 * 1024;
export const defaultDiskCapBytes = 1024 * 1024 * 1024;

/**
 * Holds the "before" texts of files the agent touched — only those, never a copy of the
 * workspace. Content-addressed (the same text is kept once, however many turns or chats
 * snapshot it) and reference-counted. Memory is bounded: past `memoryCapBytes` the oldest texts
 * are written to `spillDir` and read back (synchronously — they are single files) when a diff or
 * a revert needs them; disk is bounded by `diskCapBytes`.
 */
export class SnapshotStore {
  private readonly entries = new Map<string, Entry>();
  /** Ids of texts in memory, oldest first (Map keeps insertion order). */
  private readonly inMemory = new Map<string, true>();
  private memoryBytes = 0;
  private diskBytes = 0;
  private dirReady = false;
  private readonly memoryCap: number;
  private readonly diskCap: number;

  constructor(private readonly options: SnapshotStoreOptions = {}) {
    this.memoryCap = options.memoryCapBytes ?? defaultMemoryCapBytes;
    this.diskCap = options.diskCapBytes ?? defaultDiskCapBytes;
  }

  /** Stores a text (or takes another reference to the same text). Undefined when the limits leave no room. */
  put(text: string): SnapshotRef | undefined {
    const bytes = Buffer.byteLength(text, 'utf8');
    const id = createHash('sha256').update(text).digest('hex');
    const existing = this.entries.get(id);
    if (existing !== undefined) {
      existing.refs++;
      return { id, bytes };
    }
    const room =
      this.options.spillDir === undefined ? this.memoryCap - this.memoryBytes : this.memoryCap + this.diskCap - this.memoryBytes - this.diskBytes;
    if (bytes > room) {
      return undefined;
    }
    this.entries.set(id, { bytes, refs: 1, text: ownString(text) });
    this.inMemory.set(id, true);
    this.memoryBytes += bytes;
    this.spillOverflow();
    return { id, bytes };
  }

  /** Another reference to a stored text (a snapshot shared by two records). */
  retain(ref: SnapshotRef): void {
    const e = this.entries.get(ref.id);
    if (e !== undefined) {
      e.refs++;
    }
  }

  get(ref: SnapshotRef): string {
    const e = this.entries.get(ref.id);
    if (e === undefined) {
      throw new Error('This snapshot was released.');
    }
    if (e.text !== undefined) {
      return e.text;
    }
    return fs.readFileSync(this.fileFor(ref.id), 'utf8');
  }

  release(ref: SnapshotRef): void {
    const e = this.entries.get(ref.id);
    if (e === undefined || --e.refs > 0) {
      return;
    }
    this.entries.delete(ref.id);
    if (e.text !== undefined) {
      this.inMemory.delete(ref.id);
      this.memoryBytes -= e.bytes;
    } else {
      this.diskBytes -= e.bytes;
      fs.rmSync(this.fileFor(ref.id), { force: true });
    }
  }

  usage(): SnapshotUsage {
    return { snapshots: this.entries.size, bytesInMemory: this.memoryBytes, bytesOnDisk: this.diskBytes };
  }

  /** Forgets everything and removes the spill directory. */
  dispose(): void {
    this.entries.clear();
    this.inMemory.clear();
    this.memoryBytes = 0;
    this.diskBytes = 0;
    if (this.options.spillDir !== undefined && this.dirReady) {
      fs.rmSync(this.options.spillDir, { recursive: true, force: true });
      this.dirReady = false;
    }
  }

  private spillOverflow(): void {
    const dir = this.options.spillDir;
    if (dir === undefined) {
      return;
    }
    for (const id of this.inMemory.keys()) {
      if (this.memoryBytes <= this.memoryCap) {
        break;
      }
      const e = this.entries.get(id);
      if (e?.text === undefined || this.diskBytes + e.bytes > this.diskCap) {
        continue;
      }
      if (!this.dirReady) {
        fs.mkdirSync(dir, { recursive: true });
        this.dirReady = true;
      }
      fs.writeFileSync(this.fileFor(id), e.text, 'utf8');
      e.text = undefined;
      this.inMemory.delete(id);
      this.memoryBytes -= e.bytes;
      this.diskBytes += e.bytes;
    }
  }

  private fileFor(id: string): string {
    return path.join(this.options.spillDir ?? '', `${id}.snapshot`);
  }
}

/**
 * Removes spill directories left by extension hosts that are gone (a crash or kill skips
 * dispose). Directories are named `<pid>-<anything>`; ones whose process still runs are kept.
 */
export function removeStaleSpillDirs(root: string, isAlive: (pid: number) => boolean): number {
  let removed = 0;
  let names: string[];
  try {
    names = fs.readdirSync(root);
  } catch {
    return 0;
  }
  for (const name of names) {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid)) {
      fs.rmSync(path.join(root, name), { recursive: true, force: true });
      removed++;
    }
  }
  return removed;
}
