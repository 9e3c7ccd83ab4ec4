import { hunkAdded, hunkRemoved, type AgentHunk, type FileModel } from './hunks';
import type { ChangeSource, FileChange, Untracked } from './changeTypes';
import type { SnapshotRef, SnapshotStore } from './snapshotStore';

/** What the tracker holds for one file of one turn. */
export interface FileRecord {
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

/** One turn's records, by path. */
export interface TurnRecord {
  readonly turnId: number;
  readonly label: string;
  readonly startedAt: number;
  endedAt: number | undefined;
  readonly files: Map<string, FileRecord>;
}

/** The record as the hunk functions see it (the snapshot read from the store); undefined when it has no snapshot. */
export function fileModel(rec: FileRecord, store: SnapshotStore): FileModel | undefined {
  if (rec.untracked !== undefined) {
    return undefined;
  }
  return {
    base: rec.baseExists ? (rec.baseRef !== undefined ? store.get(rec.baseRef) : '') : undefined,
    hunks: rec.hunks,
    agentExists: rec.agentExists,
    reverted: rec.reverted,
  };
}

/** The record as the surface shows it. */
export function fileView(turnId: number, rec: FileRecord): FileChange {
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
