import { planRevert, type FileModel, type HunkConflict } from './hunks';
import type { PlannedFile, ReadCurrent, RevertPlan, RevertTarget } from './changeTypes';
import type { TurnRecord } from './fileRecords';
import type { RevertNoteItem } from './revertNote';

/** What planning reads from the tracker: its turns, and each file's snapshot as the hunk functions see it. */
export interface PlanSource {
  readonly turnList: readonly TurnRecord[];
  turn(turnId: number | undefined): TurnRecord | undefined;
  model(turnId: number, path: string): FileModel | undefined;
  baseText(turnId: number, path: string): string | undefined;
  firstTurnWith(path: string, fromTurnId?: number): number | undefined;
}

/**
 * Plans reverting `targets` against what the files hold now. Several targets on one file are
 * applied latest turn first to a working copy, so a later turn's change is undone before the
 * one under it. Conflicting hunks (edited since) are reported and left alone unless `force`.
 */
export function planTargets(src: PlanSource, targets: readonly RevertTarget[], read: ReadCurrent, opts: { force?: boolean; includeKept?: boolean } = {}): RevertPlan {
  const byPath = new Map<string, RevertTarget[]>();
  for (const t of targets) {
    byPath.set(t.path, [...(byPath.get(t.path) ?? []), t]);
  }
  const files: PlannedFile[] = [];
  for (const [path, list] of byPath) {
    files.push(planFile(src, path, list, read, opts));
  }
  return { files, conflicts: files.reduce((n, f) => n + f.conflicts.length, 0) };
}

/**
 * Plans "restore to before this turn": every file the turn or a later one touched goes back to
 * its snapshot from before the earliest of those turns — kept hunks too. Edits made since in
 * other regions survive; with `force`, conflicting files are overwritten with the snapshot.
 */
export function planRestoreFrom(src: PlanSource, turnId: number, read: ReadCurrent, opts: { force?: boolean } = {}): RevertPlan {
  const targets: RevertTarget[] = [];
  for (const t of src.turnList) {
    if (t.turnId >= turnId) {
      for (const path of t.files.keys()) {
        targets.push({ turnId: t.turnId, path });
      }
    }
  }
  const plan = planTargets(src, targets, read, { includeKept: true });
  if (opts.force !== true || plan.conflicts === 0) {
    return { files: plan.files.map((f) => ({ ...f, note: f.changed ? restoredNote(src, f, turnId) : [] })), conflicts: plan.conflicts };
  }
  // Overwrite conflicting files with the earliest snapshot, exactly.
  const files = plan.files.map((f): PlannedFile => {
    if (f.conflicts.length === 0 || f.untracked !== undefined) {
      return { ...f, note: f.changed ? restoredNote(src, f, turnId) : [] };
    }
    const first = src.firstTurnWith(f.path, turnId);
    const result = first !== undefined ? src.baseText(first, f.path) : f.current;
    const reverted = src.turnList
      .filter((t) => t.turnId >= turnId && t.files.has(f.path))
      .map((t) => ({ turnId: t.turnId, keys: (t.files.get(f.path)?.hunks ?? []).map((h) => h.key) }));
    const planned: PlannedFile = { ...f, result, changed: result !== f.current, reverted };
    return { ...planned, note: planned.changed ? restoredNote(src, planned, turnId) : [] };
  });
  // Conflicts stay reported: they were overwritten, as asked.
  return { files, conflicts: plan.conflicts };
}

function planFile(src: PlanSource, path: string, targets: readonly RevertTarget[], read: ReadCurrent, opts: { force?: boolean; includeKept?: boolean }): PlannedFile {
  const current = read(path);
  let working = current;
  const conflicts: { turnId: number; conflict: HunkConflict }[] = [];
  const reverted: { turnId: number; keys: string[] }[] = [];
  const note: RevertNoteItem[] = [];
  const sorted = [...targets].sort((a, b) => b.turnId - a.turnId);
  for (const target of sorted) {
    const rec = src.turn(target.turnId)?.files.get(path);
    if (rec === undefined) {
      continue;
    }
    if (rec.untracked !== undefined) {
      return { path, current, result: current, changed: false, conflicts: [], reverted: [], note: [], untracked: rec.untracked };
    }
    const model = src.model(target.turnId, path);
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

function restoredNote(src: PlanSource, f: PlannedFile, turnId: number): RevertNoteItem[] {
  const first = src.firstTurnWith(f.path, turnId) ?? turnId;
  const rec = src.turn(first)?.files.get(f.path);
  if (rec !== undefined && !rec.baseExists && f.result === undefined) {
    return [{ kind: 'deleted', path: f.path, turnId: first }];
  }
  return [{ kind: 'restored', path: f.path, turnId: first }];
}
