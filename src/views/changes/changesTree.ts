import * as path from 'node:path';
import * as vscode from 'vscode';
import type { FileChange, TurnChanges } from '../../changes/changeTracker';
import type { ChatSession } from '../../app/chatSession';
import { ChangesCommandId, changesViewId } from './changesIds';
import { relativePath, type ChangesService } from './changesService';
import { displayLabel } from '../../util/displayText';

/** A row of the Changes view. Commands receive these as their first argument. */
export type ChangesNode =
  | { readonly kind: 'chat'; readonly chat: ChatSession }
  | { readonly kind: 'note'; readonly chat: ChatSession }
  /** Every file the chat's turns changed, counts summed over its turns (shown from two turns on). */
  | { readonly kind: 'session'; readonly chat: ChatSession }
  | { readonly kind: 'turn'; readonly chat: ChatSession; readonly turnId: number }
  /** `turnId` undefined: the file across all turns (under the session row). */
  | { readonly kind: 'file'; readonly chat: ChatSession; readonly turnId: number | undefined; readonly path: string };

export function isChangesNode(x: unknown): x is ChangesNode {
  return typeof x === 'object' && x !== null && 'kind' in x && 'chat' in x && ['chat', 'note', 'session', 'turn', 'file'].includes(String((x as { kind: unknown }).kind));
}

/** "+3 −1" (U+2212 minus, as the diff editor and the tool cards show it). */
export function countsLabel(added: number, removed: number): string {
  return `+${added} \u2212${removed}`;
}

/**
 * The Changes view: per chat (a level only when several chats have changes), the note for the
 * next prompt, then turns (newest first) with the files each changed and their +/− counts of
 * pending (neither kept nor reverted) lines. A file opens its diff, before the turn ↔ now.
 */
export class ChangesTree implements vscode.TreeDataProvider<ChangesNode>, vscode.Disposable {
  private readonly onDidChangeTreeDataEmitter = new vscode.EventEmitter<ChangesNode | undefined>();
  readonly onDidChangeTreeData = this.onDidChangeTreeDataEmitter.event;
  readonly view: vscode.TreeView<ChangesNode>;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(private readonly service: ChangesService) {
    this.view = vscode.window.createTreeView(changesViewId, { treeDataProvider: this, showCollapseAll: true });
    const sub = service.onDidChange(() => this.refresh());
    this.disposables.push(this.view, this.onDidChangeTreeDataEmitter, { dispose: () => sub.dispose() });
    this.refresh();
  }

  refresh(): void {
    const pending = this.service.chats.reduce((n, c) => n + c.tracker.turns().reduce((m, t) => m + t.files.filter((f) => f.pending > 0).length, 0), 0);
    // What the user can act on, not how the snapshots are stored (issue 38).
    this.view.description = pending > 0 ? vscode.l10n.t('{0} to review', pending) : '';
    this.view.badge = pending > 0 ? { value: pending, tooltip: vscode.l10n.t('{0} changed files to review', pending) } : undefined;
    this.onDidChangeTreeDataEmitter.fire(undefined);
  }

  getChildren(node?: ChangesNode): ChangesNode[] {
    if (node === undefined) {
      const chats = this.service.chats.filter((c) => c.tracker.turns().length > 0 || c.tracker.note.length > 0);
      const only = chats.length === 1 ? chats[0] : undefined;
      return only !== undefined ? this.chatChildren(only.chat) : chats.map((c) => ({ kind: 'chat', chat: c.chat }));
    }
    switch (node.kind) {
      case 'chat':
        return this.chatChildren(node.chat);
      case 'turn':
        return (this.turn(node.chat, node.turnId)?.files ?? [])
          .filter((f) => f.pending > 0)
          .map((f) => ({ kind: 'file', chat: node.chat, turnId: node.turnId, path: f.path }));
      case 'session':
        return sessionFiles(this.service.trackerFor(node.chat)?.turns() ?? []).map((f) => ({ kind: 'file', chat: node.chat, turnId: undefined, path: f.path }));
      case 'note':
      case 'file':
        return [];
    }
  }

  getTreeItem(node: ChangesNode): vscode.TreeItem | Thenable<vscode.TreeItem> {
    switch (node.kind) {
      case 'chat': {
        const closed = this.service.chats.find((c) => c.chat === node.chat)?.closed === true;
        const item = new vscode.TreeItem(displayLabel(node.chat.controller.state.title ?? node.chat.agentName), vscode.TreeItemCollapsibleState.Expanded);
        item.id = node.chat.id;
        const where = node.chat.worktree !== undefined ? ` · ${node.chat.worktree.branch}` : '';
        item.description = closed ? vscode.l10n.t('closed chat') : `${node.chat.agentName}${where}`;
        item.contextValue = 'chat';
        item.iconPath = new vscode.ThemeIcon('comment-discussion');
        return item;
      }
      case 'note': {
        const text = this.service.noteText(node.chat);
        const count = this.service.trackerFor(node.chat)?.note.length ?? 0;
        const item = new vscode.TreeItem(vscode.l10n.t('Note for the next prompt'), vscode.TreeItemCollapsibleState.None);
        item.id = `${node.chat.id}/note`;
        item.description = vscode.l10n.t('{0} reverted — sent with your next message', count);
        item.tooltip = new vscode.MarkdownString().appendCodeblock(text, 'text');
        item.iconPath = new vscode.ThemeIcon('note');
        item.contextValue = 'note';
        return item;
      }
      case 'session': {
        const files = sessionFiles(this.service.trackerFor(node.chat)?.turns() ?? []);
        const item = new vscode.TreeItem(vscode.l10n.t('This session (all turns)'), vscode.TreeItemCollapsibleState.Collapsed);
        item.id = `${node.chat.id}/session`;
        item.description =
          files.length > 0
            ? `${countsLabel(
                files.reduce((n, f) => n + f.added, 0),
                files.reduce((n, f) => n + f.removed, 0),
              )} · ${files.length === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', files.length)}`
            : vscode.l10n.t('all kept or reverted');
        item.tooltip = vscode.l10n.t('Every file this chat’s agent changed; a file opens before its first change in this session ↔ now.');
        item.iconPath = new vscode.ThemeIcon('files');
        item.contextValue = 'session';
        return item;
      }
      case 'turn':
        return this.turnItem(node);
      case 'file':
        return node.turnId === undefined ? this.sessionFileItem(node.chat, node.path) : this.fileItem({ ...node, turnId: node.turnId });
    }
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  private chatChildren(chat: ChatSession): ChangesNode[] {
    const tracker = this.service.trackerFor(chat);
    if (tracker === undefined) {
      return [];
    }
    const out: ChangesNode[] = [];
    if (tracker.note.length > 0) {
      out.push({ kind: 'note', chat });
    }
    if (tracker.turns().length > 1) {
      out.push({ kind: 'session', chat });
    }
    for (const t of [...tracker.turns()].reverse()) {
      out.push({ kind: 'turn', chat, turnId: t.turnId });
    }
    return out;
  }

  private turn(chat: ChatSession, turnId: number): TurnChanges | undefined {
    return this.service.trackerFor(chat)?.turns().find((t) => t.turnId === turnId);
  }

  private turnItem(node: { readonly chat: ChatSession; readonly turnId: number }): vscode.TreeItem {
    const turn = this.turn(node.chat, node.turnId);
    const tracker = this.service.trackerFor(node.chat);
    const files = turn?.files.filter((f) => f.pending > 0) ?? [];
    const label = turn?.label !== undefined && turn.label !== '' ? vscode.l10n.t('Turn {0}: {1}', node.turnId, displayLabel(turn.label)) : vscode.l10n.t('Turn {0}', node.turnId);
    // Expanded from the first render (while running it has no files yet): VS Code keeps the
    // state it first saw for an id, and a turn's files are what the view is for.
    const item = new vscode.TreeItem(label, vscode.TreeItemCollapsibleState.Expanded);
    item.id = `${node.chat.id}/turn-${node.turnId}`;
    const added = files.reduce((n, f) => n + f.added, 0);
    const removed = files.reduce((n, f) => n + f.removed, 0);
    const parts: string[] = [];
    if (turn?.running === true) {
      parts.push(vscode.l10n.t('running…'));
    }
    if (files.length > 0) {
      parts.push(countsLabel(added, removed), files.length === 1 ? vscode.l10n.t('1 file') : vscode.l10n.t('{0} files', files.length));
    } else if (turn?.running !== true) {
      parts.push(vscode.l10n.t('all kept or reverted'));
    }
    if ((tracker?.queued ?? 0) > 0 && turn?.running === true) {
      parts.push(vscode.l10n.t('{0} queued until the turn ends', tracker?.queued ?? 0));
    }
    item.description = parts.join(' · ');
    // The prompt is the user's (or a forked transcript's): text, not Markdown.
    item.tooltip = new vscode.MarkdownString()
      .appendText(vscode.l10n.t('Turn {0} of {1}: {2}', node.turnId, node.chat.agentName, turn?.label ?? ''))
      .appendMarkdown('\n\n' + vscode.l10n.t('**Restore to before this turn** puts every file this turn (or a later one) touched back as it was before it; created files are deleted.'));
    item.iconPath = new vscode.ThemeIcon(turn?.running === true ? 'loading~spin' : 'history');
    item.contextValue = turn?.running === true ? 'turnRunning' : 'turn';
    return item;
  }

  private sessionFileItem(chat: ChatSession, filePath: string): vscode.TreeItem {
    const f = sessionFiles(this.service.trackerFor(chat)?.turns() ?? []).find((x) => x.path === filePath);
    const item = new vscode.TreeItem(vscode.Uri.file(filePath), vscode.TreeItemCollapsibleState.None);
    item.id = `${chat.id}/session/${filePath}`;
    // Paths come from the agent: invisible characters (bidi, zero-width) are shown as ⟨U+XXXX⟩.
    item.label = displayLabel(path.basename(filePath), 500);
    const dir = path.dirname(relativePath(filePath));
    item.description = [countsLabel(f?.added ?? 0, f?.removed ?? 0), ...(f?.created === true ? [vscode.l10n.t('new file')] : []), ...(dir !== '.' ? [displayLabel(dir, 500)] : [])].join(' · ');
    item.tooltip = vscode.l10n.t('{0}: all of this session’s turns', displayLabel(relativePath(filePath), 1000));
    item.contextValue = 'file';
    item.command = { command: ChangesCommandId.openChangeDiff, title: vscode.l10n.t('Open Changes'), arguments: [{ kind: 'file', chat, turnId: undefined, path: filePath } satisfies ChangesNode] };
    return item;
  }

  private async fileItem(node: { readonly chat: ChatSession; readonly turnId: number; readonly path: string }): Promise<vscode.TreeItem> {
    const tracker = this.service.trackerFor(node.chat);
    const f: FileChange | undefined = tracker?.file(node.turnId, node.path);
    const uri = vscode.Uri.file(node.path);
    const item = new vscode.TreeItem(uri, vscode.TreeItemCollapsibleState.None);
    item.id = `${node.chat.id}/turn-${node.turnId}/${node.path}`;
    item.label = displayLabel(path.basename(node.path), 500);
    const flags: string[] = [];
    if (f !== undefined) {
      flags.push(countsLabel(f.added, f.removed));
      if (f.created) {
        flags.push(vscode.l10n.t('new file'));
      }
      if (f.deleted) {
        flags.push(vscode.l10n.t('deleted'));
      }
      if (f.untracked !== undefined) {
        flags.push(f.untracked === 'tooLarge' ? vscode.l10n.t('too large to revert') : f.untracked === 'binary' ? vscode.l10n.t('binary, cannot revert') : vscode.l10n.t('over the snapshot limit'));
      } else if (tracker !== undefined && !f.deleted && tracker.runningTurnId === undefined) {
        // Not while a turn runs: the files are still changing and the view refreshes constantly.
        if (await this.service.editedSince(node.chat, node.turnId, node.path)) {
          flags.push(vscode.l10n.t('edited since'));
        }
      }
    }
    const dir = path.dirname(relativePath(node.path));
    if (dir !== '.') {
      flags.push(displayLabel(dir, 500));
    }
    item.description = flags.join(' · ');
    const how = f?.sources.map((s) => sourceLabel(s)).join(', ') ?? '';
    item.tooltip = new vscode.MarkdownString().appendText(displayLabel(relativePath(node.path), 1000)).appendMarkdown(
      '\n\n' +
        vscode.l10n.t('Turn {0}; seen through {1}.', node.turnId, how) +
        (f?.uncertain === true ? '\n\n' + vscode.l10n.t('The file matched neither side of the agent’s diff when it was first seen; the snapshot is what was on disk then.') : ''),
    );
    item.contextValue = f?.untracked !== undefined ? 'fileUntracked' : 'file';
    item.command = { command: ChangesCommandId.openChangeDiff, title: vscode.l10n.t('Open Changes'), arguments: [node] };
    return item;
  }
}

/** Files with pending changes across turns, counts summed, in the order first changed. */
function sessionFiles(turns: readonly TurnChanges[]): { path: string; added: number; removed: number; created: boolean }[] {
  const byPath = new Map<string, { path: string; added: number; removed: number; created: boolean }>();
  for (const t of turns) {
    for (const f of t.files) {
      const prev = byPath.get(f.path);
      byPath.set(f.path, {
        path: f.path,
        added: (prev?.added ?? 0) + f.added,
        removed: (prev?.removed ?? 0) + f.removed,
        created: prev?.created ?? f.created,
      });
    }
  }
  const pending = new Set(turns.flatMap((t) => t.files.filter((f) => f.pending > 0).map((f) => f.path)));
  return [...byPath.values()].filter((f) => pending.has(f.path));
}

function sourceLabel(s: string): string {
  switch (s) {
    case 'write':
      return vscode.l10n.t('fs/write_text_file');
    case 'permission':
      return vscode.l10n.t('a permission diff');
    case 'toolDiff':
      return vscode.l10n.t('a tool diff');
    default:
      return vscode.l10n.t('a tool location');
  }
}
