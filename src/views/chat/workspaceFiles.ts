import * as path from 'node:path';
import * as vscode from 'vscode';
import { describeError } from '../../agentPort/agentErrors';
import type { MentionView } from '../../protocol/webviewProtocol';
import { notificationLabel } from '../../util/displayText';

let fileIndex: { at: number; files: Promise<vscode.Uri[]> } | undefined;

/** `@` mentions: workspace files matching the query as a fuzzy subsequence, best first. */
export async function searchWorkspaceFiles(query: string): Promise<MentionView[]> {
  if (fileIndex === undefined || Date.now() - fileIndex.at > 10_000) {
    fileIndex = { at: Date.now(), files: Promise.resolve(vscode.workspace.findFiles('**/*', '{**/node_modules/**,**/.git/**}', 20_000)) };
  }
  const files = await fileIndex.files;
  const q = query.toLowerCase();
  const scored: { score: number; uri: vscode.Uri; rel: string }[] = [];
  for (const uri of files) {
    const rel = vscode.workspace.asRelativePath(uri, false);
    const score = fuzzyScore(q, rel.toLowerCase());
    if (score > 0) {
      scored.push({ score, uri, rel });
    }
  }
  scored.sort((a, b) => b.score - a.score || a.rel.length - b.rel.length);
  return scored.slice(0, 30).map(({ uri, rel }) => ({ path: uri.fsPath, label: path.basename(rel), detail: path.dirname(rel) === '.' ? '' : path.dirname(rel) }));
}

/** Subsequence match; consecutive and file-name matches score higher. 0 = no match. */
export function fuzzyScore(query: string, target: string): number {
  if (query === '') {
    return 1;
  }
  let score = 0;
  let ti = 0;
  let run = 0;
  const nameStart = target.lastIndexOf('/') + 1;
  for (const ch of query) {
    const found = target.indexOf(ch, ti);
    if (found < 0) {
      return 0;
    }
    run = found === ti ? run + 1 : 1;
    score += run * 2 + (found >= nameStart ? 3 : 0);
    ti = found + 1;
  }
  return score;
}

export async function openLocation(filePath: string, line?: number): Promise<void> {
  if (!path.isAbsolute(filePath)) {
    const root = vscode.workspace.workspaceFolders?.[0]?.uri.fsPath;
    if (root === undefined) {
      return;
    }
    filePath = path.join(root, filePath);
  }
  const position = new vscode.Position(Math.max(0, (line ?? 1) - 1), 0);
  try {
    await vscode.window.showTextDocument(vscode.Uri.file(filePath), { selection: new vscode.Range(position, position), preview: true });
  } catch (e) {
    void vscode.window.showWarningMessage(vscode.l10n.t('Cannot open {0}: {1}', notificationLabel(filePath), notificationLabel(describeError(e), 500)));
  }
}
