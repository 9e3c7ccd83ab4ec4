import { createRequire } from 'node:module';
import type { LanguageFn } from 'highlight.js';
import { setScriptLoader } from '../../../src/webview/highlight';
import { publishGrammar } from '../../../src/webview/highlight/mailbox';

const load = createRequire(__filename);

/**
 * What the webview's nonce'd script elements do in the browser, synchronously: `core` runs the
 * engine's entry (out/src/webview/highlight/coreEntry.js), a grammar publishes highlight.js's
 * official grammar, as its bundle (scripts/build.mjs) does.
 */
export function loadGrammarsSynchronously(): void {
  setScriptLoader((file) => {
    if (file === 'core') {
      load('../../../src/webview/highlight/coreEntry');
    } else {
      publishGrammar(file, load(`highlight.js/lib/languages/${file}`) as LanguageFn);
    }
    return undefined;
  });
}
