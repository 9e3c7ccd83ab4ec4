import * as fs from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { hunkAdded, hunkRemoved, type AgentHunk } from '../../changes/hunks';
import type { ChatSession } from '../../app/chatSession';
import { ChangesCommandId, ChangesContextKey, snapshotScheme } from './changesIds';
import { documentPath, relativePath, type ChangesService } from './changesService';
import { countsLabel } from './changesTree';

/** One agent hunk, as commands address it. */
export interface HunkRef {
  readonly chat: ChatSession;
  readonly turnId: number;
  readonly path: string;
  readonly key: string;
}

interface SnapshotUriParts {
  readonly chatId: string;
  readonly turnId: number;
  readonly path: string;
  /** `before`: the snapshot; `gone`: an empty stand-in for a file that does not exist now. */
  readonly side: 'before' | 'gone';
}

export function snapshotUri(parts: SnapshotUriParts): vscode.Uri {
  // The file name last, so the editor picks the language from its extension.
  return vscode.Uri.from({
    scheme: snapshotScheme,
    path: `/${parts.chatId}/${parts.turnId}/${parts.side}/${path.basename(parts.path)}`,
    query: new URLSearchParams({ path: parts.path }).toString(),
  });
}

export function parseSnapshotUri(uri: vscode.Uri): SnapshotUriParts | undefined {
  const m = /^\/([^/]+)\/(\d+)\/(before|gone)\//.exec(uri.path);
  const p = new URLSearchParams(uri.query).get('path');
  if (uri.scheme !== snapshotScheme || m === null || p === null) {
    return undefined;
  }
  return { chatId: m[1] ?? '', turnId: Number(m[2]), side: m[3] === 'gone' ? 'gone' : 'before', path: p };
}

/**
 * The diff side of the Changes view: the snapshot from before a turn as a read-only virtual
 * document (left) against the real file (right, so edits are live); CodeLens "Revert this hunk" /
 * "Keep" on each pending hunk of a file (in the editor, and in the diff editor when
 * `diffEditor.codeLens` is on); and the hunk under the cursor for the diff editor's title
 * actions, which work whatever that setting says.
 */
export class ChangesDiff implements vscode.TextDocumentContentProvider, vscode.CodeLensProvider, vscode.Disposable {
  private readonly onDidChangeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.onDidChangeEmitter.event;
  private readonly onDidChangeCodeLensesEmitter = new vscode.EventEmitter<void>();
  readonly onDidChangeCodeLenses = this.onDidChangeCodeLensesEmitter.event;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly service: ChangesService) {
    const sub = service.onDidChange(() => this.onDidChangeCodeLensesEmitter.fire());
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(snapshotScheme, this),
      vscode.languages.registerCodeLensProvider({ scheme: 'file' }, this),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      vscode.window.tabGroups.onDidChangeTabs(() => this.updateContext()),
      this.onDidChangeEmitter,
      this.onDidChangeCodeLensesEmitter,
      { dispose: () => sub.dispose() },
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    const parts = parseSnapshotUri(uri);
    const chat = parts !== undefined ? this.service.chatById(parts.chatId) : undefined;
    if (parts === undefined || chat === undefined || parts.side === 'gone') {
      return '';
    }
    return this.service.trackerFor(chat)?.baseText(parts.turnId, parts.path) ?? '';
  }

  /** Opens before the turn (or, without a turn, before the chat's first change to the file) ↔ now. */
  async open(chat: ChatSession, turnId: number | undefined, filePath: string, options: { preserveFocus?: boolean } = {}): Promise<void> {
    const tracker = this.service.trackerFor(chat);
    const turn = turnId ?? tracker?.firstTurnWith(filePath);
    if (tracker === undefined || turn === undefined) {
      return;
    }
    const left = snapshotUri({ chatId: chat.id, turnId: turn, path: filePath, side: 'before' });
    const exists = fs.existsSync(filePath);
    const right = exists ? vscode.Uri.file(filePath) : snapshotUri({ chatId: chat.id, turnId: turn, path: filePath, side: 'gone' });
    const created = tracker.file(turn, filePath)?.created === true;
    const title = created
      ? vscode.l10n.t('{0} (new in turn {1})', relativePath(filePath), turn)
      : exists
        ? vscode.l10n.t('{0} (before turn {1} ↔ now)', relativePath(filePath), turn)
        : vscode.l10n.t('{0} (before turn {1} ↔ deleted)', relativePath(filePath), turn);
    this.onDidChangeEmitter.fire(left);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true, preserveFocus: options.preserveFocus === true });
    this.updateContext();
  }

  provideCodeLenses(doc: vscode.TextDocument): vscode.CodeLens[] {
    if (doc.uri.scheme !== 'file') {
      return [];
    }
    const filePath = documentPath(doc.uri);
    const text = doc.getText();
    const lenses: vscode.CodeLens[] = [];
    for (const { chat, tracker } of this.service.chats) {
      for (const turn of tracker.turns()) {
        const f = turn.files.find((x) => x.path === filePath);
        if (f === undefined || f.pending === 0 || turn.running) {
          continue;
        }
        for (const h of tracker.analyze(turn.turnId, filePath, text)?.hunks ?? []) {
          if (h.status === 'reverted' || f.kept.has(h.hunk.key) || f.reverted.has(h.hunk.key)) {
            continue;
          }
          const line = Math.max(0, Math.min(h.currentStart, doc.lineCount - 1));
          const range = new vscode.Range(line, 0, line, 0);
          const args = [chat.id, turn.turnId, filePath, h.hunk.key];
          lenses.push(
            new vscode.CodeLens(range, { title: `$(discard) ${vscode.l10n.t('Revert this hunk')}`, command: ChangesCommandId.revertHunk, arguments: args }),
            new vscode.CodeLens(range, { title: `$(check) ${vscode.l10n.t('Keep')}`, command: ChangesCommandId.keepHunk, arguments: args }),
            new vscode.CodeLens(range, {
              title:
                vscode.l10n.t('{0}, turn {1}: {2}', chat.agentName, turn.turnId, countsLabel(hunkAdded(h.hunk), hunkRemoved(h.hunk))) +
                (h.status === 'modified' ? ` · ${vscode.l10n.t('edited since')}` : ''),
              command: ChangesCommandId.openChangeDiff,
              arguments: [chat.id, turn.turnId, filePath],
            }),
          );
        }
      }
    }
    return lenses;
  }

  /**
   * The pending hunk under the cursor of the active editor: on the file (right) side, located
   * in its current text; on the snapshot (left) side, by its lines before the turn. In a Changes
   * diff the diff's own turn is preferred.
   */
  hunkAtCursor(): HunkRef | undefined {
    const editor = vscode.window.activeTextEditor;
    if (editor === undefined) {
      return undefined;
    }
    const line = editor.selection.active.line;
    const doc = editor.document;
    const snap = parseSnapshotUri(doc.uri);
    if (snap !== undefined) {
      const chat = this.service.chatById(snap.chatId);
      const f = chat !== undefined ? this.service.trackerFor(chat)?.file(snap.turnId, snap.path) : undefined;
      const h = f?.hunks.find((x) => !f.reverted.has(x.key) && !f.kept.has(x.key) && containsBase(x, line));
      return chat !== undefined && h !== undefined ? { chat, turnId: snap.turnId, path: snap.path, key: h.key } : undefined;
    }
    if (doc.uri.scheme !== 'file') {
      return undefined;
    }
    const diff = this.activeDiff();
    const filePath = documentPath(doc.uri);
    const candidates = this.service.chats.flatMap(({ chat, tracker }) =>
      tracker
        .turns()
        .filter((t) => !t.running && t.files.some((f) => f.path === filePath))
        .map((t) => ({ chat, tracker, turnId: t.turnId })),
    );
    // The diff's own chat and turn first, then the latest turns.
    candidates.sort((a, b) => rank(b) - rank(a) || b.turnId - a.turnId);
    function rank(c: { chat: ChatSession; turnId: number }): number {
      return c.chat.id === diff?.chatId && c.turnId === diff.turnId ? 1 : 0;
    }
    const text = doc.getText();
    for (const c of candidates) {
      const f = c.tracker.file(c.turnId, filePath);
      for (const h of c.tracker.analyze(c.turnId, filePath, text)?.hunks ?? []) {
        if (h.status === 'reverted' || f?.kept.has(h.hunk.key) === true || f?.reverted.has(h.hunk.key) === true) {
          continue;
        }
        const inside = h.currentStart === h.currentEnd ? line === h.currentStart || line === h.currentStart - 1 : line >= h.currentStart && line < h.currentEnd;
        if (inside) {
          return { chat: c.chat, turnId: c.turnId, path: filePath, key: h.hunk.key };
        }
      }
    }
    return undefined;
  }

  /** The Changes diff shown in the active tab, if any. */
  activeDiff(): SnapshotUriParts | undefined {
    const input = vscode.window.tabGroups.activeTabGroup.activeTab?.input;
    return input instanceof vscode.TabInputTextDiff ? parseSnapshotUri(input.original) : undefined;
  }

  updateContext(): void {
    void vscode.commands.executeCommand('setContext', ChangesContextKey.diffActive, this.activeDiff() !== undefined);
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }
}

function containsBase(h: AgentHunk, line: number): boolean {
  return h.baseStart === h.baseEnd ? line === h.baseStart || line === h.baseStart - 1 : line >= h.baseStart && line < h.baseEnd;
}
