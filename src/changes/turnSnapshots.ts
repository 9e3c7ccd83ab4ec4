import { Emitter } from '../util/emitter';
import type { ChangeSource, FileChange, TrackerUsage, TurnChanges, Untracked } from './changeTypes';
import { fileModel, fileView, type FileRecord, type TurnRecord } from './fileRecords';
import { analyzeFile, computeHunks, type FileAnalysis, type FileModel } from './hunks';
import type { SnapshotRef, SnapshotStore } from './snapshotStore';

export interface ChangeTrackerOptions {
  readonly store: SnapshotStore;
  /** Files larger than this are listed but not snapshotted (default 8 MiB). */
  readonly maxFileBytes?: number;
  readonly now?: () => number;
}

/**
 * The snapshot side of a chat's changes, per turn and file: a snapshot of each touched file
 * before the turn's first change to it (only touched files), and the agent's hunks against it.
 * {@link ChangeTracker} adds what is decided about them (keep, revert, restore) on top.
 */
export class TurnSnapshots {
  protected readonly turnList: TurnRecord[] = [];
  protected runningTurn: TurnRecord | undefined;
  /** Turns whose prompt ended but whose after texts are still being confirmed (a new turn may already run). */
  protected readonly finishing = new Set<TurnRecord>();
  protected readonly onDidChangeEmitter = new Emitter<void>();
  /** Turns, files, hunks, decisions, the queue or the note changed. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private versionValue = 0;
  private readonly maxFileBytes: number;
  protected readonly now: () => number;

  constructor(protected readonly options: ChangeTrackerOptions) {
    this.maxFileBytes = options.maxFileBytes ?? 8 * 1024 * 1024;
    this.now = options.now ?? Date.now;
  }

  /** Increases with every change (for caches of what is derived from the tracker). */
  get version(): number {
    return this.versionValue;
  }

  get running(): boolean {
    return this.runningTurn !== undefined;
  }

  get runningTurnId(): number | undefined {
    return this.runningTurn?.turnId;
  }

  /** A turn started. One still running is left open for its confirmation (`ChangeTracker.endTurn` with its id). */
  beginTurn(turnId: number, label = ''): void {
    if (this.runningTurn !== undefined) {
      this.finishing.add(this.runningTurn);
    }
    const turn: TurnRecord = { turnId, label, startedAt: this.now(), endedAt: undefined, files: new Map() };
    this.turnList.push(turn);
    this.runningTurn = turn;
    this.changed();
  }

  /** Whether a turn already has the file's before text (the first change in a turn wins). */
  hasFile(path: string, turnId = this.runningTurn?.turnId): boolean {
    return this.turn(turnId)?.files.has(path) === true;
  }

  /**
   * The file's text before the agent's first change in the turn (undefined: it did not exist).
   * Later calls for the same file in the same turn are ignored — the first snapshot is the one a
   * revert goes back to. `needsConfirm` marks files the agent writes itself: their after text is
   * read from disk when the turn ends.
   */
  recordBefore(
    path: string,
    text: string | undefined,
    opts: { turnId?: number; source?: ChangeSource; needsConfirm?: boolean; uncertain?: boolean; untracked?: Untracked; authoritative?: boolean } = {},
  ): void {
    const turn = this.turn(opts.turnId ?? this.runningTurn?.turnId);
    if (turn === undefined) {
      return;
    }
    const existing = turn.files.get(path);
    if (existing !== undefined) {
      // An exact before text (a client write) replaces one read from disk around the same moment,
      // as long as nothing was recorded against the latter: the disk read may have raced the write.
      const replace = opts.authoritative === true && existing.hunks.length === 0 && !existing.sources.has('write');
      if (!replace) {
        if (opts.source !== undefined) {
          existing.sources.add(opts.source);
        }
        if (opts.needsConfirm === true) {
          existing.needsConfirm = true;
        }
        return;
      }
      this.dropFile(turn, existing);
    }
    let baseRef: SnapshotRef | undefined;
    let untracked: Untracked | undefined = opts.untracked;
    if (text !== undefined && untracked === undefined) {
      if (text.length > this.maxFileBytes) {
        untracked = 'tooLarge';
      } else {
        baseRef = this.options.store.put(text);
        untracked = baseRef === undefined ? 'limit' : undefined;
      }
    }
    const exists = text !== undefined || opts.untracked !== undefined;
    turn.files.set(path, {
      path,
      baseExists: exists,
      baseRef,
      hunks: [],
      agentExists: exists,
      needsConfirm: opts.needsConfirm === true || existing?.needsConfirm === true,
      sources: new Set([...(existing?.sources ?? []), ...(opts.source !== undefined ? [opts.source] : [])]),
      uncertain: opts.uncertain === true,
      untracked,
      reverted: new Set(),
      kept: new Set(),
      hunkChars: 0,
    });
    this.changed();
  }

  /**
   * A diff arrived for a file whose snapshot was read from disk without one (a tool call named
   * it first): if that read may have raced the agent's own write (the snapshot already holds the
   * diff's new side), `revise` gives the text before from the diff. Only while nothing was
   * recorded after it, and never over an exact before text from a client write.
   */
  reviseBefore(path: string, revise: (base: string | undefined) => { readonly text: string | undefined; readonly certain: boolean }, turnId = this.runningTurn?.turnId): boolean {
    const turn = this.turn(turnId);
    const rec = turn?.files.get(path);
    if (turn === undefined || rec === undefined || rec.hunks.length > 0 || rec.untracked !== undefined || rec.sources.has('write')) {
      return false;
    }
    const base = rec.baseExists ? (rec.baseRef !== undefined ? this.options.store.get(rec.baseRef) : '') : undefined;
    const revised = revise(base);
    if (!revised.certain || revised.text === base) {
      return false;
    }
    this.recordBefore(path, revised.text, { turnId: turn.turnId, authoritative: true });
    return true;
  }

  /** The file's text after the agent's change (undefined: the agent deleted it). Needs {@link recordBefore} first. */
  recordAfter(path: string, text: string | undefined, opts: { turnId?: number; source?: ChangeSource } = {}): void {
    const rec = this.turn(opts.turnId ?? this.runningTurn?.turnId)?.files.get(path);
    if (rec === undefined) {
      return;
    }
    if (opts.source !== undefined) {
      rec.sources.add(opts.source);
    }
    rec.agentExists = text !== undefined;
    if (rec.untracked !== undefined) {
      this.changed();
      return;
    }
    const base = rec.baseRef !== undefined ? this.options.store.get(rec.baseRef) : '';
    rec.hunks = computeHunks(base, text ?? '');
    rec.hunkChars = rec.hunks.reduce((n, h) => n + h.baseText.length + h.agentText.length, 0);
    const keys = new Set(rec.hunks.map((h) => h.key));
    for (const set of [rec.reverted, rec.kept]) {
      for (const k of [...set]) {
        if (!keys.has(k)) {
          set.delete(k);
        }
      }
    }
    this.changed();
  }

  /** Files of a turn whose after text must be read from disk before `ChangeTracker.endTurn`. */
  pathsToConfirm(turnId = this.runningTurn?.turnId): string[] {
    return [...(this.turn(turnId)?.files.values() ?? [])].filter((f) => f.needsConfirm).map((f) => f.path);
  }

  /** Whether a turn is running or still being confirmed. */
  isOpen(turnId: number): boolean {
    return this.runningTurn?.turnId === turnId || [...this.finishing].some((t) => t.turnId === turnId);
  }

  turns(): TurnChanges[] {
    return this.turnList.map((t) => ({
      turnId: t.turnId,
      label: t.label,
      running: t === this.runningTurn,
      startedAt: t.startedAt,
      endedAt: t.endedAt,
      files: [...t.files.values()].map((f) => fileView(t.turnId, f)),
    }));
  }

  file(turnId: number, path: string): FileChange | undefined {
    const rec = this.turn(turnId)?.files.get(path);
    return rec !== undefined ? fileView(turnId, rec) : undefined;
  }

  /** The file's text before the turn (undefined: it did not exist, or no snapshot was kept). */
  baseText(turnId: number, path: string): string | undefined {
    const rec = this.turn(turnId)?.files.get(path);
    return rec?.baseRef !== undefined ? this.options.store.get(rec.baseRef) : rec?.baseExists === false ? undefined : rec !== undefined ? '' : undefined;
  }

  /**
   * The snapshots of the records matching (a turn, a file, or both; everything by default): what
   * the caller loads from the store (`SnapshotStore.load`) before an operation that reads them.
   */
  baseRefs(filter: { readonly turnId?: number; readonly path?: string }): SnapshotRef[] {
    const refs: SnapshotRef[] = [];
    for (const t of this.turnList) {
      if (filter.turnId !== undefined && t.turnId !== filter.turnId) {
        continue;
      }
      for (const rec of t.files.values()) {
        if (rec.baseRef !== undefined && (filter.path === undefined || rec.path === filter.path)) {
          refs.push(rec.baseRef);
        }
      }
    }
    return refs;
  }

  /** The earliest turn (from `fromTurnId` on) that touched the file: its snapshot is the file before all of them. */
  firstTurnWith(path: string, fromTurnId = 0): number | undefined {
    return this.turnList.find((t) => t.turnId >= fromTurnId && t.files.has(path))?.turnId;
  }

  /** Where each hunk of a turn's change to a file stands in `current`. */
  analyze(turnId: number, path: string, current: string | undefined): FileAnalysis | undefined {
    const model = this.model(turnId, path);
    return model !== undefined ? analyzeFile(model, current) : undefined;
  }

  usage(): TrackerUsage {
    let files = 0;
    let snapshotBytes = 0;
    let hunkBytes = 0;
    for (const t of this.turnList) {
      for (const rec of t.files.values()) {
        files++;
        snapshotBytes += rec.baseRef?.bytes ?? 0;
        hunkBytes += rec.hunkChars * 2;
      }
    }
    return { turns: this.turnList.length, files, snapshotBytes, hunkBytes };
  }

  protected changed(): void {
    this.versionValue++;
    this.onDidChangeEmitter.fire();
  }

  protected turn(turnId: number | undefined): TurnRecord | undefined {
    return turnId === undefined ? undefined : this.turnList.find((t) => t.turnId === turnId);
  }

  protected model(turnId: number, path: string): FileModel | undefined {
    const rec = this.turn(turnId)?.files.get(path);
    return rec !== undefined ? fileModel(rec, this.options.store) : undefined;
  }

  protected dropFile(turn: TurnRecord, rec: FileRecord): void {
    if (rec.baseRef !== undefined) {
      this.options.store.release(rec.baseRef);
    }
    turn.files.delete(rec.path);
  }
}
