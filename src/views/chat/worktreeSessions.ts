import * as vscode from 'vscode';
import type { ChatSession } from '../../app/chatSession';
import { describeError } from '../../agentPort/agentErrors';
import { displayLabel, notificationLabel } from '../../util/displayText';
import { Worktrees, type WorktreeStatus } from '../../worktree/worktrees';
import type { WorktreeRecord } from '../../worktree/worktreeRecords';
import type { WorktreeLabel } from '../../app/chatSessionOptions';
import type { AgentDefinition } from '../../host/agentHost';
import type { ChatManager } from './chatManager';
import { WorktreeReview } from './worktreeReview';

/** A session's state as the worktree list shows it. */
export type WorktreeSessionState = 'working' | 'waiting for you' | 'done' | 'failed' | 'not open' | 'no session';

export function sessionState(chat: ChatSession | undefined, record?: WorktreeRecord): WorktreeSessionState {
  if (chat === undefined) {
    // Its session is on the agent (a reload, another window): it can be opened again.
    return record?.sessionId !== undefined ? 'not open' : 'no session';
  }
  const s = chat.controller.state;
  if (s.phase === 'exited') {
    return 'failed';
  }
  if (s.phase === 'running' || s.phase === 'cancelling' || s.phase === 'starting') {
    return s.entries.some((e) => e.kind === 'tool' && e.permission?.status === 'pending') ? 'waiting for you' : 'working';
  }
  return 'done';
}

interface WorktreePick extends vscode.QuickPickItem {
  readonly status: WorktreeStatus;
}

/**
 * The chat's worktree sessions (issue 40): "New Session in Worktree…" makes a worktree of the
 * workspace's repository (`src/worktree`) and opens a chat whose session cwd — and so its permission
 * workspace — is the worktree; "Worktree Sessions…" lists the recorded worktrees (branch, folder,
 * state, changed files, stale ones marked) with Review changes (the branch against its base in
 * diff editors), Open its session (after a reload), Apply to my checkout, Keep the branch, Discard.
 */
export class WorktreeSessions implements vscode.Disposable {
  /** Which chat works in which worktree (by worktree name), this window. */
  private readonly chats = new Map<string, ChatSession>();
  private readonly review: WorktreeReview;

  constructor(
    private readonly manager: ChatManager,
    private readonly openPanel: (chat: ChatSession) => void,
    /** A configured agent by its id (a recorded session's agent, to open it again). */
    private readonly agentById: (id: string) => AgentDefinition | undefined,
    private readonly worktrees = new Worktrees(),
  ) {
    this.review = new WorktreeReview(worktrees);
  }

  dispose(): void {
    this.review.dispose();
  }

  async newSession(): Promise<ChatSession | undefined> {
    const root = this.manager.workspaceRoot;
    try {
      await this.worktrees.repository(root);
      let carry = false;
      if (await this.worktrees.hasUncommittedChanges(root)) {
        const pick = await vscode.window.showQuickPick(
          [
            { label: vscode.l10n.t('Start from HEAD'), detail: vscode.l10n.t('Your uncommitted changes stay only in your checkout.'), carry: false },
            { label: vscode.l10n.t('Carry my uncommitted changes'), detail: vscode.l10n.t('Copied into the worktree; your checkout keeps them too.'), carry: true },
          ],
          { title: vscode.l10n.t('Your checkout has uncommitted changes') },
        );
        if (pick === undefined) {
          return undefined;
        }
        carry = pick.carry;
      }
      const made = await this.worktrees.create({ cwd: root, carryChanges: carry, createdBy: 'chat' });
      made.included.skipped.forEach((s) => void vscode.window.showWarningMessage(vscode.l10n.t('.worktreeinclude: skipped {0}', s)));
      const chat = this.manager.createChat(undefined, made.cwd, labelOf(made.record));
      this.bind(made.record, chat);
      this.openPanel(chat);
      return chat;
    } catch (e) {
      void vscode.window.showErrorMessage(vscode.l10n.t('Could not start a session in a worktree: {0}', notificationLabel(describeError(e), 500)));
      return undefined;
    }
  }

  /** The recorded worktrees of the workspace's repository, with an action for the one picked. */
  async manage(): Promise<void> {
    const root = this.manager.workspaceRoot;
    let list: WorktreeStatus[];
    try {
      list = (await this.worktrees.list(root)).worktrees;
    } catch (e) {
      void vscode.window.showErrorMessage(notificationLabel(describeError(e), 500));
      return;
    }
    if (list.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('No worktree sessions in this repository.'));
      return;
    }
    const picked = await vscode.window.showQuickPick<WorktreePick>(
      list.map((status) => {
        const chat = this.chatOf(status.record);
        const state = sessionState(chat, status.record);
        const stale = status.missing || (chat === undefined && status.changes.length === 0 && status.commits === 0);
        return {
          label: status.record.branch,
          description: vscode.l10n.t('{0} · {1} changed file(s){2}', state, status.changes.length, stale ? vscode.l10n.t(' · stale') : ''),
          detail: status.missing ? vscode.l10n.t('{0} (folder gone)', status.record.path) : status.record.path,
          status,
        };
      }),
      { title: vscode.l10n.t('Worktree Sessions') },
    );
    if (picked === undefined) {
      return;
    }
    const review = vscode.l10n.t('Review changes');
    const reopen = vscode.l10n.t('Open its session');
    const apply = vscode.l10n.t('Apply to my checkout');
    const keep = vscode.l10n.t('Keep the branch');
    const discard = vscode.l10n.t('Discard');
    const { record } = picked.status;
    const canReopen = this.chatOf(record) === undefined && record.sessionId !== undefined && !picked.status.missing;
    const action = await vscode.window.showQuickPick([review, ...(canReopen ? [reopen] : []), apply, keep, discard], { title: record.branch });
    try {
      if (action === review) {
        await this.review.open(picked.status);
      } else if (action === reopen) {
        await this.reopen(record);
      } else if (action === apply) {
        await this.apply(picked.status.record);
      } else if (action === keep) {
        await this.keep(picked.status.record);
      } else if (action === discard) {
        await this.discard(picked.status.record);
      }
    } catch (e) {
      void vscode.window.showErrorMessage(notificationLabel(describeError(e), 500));
    }
  }

  private async apply(record: WorktreeRecord): Promise<void> {
    const r = await this.worktrees.apply(record);
    if (r.conflicts.length === 0) {
      void vscode.window.showInformationMessage(vscode.l10n.t('{0} file(s) applied to your checkout from {1}.', r.applied.length, record.branch));
      return;
    }
    const list = r.conflicts.map((c) => `${c.path} (${c.kind})`).join(', ');
    void vscode.window.showWarningMessage(vscode.l10n.t('{0} file(s) applied; conflicts in {1}. Your previous versions are in {2}.', r.applied.length, list, r.backup));
    const first = r.conflicts.find((c) => c.kind === 'text');
    if (first !== undefined) {
      // The index holds the three stages: VS Code's git extension opens its merge editor on the file.
      const uri = vscode.Uri.file(`${record.repoRoot}/${first.path}`);
      await vscode.commands.executeCommand('git.openMergeEditor', uri).then(undefined, () => vscode.window.showTextDocument(uri));
    }
  }

  private async keep(record: WorktreeRecord): Promise<void> {
    const message = await vscode.window.showInputBox({ title: vscode.l10n.t('Commit message for {0}', record.branch), value: vscode.l10n.t('Work from a Hermes session'), validateInput: (v) => (v.trim() === '' ? vscode.l10n.t('A commit message is needed.') : undefined) });
    if (message === undefined) {
      return;
    }
    const sha = await this.worktrees.keep(record, message);
    void vscode.window.showInformationMessage(vscode.l10n.t('Committed {0} on {1}.', sha.slice(0, 12), record.branch));
  }

  private async discard(record: WorktreeRecord): Promise<void> {
    const lost = await this.worktrees.whatDiscardLoses(record);
    const files = lost.changes.map((c) => c.path);
    const detail = [
      vscode.l10n.t('The worktree {0} and the branch {1} are removed.', record.path, record.branch),
      files.length > 0 ? vscode.l10n.t('Lost: {0}', files.slice(0, 20).join(', ') + (files.length > 20 ? ` (+${files.length - 20})` : '')) : vscode.l10n.t('Nothing changed in it.'),
      lost.commits > 0 ? vscode.l10n.t('{0} commit(s) on the branch are lost too.', lost.commits) : '',
    ].filter((l) => l !== '').join('\n');
    const yes = vscode.l10n.t('Discard');
    if ((await vscode.window.showWarningMessage(vscode.l10n.t('Discard {0}?', record.branch), { modal: true, detail }, yes)) !== yes) {
      return;
    }
    const chat = this.chats.get(record.name);
    if (chat !== undefined) {
      await this.manager.closeChat(chat);
      this.chats.delete(record.name);
    }
    await this.worktrees.discard(record);
  }

  /** The chat of this window working in the worktree, if it is still open. */
  private chatOf(record: WorktreeRecord): ChatSession | undefined {
    const chat = this.chats.get(record.name);
    return chat !== undefined && this.manager.allChats.includes(chat) ? chat : undefined;
  }

  /** The recorded session again (after a reload), in a chat bounded by the worktree. */
  private async reopen(record: WorktreeRecord): Promise<void> {
    const def = record.agent !== undefined ? this.agentById(record.agent) : undefined;
    if (def === undefined || record.sessionId === undefined) {
      void vscode.window.showWarningMessage(vscode.l10n.t('The agent of {0} ({1}) is not configured any more.', record.branch, record.agent ?? '?'));
      return;
    }
    const chat = this.manager.createChat(def, record.path, labelOf(record));
    this.bind(record, chat);
    // Opened before the panel shows it: a panel starts a new session in a chat nothing started.
    const opened = chat.open(record.sessionId);
    this.openPanel(chat);
    await opened;
  }

  /** The chat works in the worktree: its session id goes into the record once the agent gave one. */
  private bind(record: WorktreeRecord, chat: ChatSession): void {
    this.chats.set(record.name, chat);
    let current = record;
    const sub = chat.onDidChange(() => {
      const id = chat.sessionId;
      if (id !== undefined && current.sessionId !== id) {
        current = { ...current, sessionId: id };
        void this.worktrees.updateRecord(record, { sessionId: id, agent: chat.host.definition.id }).then((r) => (current = r), () => undefined);
        sub.dispose();
      }
    });
  }
}

/** What a worktree chat shows of its worktree (header, tab, Changes view): the branch on one line, invisible characters visible. */
function labelOf(record: WorktreeRecord): WorktreeLabel {
  return { branch: displayLabel(record.branch, 80), path: record.path };
}
