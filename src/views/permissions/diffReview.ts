import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import { ClientRequestError, RpcCode } from '../../agentPort/agentErrors';
import type { ChatSession } from '../../app/chatSession';
import { ReviewLedger } from '../../permissions/reviewLedger';
import { pickOption } from '../../permissions/rules';
import { ContextKey } from '../commandIds';
import { closeProposalTabs } from './proposalTabs';

/** Read-only virtual documents holding what the agent proposes. */
export const proposalScheme = 'hermes-proposal';

/** What Allow/Reject in the diff editor's title answer. */
export type ReviewTarget =
  | { readonly kind: 'permission'; readonly chat: ChatSession; readonly requestId: string }
  /** A `fs/write_text_file` waiting in {@link DiffReviewer.ledger}. */
  | { readonly kind: 'write'; readonly id: number };

export interface ShowOptions {
  readonly agentName: string;
  readonly target?: ReviewTarget;
  /** Open without taking focus (the "background" setting). */
  readonly preserveFocus: boolean;
}

/** A proposal on screen that waits for an answer; its tab closes when the answer (or the end) comes. */
interface OpenProposal {
  readonly target: ReviewTarget;
  /** The documents this proposal's tab shows (the key is the one its tab is found by). */
  readonly documents: readonly string[];
}

/**
 * Shows proposed edits in VS Code's own diff editor: left the current text (the open document,
 * unsaved edits included), right the proposal as a read-only virtual document. Snippet and hunk
 * diffs are shown in the context of the file when they can be located in it. Allow / Reject in
 * the editor title answer the pending permission (or write) the diff belongs to; closing the tab
 * answers nothing. A proposal's tab closes once it is answered or ends (cancel, timeout, session
 * end): no rejected or stale change stays on screen. Both of its sides are read-only (the virtual
 * proposal, and the file in the diff editor's original pane), so closing it never loses an edit.
 */
export class DiffReviewer implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly targets = new Map<string, ReviewTarget>();
  private readonly proposals = new Map<string, OpenProposal>();
  private readonly disposables: vscode.Disposable[] = [];
  private counter = 0;
  private readonly onDidChangeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.onDidChangeEmitter.event;
  /** Writes waiting for review (`hermes.review.writes: review`). */
  readonly ledger = new ReviewLedger();

  constructor() {
    const settled = this.ledger.onDidSettle(() => this.closeSettled());
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(proposalScheme, this),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      this.onDidChangeEmitter,
      { dispose: () => settled.dispose() },
    );
  }

  provideTextDocumentContent(uri: vscode.Uri): string {
    return this.contents.get(uri.toString()) ?? '';
  }

  /** Opens the diff for one `diff` content item (a permission's or a tool call's). */
  async show(diff: acp.Diff, options: ShowOptions): Promise<void> {
    const id = ++this.counter;
    const label = vscode.workspace.asRelativePath(diff.path, false);
    const title = vscode.l10n.t('{0} (proposed by {1})', label, options.agentName);
    if (isMultiFilePatch(diff)) {
      // Hermes V4A patches name several files in one diff: show the raw patch, not a wrong diff.
      const patchUri = this.virtual(`patch-${id}.diff`, diff.newText, id);
      this.track(patchUri, [patchUri], options.target);
      await vscode.window.showTextDocument(patchUri, { preview: true, preserveFocus: options.preserveFocus });
      this.closeSettled();
      return;
    }
    const name = path.basename(diff.path);
    const right = this.virtual(name, '', id, 'proposed');
    let left: vscode.Uri;
    const current = await currentText(diff.path);
    const oldText = diff.oldText ?? '';
    if (oldText === '') {
      left = this.virtual(name, current ?? '', id, current === undefined ? 'new file' : 'current');
      this.contents.set(right.toString(), diff.newText);
    } else if (current !== undefined && (current === oldText || current.replace(/\r\n/g, '\n') === oldText.replace(/\r\n/g, '\n'))) {
      left = vscode.Uri.file(diff.path);
      this.contents.set(right.toString(), diff.newText);
    } else if (current !== undefined && countOccurrences(current, oldText) === 1) {
      // A snippet or hunk (Claude, opencode): show it in the context of the whole file.
      left = vscode.Uri.file(diff.path);
      this.contents.set(right.toString(), current.replace(oldText, () => diff.newText));
    } else {
      // Cannot be located in the file: show the snippet itself, labelled as such.
      left = this.virtual(name, oldText, id, 'snippet');
      this.contents.set(right.toString(), diff.newText);
    }
    this.track(right, left.scheme === proposalScheme ? [right, left] : [right], options.target);
    this.onDidChangeEmitter.fire(right);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true, preserveFocus: options.preserveFocus });
    // The answer may have come while the editor opened: updateContext also closes settled proposals.
    this.updateContext();
  }

  /**
   * `hermes.review.writes: review`: shows the write and waits for Allow/Reject. Resolves true on
   * Allow, false on Reject; a write that ended unanswered (cancel, close, exit, restart,
   * deactivate) is refused with an error that says why.
   */
  async reviewWrite(params: acp.WriteTextFileRequest, before: string | undefined, agentName: string): Promise<boolean> {
    const { id, outcome } = this.ledger.begin(params.sessionId, params.path);
    void this.show({ path: params.path, oldText: before ?? null, newText: params.content }, { agentName, preserveFocus: false, target: { kind: 'write', id } });
    const o = await outcome;
    if (o.kind === 'ended') {
      throw new ClientRequestError(RpcCode.internalError, `The edit to ${params.path} was not applied: ${o.reason}. The file was not changed.`, {
        path: params.path,
        rejected: true,
      });
    }
    return o.kind === 'accepted';
  }

  /** Ends the session's writes waiting for review, as rejected. */
  endWrites(sessionId: string, reason: string): void {
    this.ledger.endSession(sessionId, reason);
  }

  /**
   * Allow / Reject from the diff editor title. Returns false when there is nothing to answer; a
   * click on a proposal that already ended says so (nothing on disk changes).
   */
  answer(uri: vscode.Uri | undefined, accept: boolean): boolean {
    const key = (uri ?? vscode.window.activeTextEditor?.document.uri)?.toString();
    const target = key !== undefined ? this.targets.get(key) : undefined;
    let answered = false;
    if (target?.kind === 'write') {
      const a = this.ledger.answer(target.id, accept);
      answered = a.kind === 'answered';
      if (a.kind === 'ended') {
        void vscode.window.showInformationMessage(vscode.l10n.t('The edit to {0} already ended ({1}); nothing was changed.', a.label, a.reason));
      }
    } else if (target !== undefined) {
      const pending = target.chat.controller.pendingPermissions.find((p) => p.requestId === target.requestId);
      if (pending !== undefined) {
        const optionId = pickOption(pending.request.options, accept ? 'allow' : 'reject');
        answered = optionId !== undefined && target.chat.controller.choosePermission(target.requestId, optionId, 'user (diff editor)');
      } else {
        void vscode.window.showInformationMessage(vscode.l10n.t('That request was already answered or has expired; nothing was changed.'));
      }
    } else {
      void vscode.window.showInformationMessage(vscode.l10n.t('There is no proposed edit waiting for an answer here.'));
    }
    this.updateContext();
    return answered;
  }

  /** Keeps the title buttons in step with the card and closes proposals that were answered or ended (call when any permission settles). */
  updateContext(): void {
    const key = vscode.window.activeTextEditor?.document.uri.toString();
    const target = key !== undefined ? this.targets.get(key) : undefined;
    void vscode.commands.executeCommand('setContext', ContextKey.reviewPending, target !== undefined && this.isPending(target));
    this.closeSettled();
  }

  /** Closes the tabs of proposals that are no longer waiting, and forgets their documents. */
  closeSettled(): void {
    const done: OpenProposal[] = [];
    for (const [key, p] of [...this.proposals]) {
      if (!this.isPending(p.target)) {
        this.proposals.delete(key);
        done.push(p);
      }
    }
    if (done.length === 0) {
      return;
    }
    const documents = new Set(done.flatMap((p) => p.documents));
    void closeProposalTabs(documents).then(() => {
      for (const d of documents) {
        this.contents.delete(d);
        this.targets.delete(d);
      }
    });
  }

  dispose(): void {
    this.ledger.dispose();
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  private track(key: vscode.Uri, documents: readonly vscode.Uri[], target: ReviewTarget | undefined): void {
    if (target === undefined) {
      return;
    }
    this.targets.set(key.toString(), target);
    this.proposals.set(key.toString(), { target, documents: documents.map((d) => d.toString()) });
  }

  private isPending(target: ReviewTarget): boolean {
    return target.kind === 'write' ? this.ledger.isPending(target.id) : target.chat.controller.pendingPermissions.some((p) => p.requestId === target.requestId);
  }

  private virtual(name: string, text: string, id: number, side?: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: proposalScheme, path: `/${id}/${side ?? 'patch'}/${name}` });
    this.contents.set(uri.toString(), text);
    return uri;
  }
}

async function currentText(filePath: string): Promise<string | undefined> {
  const open = vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === filePath);
  if (open !== undefined) {
    return open.getText();
  }
  try {
    return new TextDecoder().decode(await vscode.workspace.fs.readFile(vscode.Uri.file(filePath)));
  } catch {
    return undefined;
  }
}

function countOccurrences(text: string, needle: string): number {
  let n = 0;
  for (let i = text.indexOf(needle); i >= 0 && n < 2; i = text.indexOf(needle, i + 1)) {
    n++;
  }
  return n;
}

export function isMultiFilePatch(d: acp.Diff): boolean {
  return d.newText.startsWith('*** Begin Patch') || /,\s*\//.test(d.path);
}
