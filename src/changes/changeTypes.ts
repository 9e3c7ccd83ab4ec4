import type { AgentHunk, HunkConflict } from './hunks';
import type { RevertNoteItem } from './revertNote';

/** Why a file the agent touched is listed but cannot be reverted. */
export type Untracked = 'tooLarge' | 'binary' | 'limit';

/** How the tracker learnt about a file's change (shown in tooltips). */
export type ChangeSource = 'write' | 'permission' | 'toolDiff' | 'location';

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
  /** Hunks that hold the pre-turn text afterwards, per turn (recorded by `ChangeTracker.commit`). */
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

/** Reads what is in a file now (the open document, unsaved edits included); undefined: it does not exist. */
export type ReadCurrent = (path: string) => string | undefined;
