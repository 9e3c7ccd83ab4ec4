import type * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import { describeError } from '../../agentPort/agentErrors';
import type { AttachmentView } from '../../protocol/webviewProtocol';

export interface PromptBlockOptions {
  /** The agent advertises `promptCapabilities.embeddedContext`. */
  readonly embedded: boolean;
  /** The agent advertises `promptCapabilities.image`. */
  readonly images?: boolean;
  /**
   * The workspace check of `fs/read_text_file` (`WorkspaceBoundary.resolve`): the real path, or
   * an error for files outside the workspace folders, escaping symlinks, devices….
   */
  readonly check: (path: string) => Promise<string>;
}

export interface PromptBlocks {
  readonly blocks: acp.ContentBlock[];
  /** Attachments left out, with why. */
  readonly refused: readonly { readonly label: string; readonly reason: string }[];
}

/**
 * The prompt: the text, plus each attachment as context — an embedded `resource` with the file's
 * (or selection's) text when the agent advertises `embeddedContext`, else a `resource_link` with an
 * absolute file URI (every agent must accept those; Hermes reads the file itself). Attachments
 * come from the webview, which renders agent content: each file passes the same workspace check
 * as the agent's own reads, or is left out (a link to `/etc/shadow` is a read too).
 */
export async function promptBlocks(text: string, attachments: readonly AttachmentView[], options: PromptBlockOptions): Promise<PromptBlocks> {
  const blocks: acp.ContentBlock[] = [{ type: 'text', text }];
  const refused: { label: string; reason: string }[] = [];
  for (const a of attachments) {
    if (a.image !== undefined) {
      // ACP: image blocks only to agents that advertise promptCapabilities.image.
      if (options.images === true) {
        blocks.push({ type: 'image', mimeType: a.image.mimeType, data: a.image.data });
      }
      continue;
    }
    let realPath: string;
    try {
      realPath = await options.check(a.path);
    } catch (e) {
      refused.push({ label: a.label, reason: describeError(e) });
      continue;
    }
    const fileUri = vscode.Uri.file(realPath);
    const range = a.startLine !== undefined ? `#L${a.startLine}${a.endLine !== undefined ? `-L${a.endLine}` : ''}` : '';
    const uri = `${fileUri.toString()}${range}`;
    if (options.embedded) {
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
  return { blocks, refused };
}
