import type * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import type { AttachmentView } from '../protocol/webviewProtocol';

/**
 * The prompt: the text, plus each attachment as context — an embedded `resource` with the file's
 * (or selection's) text when the agent advertises `embeddedContext`, else a `resource_link` with an
 * absolute file URI (every agent must accept those).
 */
export async function promptBlocks(text: string, attachments: readonly AttachmentView[], embedded: boolean, images = false): Promise<acp.ContentBlock[]> {
  const blocks: acp.ContentBlock[] = [{ type: 'text', text }];
  for (const a of attachments) {
    if (a.image !== undefined) {
      // ACP: image blocks only to agents that advertise promptCapabilities.image.
      if (images) {
        blocks.push({ type: 'image', mimeType: a.image.mimeType, data: a.image.data });
      }
      continue;
    }
    const fileUri = vscode.Uri.file(a.path);
    const range = a.startLine !== undefined ? `#L${a.startLine}${a.endLine !== undefined ? `-L${a.endLine}` : ''}` : '';
    const uri = `${fileUri.toString()}${range}`;
    if (embedded) {
      try {
        const doc = await vscode.workspace.openTextDocument(fileUri);
        const content =
          a.startLine !== undefined
            ? doc.getText(new vscode.Range(a.startLine - 1, 0, (a.endLine ?? a.startLine) - 1, Number.MAX_SAFE_INTEGER))
            : doc.getText();
        blocks.push({ type: 'resource', resource: { uri, text: content, mimeType: 'text/plain' } });
        continue;
      } catch {
        // unreadable (binary, deleted): fall back to a link
      }
    }
    blocks.push({ type: 'resource_link', uri, name: a.label });
  }
  return blocks;
}
