import { randomBytes } from 'node:crypto';

export interface WebviewHtmlOptions {
  /** `webview.cspSource`. */
  readonly cspSource: string;
  readonly scriptUri: string;
  readonly styleUris: readonly string[];
  /** Localized UI strings (English text → translation), read by the webview's `t()`. */
  readonly l10n: Readonly<Record<string, string>>;
  readonly title: string;
  /** Fresh per render; tests pass a fixed one. */
  readonly nonce?: string;
}

export function newNonce(): string {
  return randomBytes(16).toString('base64');
}

/** The webview's Content-Security-Policy: nothing but our own script (by nonce), styles, fonts and data: images. */
export function contentSecurityPolicy(cspSource: string, nonce: string): string {
  return [
    "default-src 'none'",
    `script-src 'nonce-${nonce}'`,
    `style-src ${cspSource}`,
    `font-src ${cspSource}`,
    `img-src ${cspSource} data:`,
    // Not covered by default-src: no <base> may redirect relative URLs, no form may submit anywhere.
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
}

/** The chat webview document: strict CSP, one nonce'd script, linked stylesheets, no inline styles. */
export function renderWebviewHtml(o: WebviewHtmlOptions): string {
  const nonce = o.nonce ?? newNonce();
  // JSON inside a non-executed script element; `<` escaped so no string can close the element.
  const l10n = JSON.stringify(o.l10n).replace(/</g, '\\u003c');
  const styles = o.styleUris.map((u) => `<link rel="stylesheet" href="${escapeAttr(u)}">`).join('\n    ');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${escapeAttr(contentSecurityPolicy(o.cspSource, nonce))}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    ${styles}
    <title>${escapeText(o.title)}</title>
  </head>
  <body>
    <div id="app"></div>
    <script type="application/json" id="hermes-l10n">${l10n}</script>
    <script nonce="${nonce}" src="${escapeAttr(o.scriptUri)}"></script>
  </body>
</html>`;
}

function escapeAttr(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
}

function escapeText(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;');
}
