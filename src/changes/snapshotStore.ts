import { createHash, randomBytes } from 'node:crypto';
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
  /** The text while it is in memory. */
  text: string | undefined;
  /** Its file in the spill directory is written (a text read back stays there: evicting it again costs no write). */
  onDisk: boolean;
  /** Being written right now. */
  writing: boolean;
}

export const defaultMemoryCapBytes = 64 * 1024 * 1024;
export const defaultDiskCapBytes = 1024 * 1024 * 1024;

/**
 * Holds the "before" texts of files the agent touched — only those, never a copy of the
 * workspace. Content-addressed (the same text is kept once, however many turns or chats
 * snapshot it) and reference-counted. Memory is bounded: past `memoryCapBytes` the oldest texts
 * are written to `spillDir` in the background (the extension host never waits for the disk while
 * a turn runs) and dropped from memory once written; {@link load} brings spilled texts back
 * before a diff, a revert or a turn's end needs them. Disk is bounded by `diskCapBytes`.
 */
export class SnapshotStore {
  private readonly entries = new Map<string, Entry>();
  /** Ids of texts in memory, least recently used first (Map keeps insertion order). */
  private readonly inMemory = new Map<string, true>();
  private memoryBytes = 0;
  private diskBytes = 0;
  private dirReady: Promise<void> | undefined;
  private spilling: Promise<void> | undefined;
  /** Texts {@link get} had to read from disk synchronously because nobody loaded them first. */
  private syncReads = 0;
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
      if (existing.text === undefined) {
        this.remember(id, existing, text);
      }
      return { id, bytes };
    }
    const room =
      this.options.spillDir === undefined ? this.memoryCap - this.memoryBytes : this.memoryCap + this.diskCap - this.memoryBytes - this.diskBytes;
    if (bytes > room) {
      return undefined;
    }
    this.remember(id, { bytes, refs: 1, text: undefined, onDisk: false, writing: false }, text);
    return { id, bytes };
  }

  /** Another reference to a stored text (a snapshot shared by two records). */
  retain(ref: SnapshotRef): void {
    const e = this.entries.get(ref.id);
    if (e !== undefined) {
      e.refs++;
    }
  }

  /**
   * The text. In memory unless it spilled and nobody {@link load}ed it: then it is read from disk
   * synchronously (counted in {@link usage}; the Changes service loads what a turn needs first).
   */
  get(ref: SnapshotRef): string {
    const e = this.entries.get(ref.id);
    if (e === undefined) {
      throw new Error('This snapshot was released.');
    }
    if (e.text !== undefined) {
      this.touch(ref.id);
      return e.text;
    }
    this.syncReads++;
    return fs.readFileSync(this.fileFor(ref.id), 'utf8');
  }

  /**
   * Brings spilled texts back into memory (one read per text, all at once), so {@link get} needs no
   * disk. Memory is brought back under its cap only once all are read (texts already on disk are
   * dropped then, others written in the background): a text read back early is not dropped again
   * before the caller, whose `await` resumes before any write ends, has read it.
   */
  async load(refs: readonly SnapshotRef[]): Promise<void> {
    await Promise.all(
      [...new Set(refs.map((r) => r.id))].map(async (id) => {
        const e = this.entries.get(id);
        if (e === undefined || e.text !== undefined) {
          return;
        }
        const text = await fs.promises.readFile(this.fileFor(id), 'utf8');
        if (e.text === undefined && this.entries.get(id) === e) {
          this.remember(id, e, text, false);
        }
      }),
    );
    this.spillOverflow();
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
    }
    if (e.onDisk) {
      this.diskBytes -= e.bytes;
      void fs.promises.rm(this.fileFor(ref.id), { force: true }).catch(() => undefined);
    }
    // A text released while being written is removed once the write is done (see spillOne).
  }

  usage(): SnapshotUsage {
    return { snapshots: this.entries.size, bytesInMemory: this.memoryBytes, bytesOnDisk: this.diskBytes };
  }

  /** Reads from disk that {@link get} had to do synchronously (none while the service loads first). */
  get synchronousReads(): number {
    return this.syncReads;
  }

  /** Resolves when no text is being written (tests; and before disposing). */
  async settled(): Promise<void> {
    while (this.spilling !== undefined) {
      await this.spilling;
    }
  }

  /** Forgets everything and removes the spill directory. */
  dispose(): void {
    this.entries.clear();
    this.inMemory.clear();
    this.memoryBytes = 0;
    this.diskBytes = 0;
    if (this.options.spillDir !== undefined && this.dirReady !== undefined) {
      // At deactivation, not during a turn: the folder must be gone when the host exits.
      fs.rmSync(this.options.spillDir, { recursive: true, force: true });
      this.dirReady = undefined;
    }
  }

  private remember(id: string, e: Entry, text: string, spill = true): void {
    e.text = ownString(text);
    this.entries.set(id, e);
    this.inMemory.set(id, true);
    this.memoryBytes += e.bytes;
    if (spill) {
      this.spillOverflow();
    }
  }

  private touch(id: string): void {
    this.inMemory.delete(id);
    this.inMemory.set(id, true);
  }

  /** Past the memory cap: drop texts already on disk, write the oldest others in the background. */
  private spillOverflow(): void {
    if (this.options.spillDir === undefined || this.memoryBytes <= this.memoryCap || this.spilling !== undefined) {
      return;
    }
    this.spilling = this.spill().finally(() => {
      this.spilling = undefined;
      if (this.memoryBytes > this.memoryCap && this.pendingWrites() > 0) {
        this.spillOverflow();
      }
    });
  }

  private pendingWrites(): number {
    let n = 0;
    for (const id of this.inMemory.keys()) {
      const e = this.entries.get(id);
      if (e !== undefined && !e.onDisk && this.diskBytes + e.bytes <= this.diskCap) {
        n++;
      }
    }
    return n;
  }

  /** One text at a time, oldest first, until memory is under the cap. */
  private async spill(): Promise<void> {
    for (const id of [...this.inMemory.keys()]) {
      if (this.memoryBytes <= this.memoryCap) {
        return;
      }
      const e = this.entries.get(id);
      if (e?.text === undefined || e.writing) {
        continue;
      }
      if (!e.onDisk) {
        if (this.diskBytes + e.bytes > this.diskCap) {
          continue;
        }
        if (!(await this.write(id, e))) {
          return;
        }
      }
      if (this.entries.get(id) === e && e.text !== undefined) {
        e.text = undefined;
        this.inMemory.delete(id);
        this.memoryBytes -= e.bytes;
      }
    }
  }

  private async write(id: string, e: Entry): Promise<boolean> {
    const dir = this.options.spillDir ?? '';
    e.writing = true;
    try {
      this.dirReady ??= fs.promises.mkdir(dir, { recursive: true }).then(() => undefined);
      await this.dirReady;
      await fs.promises.writeFile(this.fileFor(id), e.text ?? '', 'utf8');
    } catch {
      this.dirReady = undefined;
      return false; // the disk refused: the text stays in memory
    } finally {
      e.writing = false;
    }
    if (this.entries.get(id) !== e) {
      await fs.promises.rm(this.fileFor(id), { force: true }).catch(() => undefined); // released meanwhile
      return true;
    }
    e.onDisk = true;
    this.diskBytes += e.bytes;
    return true;
  }

  private fileFor(id: string): string {
    return path.join(this.options.spillDir ?? '', `${id}.snapshot`);
  }
}

/**
 * Removes spill directories left by extension hosts that are gone (a crash or kill skips
 * dispose). Directories are named `<pid>-<anything>`; ones whose process still runs are kept.
 */
export async function removeStaleSpillDirs(root: string, isAlive: (pid: number) => boolean): Promise<number> {
  let names: string[];
  try {
    names = await fs.promises.readdir(root);
  } catch {
    return 0;
  }
  const stale = names.filter((name) => {
    const pid = Number(/^(\d+)-/.exec(name)?.[1]);
    return Number.isInteger(pid) && pid > 0 && pid !== process.pid && !isAlive(pid);
  });
  await Promise.all(stale.map((name) => fs.promises.rm(path.join(root, name), { recursive: true, force: true })));
  return stale.length;
}

/**
 * A store for this process: it spills into a folder of its own, `<storageDir>/change-snapshots/<pid>-<random>`
 * (folders of hosts that are gone are removed first); without `storageDir`, memory only.
 */
export function createSnapshotStore(options: { readonly storageDir?: string | undefined } & Omit<SnapshotStoreOptions, 'spillDir'>): SnapshotStore {
  let spillDir: string | undefined;
  if (options.storageDir !== undefined) {
    const root = path.join(options.storageDir, 'change-snapshots');
    void removeStaleSpillDirs(root, isAlive);
    spillDir = path.join(root, `${process.pid}-${randomBytes(4).toString('hex')}`);
  }
  return new SnapshotStore({
    ...(spillDir !== undefined ? { spillDir } : {}),
    ...(options.memoryCapBytes !== undefined ? { memoryCapBytes: options.memoryCapBytes } : {}),
    ...(options.diskCapBytes !== undefined ? { diskCapBytes: options.diskCapBytes } : {}),
  });
}

function isAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === 'EPERM';
  }
}
