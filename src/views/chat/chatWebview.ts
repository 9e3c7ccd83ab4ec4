import * as vscode from 'vscode';
import type { HostMessage } from '../../protocol/webviewProtocol';
import type { WebviewLike } from './webviewChannel';
import { renderWebviewHtml } from './webviewHtml';

/** Options shared by the chat view and chat editor tabs: scripts on, the narrowest resource roots. */
export function chatWebviewOptions(extensionUri: vscode.Uri): vscode.WebviewOptions {
  return {
    enableScripts: true,
    enableCommandUris: false,
    localResourceRoots: [vscode.Uri.joinPath(extensionUri, 'dist', 'webview'), vscode.Uri.joinPath(extensionUri, 'media')],
  };
}

export function chatWebviewHtml(webview: vscode.Webview, extensionUri: vscode.Uri): string {
  const asUri = (...p: string[]): string => webview.asWebviewUri(vscode.Uri.joinPath(extensionUri, ...p)).toString();
  return renderWebviewHtml({
    cspSource: webview.cspSource,
    scriptUri: asUri('dist', 'webview', 'main.js'),
    styleUris: [asUri('dist', 'webview', 'codicon.css'), asUri('dist', 'webview', 'main.css')],
    l10n: vscode.l10n.bundle ?? {},
    title: 'Hermes',
  });
}

export function webviewLike(webview: vscode.Webview): WebviewLike {
  return {
    postMessage: (message: HostMessage) => webview.postMessage(message),
    onDidReceiveMessage: (listener) => webview.onDidReceiveMessage((raw: unknown) => listener(raw)),
  };
}
