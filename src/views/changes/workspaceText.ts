import * as vscode from 'vscode';
import { readDiskText } from '../../changes/diskText';
import { hostSemantics, normalizeDriveLetter, samePath } from '../../util/paths';

/** The open (not closed) document of a file on disk, if VS Code has one. */
export function openDocument(filePath: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && samePath(d.uri.fsPath, filePath, hostSemantics()) && !d.isClosed);
}

/** What a file holds now: the open document (unsaved edits included), else the disk (text only, up to `maxFileBytes`). */
export async function readCurrentText(filePath: string, maxFileBytes: number): Promise<string | undefined> {
  const doc = openDocument(filePath);
  if (doc !== undefined) {
    return doc.getText();
  }
  const disk = await readDiskText(filePath, maxFileBytes);
  return disk.kind === 'text' ? disk.text : undefined;
}

/**
 * A document's path as the change tracker keys it: VS Code's `fsPath` spells the drive `c:\`,
 * Node's realpath (and so every tracked path) `C:\`.
 */
export function documentPath(uri: vscode.Uri): string {
  return normalizeDriveLetter(uri.fsPath, hostSemantics());
}

export function relativePath(p: string): string {
  return vscode.workspace.asRelativePath(p, false);
}
