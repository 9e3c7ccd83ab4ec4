import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import { pickOption } from '../session/permissionPolicy';
import type { ChatSession } from '../app/chatSession';
import { ContextKey } from './commandIds';

/** Read-only virtual documents holding what the agent proposes. */
export const proposalScheme = 'hermes-proposal';

/** What Allow/Reject in the diff editor's title answers. */
export type ReviewTarget =
  | { readonly kind: 'permission'; readonly chat: ChatSession; readonly requestId: string }
  | { readonly kind: 'write'; readonly decide: (accepted: boolean) => void; readonly isPending: () => boolean };

export interface ShowOptions {
  readonly agentName: string;
  readonly target?: ReviewTarget;
  /** Open without taking focus (the "background" setting). */
  readonly preserveFocus: boolean;
}

/**
 * Shows proposed edits in VS Code's own diff editor: left the current text (the open document,
 * unsaved edits included), right the proposal as a read-only virtual document. Snippet and hunk
 * diffs are shown in the context of the file when they can be located in it. Allow / Reject in
 * the editor title answer the pending permission (or write) the diff belongs to; closing the tab
 * answers nothing.
 */
export class DiffReviewer implements vscode.TextDocumentContentProvider, vscode.Disposable {
  private readonly contents = new Map<string, string>();
  private readonly targets = new Map<string, ReviewTarget>();
  private readonly disposables: vscode.Disposable[] = [];
  private counter = 0;
  private readonly onDidChangeEmitter = new vscode.EventEmitter<vscode.Uri>();
  readonly onDidChange = this.onDidChangeEmitter.event;

  constructor() {
    this.disposables.push(
      vscode.workspace.registerTextDocumentContentProvider(proposalScheme, this),
      vscode.window.onDidChangeActiveTextEditor(() => this.updateContext()),
      this.onDidChangeEmitter,
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
      await vscode.window.showTextDocument(patchUri, { preview: true, preserveFocus: options.preserveFocus });
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
    if (options.target !== undefined) {
      this.targets.set(right.toString(), options.target);
    }
    this.onDidChangeEmitter.fire(right);
    await vscode.commands.executeCommand('vscode.diff', left, right, title, { preview: true, preserveFocus: options.preserveFocus });
    this.updateContext();
  }

  /** Allow / Reject from the diff editor title. Returns false when there is nothing to answer. */
  answer(uri: vscode.Uri | undefined, accept: boolean): boolean {
    const key = (uri ?? vscode.window.activeTextEditor?.document.uri)?.toString();
    const target = key !== undefined ? this.targets.get(key) : undefined;
    if (target === undefined) {
      return false;
    }
    let answered = false;
    if (target.kind === 'write') {
      if (target.isPending()) {
        target.decide(accept);
        answered = true;
      }
    } else {
      const pending = target.chat.controller.pendingPermissions.find((p) => p.requestId === target.requestId);
      if (pending !== undefined) {
        const optionId = pickOption(pending.request.options, accept ? 'allow' : 'reject');
        answered = optionId !== undefined && target.chat.controller.choosePermission(target.requestId, optionId, 'user (diff editor)');
      }
    }
    this.updateContext();
    return answered;
  }

  /** Keeps the title buttons in step with the card (call when any permission settles). */
  updateContext(): void {
    const key = vscode.window.activeTextEditor?.document.uri.toString();
    const target = key !== undefined ? this.targets.get(key) : undefined;
    void vscode.commands.executeCommand('setContext', ContextKey.reviewPending, target !== undefined && isPending(target));
  }

  dispose(): void {
    for (const d of this.disposables) {
      d.dispose();
    }
  }

  private virtual(name: string, text: string, id: number, side?: string): vscode.Uri {
    const uri = vscode.Uri.from({ scheme: proposalScheme, path: `/${id}/${side ?? 'patch'}/${name}` });
    this.contents.set(uri.toString(), text);
    return uri;
  }
}

function isPending(target: ReviewTarget): boolean {
  return target.kind === 'write' ? target.isPending() : target.chat.controller.pendingPermissions.some((p) => p.requestId === target.requestId);
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
