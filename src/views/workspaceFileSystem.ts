import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import * as vscode from 'vscode';
import type { FileSystemPort } from '../agentPort/clientPorts';
import { ClientRequestError, RpcCode } from '../agentPort/agentErrors';
import { sliceLines, type WorkspaceBoundary } from '../acp/workspaceBoundary';

export interface WriteRecord {
  readonly sessionId: string;
  readonly path: string;
  /** Text before the write (undefined: the file did not exist). */
  readonly before: string | undefined;
  readonly after: string;
}

export interface WorkspaceFileSystemOptions {
  readonly boundary: WorkspaceBoundary;
  /** Largest file read from disk (open documents are always read). */
  readonly maxReadBytes: number;
  /** `hermes.review.writes`: write at once, or open the diff and wait for Accept/Reject. */
  readonly writeMode: () => 'auto' | 'review';
  /** Shows the proposed write; resolves true when the user accepts it. */
  readonly review: (params: acp.WriteTextFileRequest, before: string | undefined) => Promise<boolean>;
  /** Every write that happened (the changes view tracks them). */
  readonly onDidWrite?: (record: WriteRecord) => void;
}

/**
 * `fs/read_text_file` and `fs/write_text_file` over the workspace: reads return the open
 * document's text (unsaved edits included); writes go through a WorkspaceEdit so undo works, and
 * create missing files and folders. Paths outside the session's folders (the workspace folders, or a
 * worktree session's worktree) are refused.
 */
export class WorkspaceFileSystem implements FileSystemPort {
  constructor(private readonly options: WorkspaceFileSystemOptions) {}

  async readTextFile(params: acp.ReadTextFileRequest): Promise<acp.ReadTextFileResponse> {
    const { realPath, stat } = await this.options.boundary.resolve(params.path, 'read', params.sessionId);
    const open = openDocument(params.path, realPath);
    let text: string;
    if (open !== undefined) {
      text = open.getText();
    } else {
      if (stat !== undefined && stat.size > this.options.maxReadBytes) {
        throw ClientRequestError.invalidParams(
          `${params.path} is ${mb(stat.size)}; the client reads files up to ${mb(this.options.maxReadBytes)}. Read a range with line/limit from a smaller file, or use your own tools.`,
          { path: params.path, size: stat.size },
        );
      }
      const bytes = await vscode.workspace.fs.readFile(vscode.Uri.file(realPath));
      text = new TextDecoder().decode(bytes);
    }
    return { content: sliceLines(text, params.line, params.limit) };
  }

  async writeTextFile(params: acp.WriteTextFileRequest): Promise<acp.WriteTextFileResponse> {
    const { realPath, stat } = await this.options.boundary.resolve(params.path, 'write', params.sessionId);
    const uri = vscode.Uri.file(realPath);
    const open = openDocument(params.path, realPath);
    const before = open !== undefined ? open.getText() : stat !== undefined ? new TextDecoder().decode(await vscode.workspace.fs.readFile(uri)) : undefined;
    if (this.options.writeMode() === 'review' && !(await this.options.review(params, before))) {
      throw new ClientRequestError(RpcCode.internalError, `The user rejected the edit to ${params.path}; the file was not changed.`, { path: params.path, rejected: true });
    }
    const edit = new vscode.WorkspaceEdit();
    if (stat === undefined) {
      await vscode.workspace.fs.createDirectory(vscode.Uri.file(path.dirname(realPath)));
      edit.createFile(uri, { ignoreIfExists: true });
      edit.insert(uri, new vscode.Position(0, 0), params.content);
    } else {
      const doc = open ?? (await vscode.workspace.openTextDocument(uri));
      edit.replace(uri, new vscode.Range(doc.positionAt(0), doc.positionAt(doc.getText().length)), params.content);
    }
    if (!(await vscode.workspace.applyEdit(edit))) {
      throw new ClientRequestError(RpcCode.internalError, `VS Code could not apply the edit to ${params.path}.`, { path: params.path });
    }
    const doc = await vscode.workspace.openTextDocument(uri);
    if (doc.isDirty) {
      await doc.save();
    }
    this.options.onDidWrite?.({ sessionId: params.sessionId, path: realPath, before, after: params.content });
    return {};
  }
}

function openDocument(requested: string, realPath: string): vscode.TextDocument | undefined {
  return vscode.workspace.textDocuments.find((d) => d.uri.scheme === 'file' && (d.uri.fsPath === requested || d.uri.fsPath === realPath));
}

function mb(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
}
