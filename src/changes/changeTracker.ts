import type { Disposable } from '../util/disposable';
import type { PlannedFile, ReadCurrent, RevertPlan, RevertTarget } from './changeTypes';
import { analyzeFile } from './hunks';
import type { RevertNoteItem } from './revertNote';
import { planRestoreFrom, planTargets, type PlanSource } from './revertPlanner';
import { TurnSnapshots } from './turnSnapshots';

export type { ChangeSource, FileChange, PlannedFile, ReadCurrent, RevertPlan, RevertTarget, TrackerUsage, TurnChanges, Untracked } from './changeTypes';
export type { ChangeTrackerOptions } from './turnSnapshots';

interface QueuedOp {
  readonly run: () => Promise<void>;
}

/**
 * The agent's changes in one chat, per turn and file — the snapshots and hunks of
 * {@link TurnSnapshots} — and what is decided about them: kept, reverted, restored. Plans reverts
 * against the CURRENT text so edits made since by the user or another session survive, and never
 * changes files itself: the surface applies plans and reports back with {@link commit}. Work that
 * would change files while a turn runs waits in {@link whenIdle} until the turn ends.
 */
export class ChangeTracker extends TurnSnapshots implements Disposable {
  private readonly queue: QueuedOp[] = [];
  private pumping = false;
  private noteItems: RevertNoteItem[] = [];
  private disposed = false;
  private readonly planSource: PlanSource = {
    turnList: this.turnList,
    turn: (turnId) => this.turn(turnId),
    model: (turnId, path) => this.model(turnId, path),
    baseText: (turnId, path) => this.baseText(turnId, path),
    firstTurnWith: (path, fromTurnId) => this.firstTurnWith(path, fromTurnId),
  };

  /** Operations waiting for the running turn to end. */
  get queued(): number {
    return this.queue.length;
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

  /**
   * Plans reverting `targets` against what the files hold now. Several targets on one file are
   * applied latest turn first to a working copy, so a later turn's change is undone before the
   * one under it. Conflicting hunks (edited since) are reported and left alone unless `force`.
   */
  planRevert(targets: readonly RevertTarget[], read: ReadCurrent, opts: { force?: boolean; includeKept?: boolean } = {}): RevertPlan {
    return planTargets(this.planSource, targets, read, opts);
  }

  /**
   * Plans "restore to before this turn": every file the turn or a later one touched goes back to
   * its snapshot from before the earliest of those turns — kept hunks too. Edits made since in
   * other regions survive; with `force`, conflicting files are overwritten with the snapshot.
   */
  planRestore(turnId: number, read: ReadCurrent, opts: { force?: boolean } = {}): RevertPlan {
    return planRestoreFrom(this.planSource, turnId, read, opts);
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
