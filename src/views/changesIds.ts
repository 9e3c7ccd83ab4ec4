/**
 * Ids of the Changes view. Commands are named `hermes.<word>` (no second dot): the manifest check
 * (test/checks/checkManifest.mjs) only recognises that shape in src/views/commandIds.ts, where
 * these must be listed too.
 */
export const ChangesCommandId = {
  openChangeDiff: 'hermes.openChangeDiff',
  revertHunk: 'hermes.revertHunk',
  keepHunk: 'hermes.keepHunk',
  revertFileChanges: 'hermes.revertFileChanges',
  keepFileChanges: 'hermes.keepFileChanges',
  revertTurn: 'hermes.revertTurn',
  restoreTurn: 'hermes.restoreTurn',
  rewindTurn: 'hermes.rewindTurn',
  keepTurn: 'hermes.keepTurn',
  keepAllChanges: 'hermes.keepAllChanges',
  removeRevertNote: 'hermes.removeRevertNote',
  clearChanges: 'hermes.clearChanges',
} as const;

export type ChangesCommandIdValue = (typeof ChangesCommandId)[keyof typeof ChangesCommandId];

export const changesViewId = 'hermes.changesView';

/** Read-only virtual documents holding the snapshot from before a turn (the left side of its diff). */
export const snapshotScheme = 'hermes-snapshot';

export const ChangesContextKey = {
  /** The active editor is a Changes diff (snapshot ↔ file): hunk and file actions in its title. */
  diffActive: 'hermes.changesDiffActive',
  /** Some chat has agent changes: the view shows them instead of its welcome text. */
  hasChanges: 'hermes.hasAgentChanges',
} as const;
