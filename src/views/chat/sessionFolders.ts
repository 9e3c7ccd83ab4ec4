import * as vscode from 'vscode';

/** The window's workspace folders (file system paths). */
export function workspaceFolders(): string[] {
  return (vscode.workspace.workspaceFolders ?? []).map((f) => f.uri.fsPath);
}

/** The first workspace folder, where sessions open (the extension host's cwd without one). */
export function workspaceRoot(): string {
  return vscode.workspace.workspaceFolders?.[0]?.uri.fsPath ?? process.cwd();
}

/**
 * The folders a session's `fs/*` and terminal requests may touch: its own when it has some (a
 * worktree session's worktree, issue 40), else the workspace folders. An unknown session (none of
 * this window's chats) gets the workspace folders, as before sessions had folders of their own.
 */
export function sessionRoots(chat: { readonly roots: readonly string[] | undefined } | undefined): readonly string[] {
  return chat?.roots ?? workspaceFolders();
}
