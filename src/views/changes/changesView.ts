import * as vscode from 'vscode';
import type { ChatSession } from '../../app/chatSession';
import { ChangesDiff, type HunkRef } from './changesDiff';
import { ChangesCommandId, type ChangesCommandIdValue } from './changesIds';
import { ChangesService, documentPath, relativePath, type ChangeOpResult, type ChangesServiceOptions } from './changesService';
import { ChangesTree, isChangesNode } from './changesTree';
import { displayLabel, notificationLabel } from '../../util/displayText';
import type { RegisterCommand } from '../commandRegistry';

/**
 * The Changes feature as the extension registers it: the service (tracking and reverting), the
 * tree view, the diff/CodeLens side, and the commands. One object for `activate` to own.
 */
export class ChangesFeature implements vscode.Disposable {
  readonly service: ChangesService;
  readonly tree: ChangesTree;
  readonly diff: ChangesDiff;
  private readonly disposables: vscode.Disposable[] = [];

  constructor(options: ChangesServiceOptions, register: RegisterCommand) {
    this.service = new ChangesService(options);
    this.tree = new ChangesTree(this.service);
    this.diff = new ChangesDiff(this.service);
    const handlers: Record<ChangesCommandIdValue, (...args: unknown[]) => unknown> = {
      [ChangesCommandId.openChangeDiff]: (a, b, c) => this.openDiff(a, b, c),
      [ChangesCommandId.revertHunk]: (a, b, c, d) => this.onHunk(a, b, c, d, 'revert'),
      [ChangesCommandId.keepHunk]: (a, b, c, d) => this.onHunk(a, b, c, d, 'keep'),
      [ChangesCommandId.revertFileChanges]: (a, b, c) => this.onFile(a, b, c, 'revert'),
      [ChangesCommandId.keepFileChanges]: (a, b, c) => this.onFile(a, b, c, 'keep'),
      [ChangesCommandId.revertTurn]: (a, b) => this.onTurn(a, b, 'revert'),
      [ChangesCommandId.restoreTurn]: (a, b) => this.onTurn(a, b, 'restore'),
      [ChangesCommandId.rewindTurn]: (a, b) => this.onTurn(a, b, 'rewind'),
      [ChangesCommandId.keepTurn]: (a, b) => this.onTurn(a, b, 'keep'),
      [ChangesCommandId.keepAllChanges]: () => this.service.keepAll(),
      [ChangesCommandId.removeRevertNote]: (a) => {
        const chat = this.chatArg(a) ?? this.onlyChatWithNote();
        if (chat !== undefined) {
          this.service.removeNote(chat);
        }
      },
      [ChangesCommandId.clearChanges]: (a) => this.clear(a),
    };
    this.disposables.push(...Object.entries(handlers).map(([id, fn]) => register(id, fn)), this.diff, this.tree, this.service);
  }

  dispose(): void {
    for (const d of this.disposables.reverse()) {
      d.dispose();
    }
  }

  /** A file's diff: from a tree row, from (chatId, turnId, path), or for the file in the active editor. */
  private async openDiff(a: unknown, b: unknown, c: unknown): Promise<void> {
    if (isChangesNode(a) && a.kind === 'file') {
      return this.diff.open(a.chat, a.turnId, a.path);
    }
    const chat = this.chatArg(a);
    if (chat !== undefined && typeof c === 'string') {
      return this.diff.open(chat, typeof b === 'number' ? b : undefined, c);
    }
    const file = vscode.window.activeTextEditor?.document.uri;
    const owner = file !== undefined ? this.service.chats.find((x) => x.tracker.firstTurnWith(documentPath(file)) !== undefined) : undefined;
    if (file !== undefined && owner !== undefined) {
      return this.diff.open(owner.chat, undefined, documentPath(file));
    }
  }

  private async onHunk(a: unknown, b: unknown, c: unknown, d: unknown, action: 'revert' | 'keep'): Promise<void> {
    const chat = this.chatArg(a);
    const ref: HunkRef | undefined =
      chat !== undefined && typeof b === 'number' && typeof c === 'string' && typeof d === 'string' ? { chat, turnId: b, path: c, key: d } : this.diff.hunkAtCursor();
    if (ref === undefined) {
      void vscode.window.showInformationMessage(vscode.l10n.t('Put the cursor on one of the agent’s changes first.'));
      return;
    }
    if (action === 'keep') {
      this.service.keep(ref.chat, { turnId: ref.turnId, path: ref.path, keys: [ref.key] });
      return;
    }
    report(await this.service.revertHunks(ref.chat, ref.turnId, ref.path, [ref.key], 'ask'), ref.chat);
  }

  /** A file: a tree row, (chatId, turnId, path), or the diff editor title (its file URI; the diff's turn). */
  private async onFile(a: unknown, b: unknown, c: unknown, action: 'revert' | 'keep'): Promise<void> {
    let target: { chat: ChatSession; turnId: number | undefined; path: string } | undefined;
    if (isChangesNode(a) && a.kind === 'file') {
      target = { chat: a.chat, turnId: a.turnId, path: a.path };
    } else if (this.chatArg(a) !== undefined && typeof c === 'string') {
      const chat = this.chatArg(a);
      target = chat !== undefined ? { chat, turnId: typeof b === 'number' ? b : undefined, path: c } : undefined;
    } else {
      const diff = this.diff.activeDiff();
      const uri = a instanceof vscode.Uri ? a : vscode.window.activeTextEditor?.document.uri;
      const filePath = diff?.path ?? (uri?.scheme === 'file' ? documentPath(uri) : undefined);
      const chat = diff !== undefined ? this.service.chatById(diff.chatId) : this.service.chats.find((x) => filePath !== undefined && x.tracker.firstTurnWith(filePath) !== undefined)?.chat;
      target = chat !== undefined && filePath !== undefined ? { chat, turnId: diff?.turnId, path: filePath } : undefined;
    }
    if (target === undefined) {
      return;
    }
    if (action === 'keep') {
      this.service.keep(target.chat, { ...(target.turnId !== undefined ? { turnId: target.turnId } : {}), path: target.path });
      return;
    }
    report(await this.service.revertFile(target.chat, target.turnId, target.path, 'ask'), target.chat);
  }

  /** A turn: a tree row, (chatId, turnId) — the chat footer's "Restore to before this turn" — or picked from a list. */
  private async onTurn(a: unknown, b: unknown, action: 'revert' | 'restore' | 'rewind' | 'keep'): Promise<void> {
    let chat: ChatSession | undefined;
    let turnId: number | undefined;
    if (isChangesNode(a) && a.kind === 'turn') {
      chat = a.chat;
      turnId = a.turnId;
    } else {
      chat = this.chatArg(a);
      turnId = typeof b === 'number' ? b : typeof b === 'string' && /^\d+$/.test(b) ? Number(b) : undefined;
    }
    if (chat === undefined || turnId === undefined) {
      const picked = await this.pickTurn(action);
      if (picked === undefined) {
        return;
      }
      ({ chat, turnId } = picked);
    }
    switch (action) {
      case 'keep':
        this.service.keep(chat, { turnId });
        return;
      case 'revert':
        report(await this.service.revertTurn(chat, turnId, 'ask'), chat);
        return;
      case 'restore': {
        const r = await this.service.restoreTurn(chat, turnId, 'ask');
        report(r, chat);
        if (!r.cancelled && r.changedFiles.length === 0 && r.conflicts === 0) {
          void vscode.window.showInformationMessage(vscode.l10n.t('Nothing to restore: the files are already as they were before turn {0}.', turnId));
        }
        return;
      }
      case 'rewind':
        report(await this.service.rewindTurn(chat, turnId), chat);
        return;
    }
  }

  private async pickTurn(action: string): Promise<{ chat: ChatSession; turnId: number } | undefined> {
    const items = this.service.chats.flatMap(({ chat, tracker }) =>
      [...tracker.turns()].reverse().map((t) => ({
        label: vscode.l10n.t('Turn {0}: {1}', t.turnId, displayLabel(t.label)),
        description: chat.agentName,
        detail: t.files.map((f) => displayLabel(relativePath(f.path), 500)).join(', '),
        chat,
        turnId: t.turnId,
      })),
    );
    if (items.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No agent changes to act on.'));
      return undefined;
    }
    const title =
      action === 'restore' || action === 'rewind' ? vscode.l10n.t('Restore files to before which turn?') : action === 'keep' ? vscode.l10n.t('Keep which turn?') : vscode.l10n.t('Revert which turn?');
    return vscode.window.showQuickPick(items, { title });
  }

  private async clear(a: unknown): Promise<void> {
    const chat = this.chatArg(a);
    const yes = vscode.l10n.t('Forget Changes');
    const answer = await vscode.window.showWarningMessage(
      vscode.l10n.t('Forget the recorded agent changes? Their snapshots are freed; nothing in the files changes, but they can no longer be reverted or restored.'),
      { modal: true },
      yes,
    );
    if (answer === yes) {
      this.service.clear(chat);
    }
  }

  private chatArg(a: unknown): ChatSession | undefined {
    if (isChangesNode(a)) {
      return a.chat;
    }
    return typeof a === 'string' ? this.service.chatById(a) : undefined;
  }

  private onlyChatWithNote(): ChatSession | undefined {
    const withNote = this.service.chats.filter((c) => c.tracker.note.length > 0);
    return withNote.length === 1 ? withNote[0]?.chat : undefined;
  }
}

function report(r: ChangeOpResult, chat: ChatSession): void {
  if (r.cancelled) {
    return;
  }
  if (r.missing > 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('{0} rewrote that change before the turn ended; there was nothing left to revert.', chat.agentName));
  } else if (r.conflicts > 0 && r.changedFiles.length === 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('The edited regions were left as they are; nothing else needed reverting.'));
  } else if (r.queued && r.changedFiles.length > 0) {
    void vscode.window.showInformationMessage(vscode.l10n.t('Reverted after the turn ended: {0}', r.changedFiles.map((f) => notificationLabel(relativePath(f), 500)).join(', ')));
  }
}
