/** Loads `<path>.js` from next to the webview bundle (`hljs/core`, `cards`), resolving once it has run. */
export type NonceScriptLoader = (path: string) => Promise<void>;

/**
 * Loads the webview's lazy scripts (highlight.js's engine and grammars, the rarely shown cards) as
 * script elements carrying the page's nonce: the webview's CSP allows nonce'd scripts only, so no
 * policy change is needed, and they come from `dist/webview`, already one of the webview's
 * `localResourceRoots`. `current` is the bundle's own script element (`document.currentScript`
 * while it runs); its URL locates the folder and its nonce is reused. Paths come from our own
 * tables (the grammar list, the chunk names), never from agent text.
 */
export function nonceScriptLoader(win: Window & typeof globalThis, current: Element | null): NonceScriptLoader | undefined {
  if (!(current instanceof win.HTMLScriptElement) || !/\/main\.js(?=[?#]|$)/.test(current.src)) {
    return undefined;
  }
  const source = current.src;
  const nonce = current.nonce ?? '';
  return (path) =>
    new Promise<void>((resolve, reject) => {
      const script = win.document.createElement('script');
      script.nonce = nonce;
      script.src = source.replace(/\/main\.js(?=[?#]|$)/, `/${path}.js`);
      script.addEventListener('load', () => {
        script.remove();
        resolve();
      });
      script.addEventListener('error', () => {
        script.remove();
        reject(new Error(`could not load ${path}.js`));
      });
      win.document.head.appendChild(script);
    });
}
