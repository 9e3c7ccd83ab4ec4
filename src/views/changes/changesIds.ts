import { ChangesCommandIds } from '../commandIds';

/**
 * Ids of the Changes view. Its command ids are declared in src/views/commandIds.ts, where the
 * manifest check (test/checks/checkManifest.mjs) reads every command id.
 */
export const ChangesCommandId = ChangesCommandIds;

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
