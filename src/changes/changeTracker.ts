import type { Disposable } from '../util/disposable';
import { Emitter } from '../util/emitter';
import {
  analyzeFile,
  computeHunks,
  hunkAdded,
  hunkRemoved,
  planRevert,
  type AgentHunk,
  type FileAnalysis,
  type FileModel,
  type HunkConflict,
} from './hunks';
import type { RevertNoteItem } from './revertNote';
import type { SnapshotRef, SnapshotStore } from './snapshotStore';

/** Why a file the agent touched is listed but cannot be reverted. */
export type Untracked = 'tooLarge' | 'binary' | 'limit';

/** How the tracker learnt about a file's change (shown in tooltips). */
export type ChangeSource = 'write' | 'permission' | 'toolDiff' | 'location';

interface FileRecord {
  readonly path: string;
  readonly baseExists: boolean;
  readonly baseRef: SnapshotRef | undefined;
  hunks: AgentHunk[];
  agentExists: boolean;
  /** The after text must be read from disk when the turn ends (the agent writes the file itself). */
  needsConfirm: boolean;
  readonly sources: Set<ChangeSource>;
  /** The before text was reconstructed from a diff and the disk agreed with neither side. */
  readonly uncertain: boolean;
  readonly untracked: Untracked | undefined;
  readonly reverted: Set<string>;
  readonly kept: Set<string>;
  /** UTF-16 length of the hunks' texts (held in memory). */
  hunkChars: number;
}

interface TurnRecord {
  readonly turnId: number;
  readonly label: string;
  readonly startedAt: number;
  endedAt: number | undefined;
  readonly files: Map<string, FileRecord>;
}

/** One file of one turn, as the surface shows it. */
export interface FileChange {
  readonly turnId: number;
  readonly path: string;
  readonly created: boolean;
  readonly deleted: boolean;
  readonly hunks: readonly AgentHunk[];
  /** Keys of hunks kept (accepted) or reverted through the tracker. */
  readonly kept: ReadonlySet<string>;
  readonly reverted: ReadonlySet<string>;
  readonly sources: readonly ChangeSource[];
  readonly uncertain: boolean;
  readonly untracked: Untracked | undefined;
  /** Lines added / removed by the hunks still pending (neither kept nor reverted). */
  readonly added: number;
  readonly removed: number;
  /** Pending hunks (neither kept nor reverted), or the file itself when created/deleted without line changes. */
  readonly pending: number;
}

export interface TurnChanges {
  readonly turnId: number;
  readonly label: string;
  readonly running: boolean;
  readonly startedAt: number;
  readonly endedAt: number | undefined;
  readonly files: readonly FileChange[];
}

/** What to revert: some hunks of one file in one turn, or all of them. */
export interface RevertTarget {
  readonly turnId: number;
  readonly path: string;
  /** Hunk keys; absent = every hunk still pending (kept ones stay). */
  readonly keys?: readonly string[];
}

export interface PlannedFile {
  readonly path: string;
  readonly current: string | undefined;
  /** Undefined: the file must not exist. */
  readonly result: string | undefined;
  readonly changed: boolean;
  readonly conflicts: readonly { readonly turnId: number; readonly conflict: HunkConflict }[];
  /** Hunks that hold the pre-turn text afterwards, per turn (recorded by {@link ChangeTracker.commit}). */
  readonly reverted: readonly { readonly turnId: number; readonly keys: readonly string[] }[];
  readonly note: readonly RevertNoteItem[];
  /** The file cannot be reverted (no snapshot was kept). */
  readonly untracked?: Untracked;
}

export interface RevertPlan {
  readonly files: readonly PlannedFile[];
  readonly conflicts: number;
}

export interface TrackerUsage {
  readonly turns: number;
  readonly files: number;
  /** Bytes of snapshots this tracker references (shared texts counted in each tracker). */
  readonly snapshotBytes: number;
  /** Memory held by the hunks' texts (UTF-16). */
  readonly hunkBytes: number;
}

export interface ChangeTrackerOptions {
  readonly store: SnapshotStore;
  /** Files larger than this are listed but not snapshotted (default 8 MiB). */
  readonly maxFileBytes?: number;
  readonly now?: () => number;
}

/** Reads what is in a file now (the open document, unsaved edits included); undefined: it does not exist. */
export type ReadCurrent = (path: string) => string | undefined;

interface QueuedOp {
  readonly run: () => Promise<void>;
}

/**
 * The agent's changes in one chat, per turn and file: a snapshot of each touched file before the
 * turn's first change to it (only touched files), and the agent's hunks against it. Plans reverts
 * against the CURRENT text so edits made since by the user or another session survive, and never
 * changes files itself: the surface applies plans and reports back with {@link commit}. Work that
 * would change files while a turn runs waits in {@link whenIdle} until the turn ends.
 */
export class ChangeTracker implements Disposable {
  private readonly turnList: TurnRecord[] = [];
  private runningTurn: TurnRecord | undefined;
  /** Turns whose prompt ended but whose after texts are still being confirmed (a new turn may already run). */
  private readonly finishing = new Set<TurnRecord>();
  private readonly queue: QueuedOp[] = [];
  private pumping = false;
  private noteItems: RevertNoteItem[] = [];
  private readonly onDidChangeEmitter = new Emitter<void>();
  /** Turns, files, hunks, decisions, the queue or the note changed. */
  readonly onDidChange = this.onDidChangeEmitter.event;
  private versionValue = 0;
  private readonly maxFileBytes: number;
  private readonly now: () => number;
  private disposed = false;

  constructor(private readonly options: ChangeTrackerOptions) {
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

  /** Operations waiting for the running turn to end. */
  get queued(): number {
    return this.queue.length;
  }

  /** A turn started. One still running is left open for its confirmation ({@link endTurn} with its id). */
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

  /** Files of a turn whose after text must be read from disk before {@link endTurn}. */
  pathsToConfirm(turnId = this.runningTurn?.turnId): string[] {
    return [...(this.turn(turnId)?.files.values() ?? [])].filter((f) => f.needsConfirm).map((f) => f.path);
  }

  /** Whether a turn is running or still being confirmed. */
  isOpen(turnId: number): boolean {
    return this.runningTurn?.turnId === turnId || [...this.finishing].some((t) => t.turnId === turnId);
  }

  /**
   * The turn is over (its after texts confirmed): files it did not change after all (a denied
   * edit, a rewrite to the same text) are dropped with their snapshots, and queued work runs
   * unless another turn runs by now.
   */
  endTurn(turnId = this.runningTurn?.turnId): void {
    const turn = this.turn(turnId);
    if (turn === undefined || !this.isOpen(turn.turnId)) {
      return;
    }
    if (turn === this.runningTurn) {
      this.runningTurn = undefined;
    }
    this.finishing.delete(turn);
    turn.endedAt = this.now();
    for (const rec of [...turn.files.values()]) {
      rec.needsConfirm = false;
      if (rec.hunks.length === 0 && rec.agentExists === rec.baseExists && rec.untracked === undefined) {
        this.dropFile(turn, rec);
      }
    }
    if (turn.files.size === 0) {
      this.turnList.splice(this.turnList.indexOf(turn), 1);
    }
    this.changed();
    void this.pump();
  }

  /**
   * Runs `fn` now, or — while a turn runs — after it ended, in order with other queued work: the
   * agent's files are never changed under it.
   */
  whenIdle<T>(fn: () => Promise<T>): Promise<T> {
    return new Promise<T>((resolve, reject) => {
      this.queue.push({ run: () => fn().then(resolve, reject) });
      this.changed();
      void this.pump();
    });
  }

  turns(): TurnChanges[] {
    return this.turnList.map((t) => ({
      turnId: t.turnId,
      label: t.label,
      running: t === this.runningTurn,
      startedAt: t.startedAt,
      endedAt: t.endedAt,
      files: [...t.files.values()].map((f) => this.view(t.turnId, f)),
    }));
  }

  file(turnId: number, path: string): FileChange | undefined {
    const rec = this.turn(turnId)?.files.get(path);
    return rec !== undefined ? this.view(turnId, rec) : undefined;
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

  /**
   * Plans reverting `targets` against what the files hold now. Several targets on one file are
   * applied latest turn first to a working copy, so a later turn's change is undone before the
   * one under it. Conflicting hunks (edited since) are reported and left alone unless `force`.
   */
  planRevert(targets: readonly RevertTarget[], read: ReadCurrent, opts: { force?: boolean; includeKept?: boolean } = {}): RevertPlan {
    const byPath = new Map<string, RevertTarget[]>();
    for (const t of targets) {
      byPath.set(t.path, [...(byPath.get(t.path) ?? []), t]);
    }
    const files: PlannedFile[] = [];
    for (const [path, list] of byPath) {
      files.push(this.planFile(path, list, read, opts));
    }
    return { files, conflicts: files.reduce((n, f) => n + f.conflicts.length, 0) };
  }

  /**
   * Plans "restore to before this turn": every file the turn or a later one touched goes back to
   * its snapshot from before the earliest of those turns — kept hunks too. Edits made since in
   * other regions survive; with `force`, conflicting files are overwritten with the snapshot.
   */
  planRestore(turnId: number, read: ReadCurrent, opts: { force?: boolean } = {}): RevertPlan {
    const targets: RevertTarget[] = [];
    for (const t of this.turnList) {
      if (t.turnId >= turnId) {
        for (const path of t.files.keys()) {
          targets.push({ turnId: t.turnId, path });
        }
      }
    }
    const plan = this.planRevert(targets, read, { includeKept: true });
    if (opts.force !== true || plan.conflicts === 0) {
      return { files: plan.files.map((f) => ({ ...f, note: f.changed ? this.restoredNote(f, turnId) : [] })), conflicts: plan.conflicts };
    }
    // Overwrite conflicting files with the earliest snapshot, exactly.
    const files = plan.files.map((f): PlannedFile => {
      if (f.conflicts.length === 0 || f.untracked !== undefined) {
        return { ...f, note: f.changed ? this.restoredNote(f, turnId) : [] };
      }
      const first = this.firstTurnWith(f.path, turnId);
      const result = first !== undefined ? this.baseText(first, f.path) : f.current;
      const reverted = this.turnList
        .filter((t) => t.turnId >= turnId && t.files.has(f.path))
        .map((t) => ({ turnId: t.turnId, keys: (t.files.get(f.path)?.hunks ?? []).map((h) => h.key) }));
      const planned: PlannedFile = { ...f, result, changed: result !== f.current, reverted };
      return { ...planned, note: planned.changed ? this.restoredNote(planned, turnId) : [] };
    });
    // Conflicts stay reported: they were overwritten, as asked.
    return { files, conflicts: plan.conflicts };
  }

  /** The surface applied (part of) a plan: record what is reverted now and remember it for the note. */
  commit(files: readonly PlannedFile[]): void {
    for (const f of files) {
      for (const r of f.reverted) {
        const rec = this.turn(r.turnId)?.files.get(f.path);
        for (const k of r.keys) {
          rec?.reverted.add(k);
          rec?.kept.delete(k);
        }
      }
      this.noteItems.push(...f.note);
    }
    this.changed();
  }

  /**
   * Hunks whose text was found reverted (or put back) in the current text by someone else — an
   * undo, the diff editor's own revert arrow — are recorded as such, so the view and later plans
   * agree with the file. Returns whether anything changed.
   */
  reconcile(path: string, current: string | undefined): boolean {
    let changed = false;
    for (const t of this.turnList) {
      const rec = t.files.get(path);
      if (rec === undefined || rec.untracked !== undefined || this.isOpen(t.turnId)) {
        continue;
      }
      const model = this.model(t.turnId, path);
      if (model === undefined) {
        continue;
      }
      for (const h of analyzeFile(model, current).hunks) {
        if (h.status === 'reverted' && !rec.reverted.has(h.hunk.key)) {
          rec.reverted.add(h.hunk.key);
          changed = true;
        } else if (h.status === 'applied' && rec.reverted.has(h.hunk.key)) {
          rec.reverted.delete(h.hunk.key);
          changed = true;
        }
      }
    }
    if (changed) {
      this.changed();
    }
    return changed;
  }

  /** Keep (accept) hunks: they leave the pending list; "restore to before the turn" still undoes them. */
  keep(scope: { turnId?: number; path?: string; keys?: readonly string[] } = {}): void {
    for (const t of this.turnList) {
      if (scope.turnId !== undefined && t.turnId !== scope.turnId) {
        continue;
      }
      for (const rec of t.files.values()) {
        if (scope.path !== undefined && rec.path !== scope.path) {
          continue;
        }
        for (const h of rec.hunks) {
          if ((scope.keys === undefined || scope.keys.includes(h.key)) && !rec.reverted.has(h.key)) {
            rec.kept.add(h.key);
          }
        }
        if (rec.hunks.length === 0) {
          // A created or deleted file without line changes: keeping it keeps the file.
          rec.kept.add('file');
        }
      }
    }
    this.changed();
  }

  /** Forgets turns (and their snapshots): nothing before them can be restored afterwards. */
  forget(turnId?: number): void {
    for (const t of [...this.turnList]) {
      if ((turnId === undefined || t.turnId === turnId) && !this.isOpen(t.turnId)) {
        for (const rec of [...t.files.values()]) {
          this.dropFile(t, rec);
        }
        this.turnList.splice(this.turnList.indexOf(t), 1);
      }
    }
    this.changed();
  }

  /** What the user reverted since the last prompt (for the context note). */
  get note(): readonly RevertNoteItem[] {
    return this.noteItems;
  }

  clearNote(): void {
    if (this.noteItems.length > 0) {
      this.noteItems = [];
      this.changed();
    }
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

  dispose(): void {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    for (const t of this.turnList) {
      for (const rec of t.files.values()) {
        if (rec.baseRef !== undefined) {
          this.options.store.release(rec.baseRef);
        }
      }
    }
    this.turnList.length = 0;
    this.runningTurn = undefined;
    this.finishing.clear();
    this.queue.length = 0;
    this.onDidChangeEmitter.dispose();
  }

  private changed(): void {
    this.versionValue++;
    this.onDidChangeEmitter.fire();
  }

  private turn(turnId: number | undefined): TurnRecord | undefined {
    return turnId === undefined ? undefined : this.turnList.find((t) => t.turnId === turnId);
  }

  private model(turnId: number, path: string): FileModel | undefined {
    const rec = this.turn(turnId)?.files.get(path);
    if (rec === undefined || rec.untracked !== undefined) {
      return undefined;
    }
    return {
      base: rec.baseExists ? (rec.baseRef !== undefined ? this.options.store.get(rec.baseRef) : '') : undefined,
      hunks: rec.hunks,
      agentExists: rec.agentExists,
      reverted: rec.reverted,
    };
  }

  private view(turnId: number, rec: FileRecord): FileChange {
    const pendingHunks = rec.hunks.filter((h) => !rec.kept.has(h.key) && !rec.reverted.has(h.key));
    const fileLevel = rec.hunks.length === 0 && rec.baseExists !== rec.agentExists && !rec.kept.has('file') && !rec.reverted.has('file');
    return {
      turnId,
      path: rec.path,
      created: !rec.baseExists && rec.agentExists,
      deleted: rec.baseExists && !rec.agentExists,
      hunks: rec.hunks,
      kept: rec.kept,
      reverted: rec.reverted,
      sources: [...rec.sources],
      uncertain: rec.uncertain,
      untracked: rec.untracked,
      added: pendingHunks.reduce((n, h) => n + hunkAdded(h), 0),
      removed: pendingHunks.reduce((n, h) => n + hunkRemoved(h), 0),
      pending: pendingHunks.length + (fileLevel ? 1 : 0) + (rec.untracked !== undefined && !rec.kept.has('file') ? 1 : 0),
    };
  }

  private planFile(path: string, targets: readonly RevertTarget[], read: ReadCurrent, opts: { force?: boolean; includeKept?: boolean }): PlannedFile {
    const current = read(path);
    let working = current;
    const conflicts: { turnId: number; conflict: HunkConflict }[] = [];
    const reverted: { turnId: number; keys: string[] }[] = [];
    const note: RevertNoteItem[] = [];
    const sorted = [...targets].sort((a, b) => b.turnId - a.turnId);
    for (const target of sorted) {
      const rec = this.turn(target.turnId)?.files.get(path);
      if (rec === undefined) {
        continue;
      }
      if (rec.untracked !== undefined) {
        return { path, current, result: current, changed: false, conflicts: [], reverted: [], note: [], untracked: rec.untracked };
      }
      const model = this.model(target.turnId, path);
      if (model === undefined) {
        continue;
      }
      let keys: ReadonlySet<string> | 'all';
      if (target.keys !== undefined) {
        keys = new Set(target.keys);
      } else if (opts.includeKept === true || rec.kept.size === 0) {
        keys = 'all';
      } else {
        keys = new Set(rec.hunks.filter((h) => !rec.kept.has(h.key)).map((h) => h.key));
      }
      const outcome = planRevert(model, working, keys, opts.force === true ? { force: true } : {});
      conflicts.push(...outcome.conflicts.map((c) => ({ turnId: target.turnId, conflict: c })));
      const fileKeys = keys === 'all' && model.hunks.length === 0 && outcome.conflicts.length === 0 ? ['file'] : [];
      reverted.push({ turnId: target.turnId, keys: [...outcome.reverted.map((h) => h.key), ...fileKeys] });
      if (outcome.changed) {
        if (outcome.result === undefined && !rec.baseExists) {
          note.push({ kind: 'deleted', path, turnId: target.turnId });
        } else if (working === undefined && outcome.result !== undefined && rec.baseExists && !rec.agentExists) {
          note.push({ kind: 'recreated', path, turnId: target.turnId });
        } else {
          for (const h of outcome.revertedNow) {
            note.push({
              kind: 'hunk',
              path,
              turnId: target.turnId,
              line: h.baseStart + 1,
              baseLines: h.baseEnd - h.baseStart,
              agentLines: h.agentEnd - h.agentStart,
              agentPreview: h.agentText.split('\n', 1)[0] ?? '',
            });
          }
        }
      }
      working = outcome.result;
    }
    return { path, current, result: working, changed: working !== current, conflicts, reverted, note };
  }

  private restoredNote(f: PlannedFile, turnId: number): RevertNoteItem[] {
    const first = this.firstTurnWith(f.path, turnId) ?? turnId;
    const rec = this.turn(first)?.files.get(f.path);
    if (rec !== undefined && !rec.baseExists && f.result === undefined) {
      return [{ kind: 'deleted', path: f.path, turnId: first }];
    }
    return [{ kind: 'restored', path: f.path, turnId: first }];
  }

  private dropFile(turn: TurnRecord, rec: FileRecord): void {
    if (rec.baseRef !== undefined) {
      this.options.store.release(rec.baseRef);
    }
    turn.files.delete(rec.path);
  }

  private async pump(): Promise<void> {
    if (this.pumping) {
      return;
    }
    this.pumping = true;
    try {
      while (this.runningTurn === undefined && !this.disposed) {
        const op = this.queue.shift();
        if (op === undefined) {
          break;
        }
        this.changed();
        await op.run();
      }
    } finally {
      this.pumping = false;
    }
  }
}
