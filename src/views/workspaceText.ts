import * as vscode from 'vscode';
import { readDiskText } from '../changes/diskText';

/** The open (not closed) document of a file on disk, if VS Code has one. */
export function openDocument(filePath: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && d.uri.fsPath === filePath && !d.isClosed);
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

export function relativePath(p: string): string {
  return vscode.workspace.asRelativePath(p, false);
}
