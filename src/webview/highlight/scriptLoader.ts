import type { ScriptLoader } from './index';

/**
 * Loads the lazy highlight scripts (`hljs/<file>.js`, next to the webview bundle) as script
 * elements carrying the page's nonce: the webview's CSP allows nonce'd scripts only, so no policy
 * change is needed, and they come from `dist/webview`, already one of the webview's
 * `localResourceRoots`. `current` is the bundle's own script element (`document.currentScript`
 * while it runs); its URL locates the folder and its nonce is reused. File names come from the
 * grammar table, never from agent text.
 */
export function nonceScriptLoader(win: Window & typeof globalThis, current: Element | null): ScriptLoader | undefined {
  if (!(current instanceof win.HTMLScriptElement) || !/\/main\.js(?=[?#]|$)/.test(current.src)) {
    return undefined;
  }
  const source = current.src;
  const nonce = current.nonce ?? '';
  return (file) =>
    new Promise<void>((resolve, reject) => {
      const script = win.document.createElement('script');
      script.nonce = nonce;
      script.src = source.replace(/\/main\.js(?=[?#]|$)/, `/hljs/${file}.js`);
      script.addEventListener('load', () => {
        script.remove();
        resolve();
      });
      script.addEventListener('error', () => {
        script.remove();
        reject(new Error(`could not load hljs/${file}.js`));
      });
      win.document.head.appendChild(script);
    });
}
