import * as vscode from 'vscode';

/** The document a tab shows, by URI string: the proposed side of a diff, or a text editor's file. */
function shownDocument(tab: vscode.Tab): string | undefined {
  const input = tab.input;
  if (input instanceof vscode.TabInputTextDiff) {
    return input.modified.toString();
  }
  if (input instanceof vscode.TabInputText) {
    return input.uri.toString();
  }
  return undefined;
}

/**
 * Closes every tab that shows one of `documents` (proposal documents, `hermes-proposal:`), in every
 * editor group. A dirty tab is left alone (it cannot be one of ours — proposals are read-only —
 * but closing it would ask the user or lose text).
 */
export async function closeProposalTabs(documents: ReadonlySet<string>): Promise<void> {
  const tabs = vscode.window.tabGroups.all.flatMap((g) => g.tabs).filter((t) => !t.isDirty && documents.has(shownDocument(t) ?? ''));
  if (tabs.length > 0) {
    await vscode.window.tabGroups.close(tabs, true);
  }
}
