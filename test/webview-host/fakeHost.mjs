// A stand-in for the VS Code webview host, for checking the chat webview in a real browser.
//   startFakeHost({ port? }) → { url, origin, port, close() }
// Serves dist/webview/* under /dist/ and a page (/, /index.html) that defines acquireVsCodeApi
// before loading main.js, under the same CSP the extension uses (nonce-only scripts, no inline
// styles). The page API (stable, used by benchmarks): window.__deliver(msg) dispatches a host
// message synchronously, window.__deliverAsync(msg) posts it as a separate task,
// window.__posted holds what the webview posted, window.__cspViolations any CSP violations.
// Query parameters: ?theme=dark|light|hc (default dark), ?state=<JSON> (initial getState()).
import { createServer } from 'node:http';
import { randomBytes } from 'node:crypto';
import { readFile } from 'node:fs/promises';
import { dirname, extname, join, normalize, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const here = dirname(fileURLToPath(import.meta.url));
const root = join(here, '..', '..');
const distDir = join(root, 'dist', 'webview');

const types = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.ttf': 'font/ttf',
  '.map': 'application/json',
  '.html': 'text/html; charset=utf-8',
  '.json': 'application/json',
};

const themes = {
  dark: { bodyClass: 'vscode-dark', sheet: 'theme-dark.css' },
  light: { bodyClass: 'vscode-light', sheet: 'theme-light.css' },
  hc: { bodyClass: 'vscode-high-contrast', sheet: 'theme-hc.css' },
};

/** The webview's Content-Security-Policy, as src/views/chat/webviewHtml.ts builds it. */
export function contentSecurityPolicy(cspSource, nonce) {
  return [`default-src 'none'`, `script-src 'nonce-${nonce}'`, `style-src ${cspSource}`, `font-src ${cspSource}`, `img-src ${cspSource} data:`].join('; ');
}

function page(origin, nonce, theme, state) {
  const t = themes[theme] ?? themes.dark;
  const attr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
  return `<!DOCTYPE html>
<html lang="en">
  <head>
    <meta charset="UTF-8">
    <meta http-equiv="Content-Security-Policy" content="${attr(contentSecurityPolicy(origin, nonce))}">
    <meta name="viewport" content="width=device-width, initial-scale=1.0">
    <link rel="stylesheet" href="/host/vscode-defaults.css">
    <link rel="stylesheet" href="/host/${t.sheet}">
    <link rel="stylesheet" href="/dist/codicon.css">
    <link rel="stylesheet" href="/dist/main.css">
    <title>Hermes (fake host)</title>
  </head>
  <body class="${t.bodyClass}" data-initial-state="${attr(state ?? '')}">
    <div id="app"></div>
    <script type="application/json" id="hermes-l10n">{}</script>
    <script nonce="${nonce}" src="/host/fake-vscode-api.js"></script>
    <script nonce="${nonce}" src="/dist/main.js"></script>
  </body>
</html>`;
}

/** Resolves `rel` inside `dir`, or undefined if it would escape it. */
function inside(dir, rel) {
  const full = normalize(join(dir, rel));
  return full.startsWith(dir + sep) ? full : undefined;
}

export async function startFakeHost({ port = 0, host = '127.0.0.1' } = {}) {
  let origin = '';
  const server = createServer(async (req, res) => {
    try {
      const url = new URL(req.url ?? '/', origin || 'http://localhost');
      let file;
      if (url.pathname === '/' || url.pathname === '/index.html') {
        const nonce = randomBytes(16).toString('base64');
        const body = page(origin, nonce, url.searchParams.get('theme') ?? 'dark', url.searchParams.get('state'));
        res.writeHead(200, { 'content-type': types['.html'], 'cache-control': 'no-store' });
        res.end(body);
        return;
      }
      if (url.pathname === '/favicon.ico') {
        res.writeHead(204).end();
        return;
      }
      if (url.pathname.startsWith('/dist/')) {
        file = inside(distDir, decodeURIComponent(url.pathname.slice('/dist/'.length)));
      } else if (url.pathname.startsWith('/host/')) {
        file = inside(here, decodeURIComponent(url.pathname.slice('/host/'.length)));
      }
      if (file === undefined) {
        res.writeHead(404).end();
        return;
      }
      const data = await readFile(file);
      res.writeHead(200, { 'content-type': types[extname(file)] ?? 'application/octet-stream', 'cache-control': 'no-store' });
      res.end(data);
    } catch {
      res.writeHead(404).end();
    }
  });
  await new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, resolve);
  });
  const address = server.address();
  const actualPort = typeof address === 'object' && address !== null ? address.port : port;
  origin = `http://${host}:${actualPort}`;
  return {
    url: `${origin}/`,
    origin,
    port: actualPort,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

// `node test/webview-host/fakeHost.mjs [port]` serves until interrupted.
if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const h = await startFakeHost({ port: Number(process.argv[2] ?? 8765) });
  console.log(`fake webview host on ${h.url}`);
}
