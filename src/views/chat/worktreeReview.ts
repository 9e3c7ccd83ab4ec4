import * as path from 'node:path';
import * as vscode from 'vscode';
import type { WorktreeStatus, Worktrees } from '../../worktree/worktrees';
import type { WorktreeRecord } from '../../worktree/worktreeRecords';

/** Read-only documents of a worktree's base: `hermes-worktree-base:/<repo-relative path>?<worktree name>`. */
export const worktreeBaseScheme = 'hermes-worktree-base';

/**
 * Review of a worktree session (issue 40): the branch's changes against the commit it started
 * from, in one VS Code multi-file diff editor — the base as a read-only document (left) against the
 * worktree's file (right, the real file: edits and VS Code's per-hunk revert work on it). Changes
 * the chat made turn by turn are in the Changes view as for any chat.
 */
export class WorktreeReview implements vscode.TextDocumentContentProvider, vscode.Disposable {
  /** The worktrees reviewed this window, by name (the base documents' query). */
  private readonly records = new Map<string, WorktreeRecord>();
  private readonly registration: vscode.Disposable;

  constructor(private readonly worktrees: Worktrees) {
    this.registration = vscode.workspace.registerTextDocumentContentProvider(worktreeBaseScheme, this);
  }

  async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
    const record = this.records.get(uri.query);
    if (record === undefined) {
      return '';
    }
    const bytes = await this.worktrees.baseContent(record, uri.path.replace(/^\//, ''));
    return bytes === undefined ? '' : new TextDecoder().decode(bytes);
  }

  /** Opens the diffs of every file the branch changed since its base. */
  async open(status: WorktreeStatus): Promise<void> {
    const { record } = status;
    if (status.changes.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Nothing changed in {0} since {1}.', record.branch, record.base.slice(0, 12)));
      return;
    }
    if (status.missing) {
      void vscode.window.showWarningMessage(vscode.l10n.t('The folder of {0} is gone; only its base can be shown.', record.branch));
    }
    this.records.set(record.name, record);
    const base = (rel: string): vscode.Uri => vscode.Uri.from({ scheme: worktreeBaseScheme, path: `/${rel}`, query: record.name });
    const file = (rel: string): vscode.Uri => vscode.Uri.file(path.join(record.path, ...rel.split('/')));
    const resources = status.changes.map((c) => [file(c.path), c.status === 'A' ? undefined : base(c.path), c.status === 'D' || status.missing ? undefined : file(c.path)] as const);
    const title = vscode.l10n.t('{0} ↔ base {1}', record.branch, record.base.slice(0, 8));
    try {
      await vscode.commands.executeCommand('vscode.changes', title, resources);
    } catch {
      // An editor without the multi-file diff: the first file's diff.
      const [first] = resources;
      if (first !== undefined) {
        await vscode.commands.executeCommand('vscode.diff', first[1] ?? base(''), first[2] ?? first[0], title);
      }
    }
  }

  dispose(): void {
    this.registration.dispose();
    this.records.clear();
  }
}
