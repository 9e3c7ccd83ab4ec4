import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ChangeTracker, PlannedFile, ReadCurrent, RevertPlan, RevertTarget } from '../../changes/changeTracker';
import { textReplacements } from '../../changes/hunks';
import type { SnapshotStore } from '../../changes/snapshotStore';
import { displayLabel, notificationLabel } from '../../util/displayText';
import type { ChatSession } from '../../app/chatSession';
import type { ChatState } from './changesRecorder';
import { relativePath } from './workspaceText';

/** What to do when a hunk's region was edited since the agent wrote it. */
export type ConflictPolicy = 'ask' | 'skip' | 'overwrite' | 'fail';

export interface ChangeOpResult {
  /** The operation waited for a running turn to end. */
  readonly queued: boolean;
  /** Files that were changed. */
  readonly changedFiles: readonly string[];
  /** Conflicting hunks (edited since): left alone, or overwritten with `overwrite`. */
  readonly conflicts: number;
  /** Nothing was done: the user cancelled at the conflict question, or `fail` met a conflict. */
  readonly cancelled: boolean;
  /** Hunks asked for that no longer exist (the agent rewrote the file before a queued revert ran). */
  readonly missing: number;
}

/** What to revert: hunks or files of turns, or everything from a turn on ("restore to before this turn"). */
export type RevertRequest = readonly RevertTarget[] | { readonly restoreFrom: number };

export interface ChangesReverterOptions {
  readonly store: SnapshotStore;
  readonly stateOf: (chat: ChatSession) => ChatState | undefined;
  /** What a file holds now: the open document (unsaved edits included), else the disk. */
  readonly readCurrent: (filePath: string) => Promise<string | undefined>;
  /** The tracker's "user reverted …" note changed. */
  readonly syncNote: (s: ChatState) => void;
  readonly fireChanged: () => void;
}

/**
 * Reverts and restores the agent's changes as undoable WorkspaceEdits, never while the chat's
 * turn runs (a request made meanwhile waits for its end), never over a region the user edited
 * since unless the policy or the user says so.
 */
export class ChangesReverter {
  constructor(private readonly options: ChangesReverterOptions) {}

  execute(chat: ChatSession, what: RevertRequest, policy: ConflictPolicy, kind: 'revert' | 'restore'): Promise<ChangeOpResult> {
    const s = this.options.stateOf(chat);
    const none: ChangeOpResult = { queued: false, changedFiles: [], conflicts: 0, cancelled: false, missing: 0 };
    if (s === undefined) {
      return Promise.resolve(none);
    }
    const queued = s.tracker.running;
    if (queued) {
      void vscode.window.setStatusBarMessage(vscode.l10n.t('Hermes: the revert waits until {0} finishes its turn.', chat.agentName), 5000);
      this.options.fireChanged();
    }
    return s.tracker.whenIdle(async () => {
      const plan = (read: ReadCurrent, force: boolean): RevertPlan =>
        'restoreFrom' in what ? s.tracker.planRestore(what.restoreFrom, read, { force }) : s.tracker.planRevert(what, read, { force });
      const paths = 'restoreFrom' in what ? restorePaths(s.tracker, what.restoreFrom) : [...new Set(what.map((t) => t.path))];
      const missing = 'restoreFrom' in what ? 0 : countMissing(s.tracker, what);
      await this.options.store.load(s.tracker.baseRefs({}));
      // The user may type between reading and applying: read again and re-plan (a few times).
      for (let attempt = 0; attempt < 3; attempt++) {
        const currents = new Map<string, string | undefined>();
        for (const p of paths) {
          currents.set(p, await this.options.readCurrent(p));
        }
        const read: ReadCurrent = (p) => currents.get(p);
        let chosen = plan(read, policy === 'overwrite');
        if (chosen.conflicts > 0 && policy !== 'overwrite' && policy !== 'skip') {
          const answer = policy === 'fail' ? undefined : await askAboutConflicts(chosen, kind);
          if (answer === undefined) {
            return { queued, changedFiles: [], conflicts: chosen.conflicts, cancelled: true, missing };
          }
          if (answer === 'overwrite') {
            chosen = plan(read, true);
          }
        }
        const conflicts = chosen.conflicts;
        const applied = await applyPlannedFiles(chosen.files);
        if (applied === undefined) {
          continue;
        }
        s.tracker.commit(chosen.files);
        this.options.syncNote(s);
        const untracked = chosen.files.filter((f) => f.untracked !== undefined);
        if (untracked.length > 0) {
          void vscode.window.showWarningMessage(
            vscode.l10n.t('Not reverted (no snapshot was kept — too large, binary, or over the snapshot limit): {0}', untracked.map((f) => notificationLabel(relativePath(f.path), 500)).join(', ')),
          );
        }
        return { queued, changedFiles: applied, conflicts, cancelled: false, missing };
      }
      void vscode.window.showWarningMessage(vscode.l10n.t('The files kept changing while reverting; nothing was reverted. Try again.'));
      return { queued, changedFiles: [], conflicts: 0, cancelled: true, missing };
    });
  }
}

/**
 * Applies planned results as ONE undoable WorkspaceEdit (minimal line replacements, file
 * deletes and creates), then saves the documents that had no unsaved edits before. Undefined
 * when a document changed since it was read (the caller re-plans).
 */
async function applyPlannedFiles(files: readonly PlannedFile[]): Promise<string[] | undefined> {
  const changed = files.filter((f) => f.changed && f.untracked === undefined);
  if (changed.length === 0) {
    return [];
  }
  const edit = new vscode.WorkspaceEdit();
  const meta: vscode.WorkspaceEditEntryMetadata = { label: vscode.l10n.t('Revert agent changes'), needsConfirmation: false };
  const save: vscode.Uri[] = [];
  for (const f of changed) {
    const uri = vscode.Uri.file(f.path);
    if (f.result === undefined) {
      edit.deleteFile(uri, { ignoreIfNotExists: true }, meta);
      continue;
    }
    const edits: [vscode.TextEdit, vscode.WorkspaceEditEntryMetadata][] = [];
    // A document has one line ending and normalises inserted text to it: set the snapshot's
    // own (when it has one) so a restore gives back its bytes, CRLF included.
    const eol = lineEnding(f.result);
    if (f.current === undefined) {
      await fs.promises.mkdir(path.dirname(f.path), { recursive: true });
      edit.createFile(uri, { ignoreIfExists: false }, meta);
      if (f.result !== '') {
        edits.push([vscode.TextEdit.insert(new vscode.Position(0, 0), f.result), meta]);
      }
      if (eol !== undefined) {
        edits.push([vscode.TextEdit.setEndOfLine(eol), meta]);
      }
      edit.set(uri, edits);
      save.push(uri);
      continue;
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.getText() !== f.current) {
      return undefined;
    }
    if (!doc.isDirty) {
      // The user's unsaved edits are not ours to save: only clean documents are saved after.
      save.push(uri);
    }
    for (const r of textReplacements(f.current, f.result)) {
      edits.push([vscode.TextEdit.replace(new vscode.Range(doc.positionAt(r.start), doc.positionAt(r.end)), r.text), meta]);
    }
    if (eol !== undefined && eol !== doc.eol) {
      edits.push([vscode.TextEdit.setEndOfLine(eol), meta]);
    }
    edit.set(uri, edits);
  }
  if (!(await vscode.workspace.applyEdit(edit))) {
    throw new Error(vscode.l10n.t('VS Code could not apply the revert.'));
  }
  for (const uri of save) {
    const doc = vscode.workspace.textDocuments.find((d) => d.uri.toString() === uri.toString());
    if (doc?.isDirty === true) {
      await doc.save();
    }
  }
  return changed.map((f) => f.path);
}

/** The text's line ending when it has exactly one kind (a document cannot hold mixed ones). */
function lineEnding(text: string): vscode.EndOfLine | undefined {
  const lf = (text.match(/\n/g) ?? []).length;
  const crlf = (text.match(/\r\n/g) ?? []).length;
  return lf === 0 ? undefined : crlf === lf ? vscode.EndOfLine.CRLF : crlf === 0 ? vscode.EndOfLine.LF : undefined;
}

function restorePaths(tracker: ChangeTracker, fromTurn: number): string[] {
  return [...new Set(tracker.turns().filter((t) => t.turnId >= fromTurn).flatMap((t) => t.files.map((f) => f.path)))];
}

function countMissing(tracker: ChangeTracker, targets: readonly RevertTarget[]): number {
  let missing = 0;
  for (const t of targets) {
    const keys = new Set(tracker.file(t.turnId, t.path)?.hunks.map((h) => h.key) ?? []);
    missing += (t.keys ?? []).filter((k) => !keys.has(k)).length;
  }
  return missing;
}

async function askAboutConflicts(plan: RevertPlan, kind: 'revert' | 'restore'): Promise<'overwrite' | 'skip' | undefined> {
  const files = plan.files.filter((f) => f.conflicts.length > 0).map((f) => displayLabel(relativePath(f.path), 500));
  const overwrite = kind === 'restore' ? vscode.l10n.t('Restore Anyway') : vscode.l10n.t('Revert Anyway');
  const skip = vscode.l10n.t('Skip Edited Regions');
  const choice = await vscode.window.showWarningMessage(
    vscode.l10n.t('{0} of the agent’s changes were edited since (by you or another session).', plan.conflicts),
    {
      modal: true,
      detail: vscode.l10n.t(
        'Edited: {0}.\n\n“{1}” discards those edits and puts back the text from before the turn. “{2}” leaves the edited regions as they are and reverts the rest.',
        files.join(', '),
        overwrite,
        skip,
      ),
    },
    overwrite,
    skip,
  );
  return choice === overwrite ? 'overwrite' : choice === skip ? 'skip' : undefined;
}
