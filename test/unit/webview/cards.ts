import { createRequire } from 'node:module';
import { publishCards, setCardsLoader, type Cards } from '../../../src/webview/lazy/cards';

const load = createRequire(__filename);

/**
 * What the page's nonce'd script element does with `cards.js` in the browser, synchronously: its
 * entry module (out/src/webview/cards/entry.js) publishes the card classes.
 */
export function loadCardsSynchronously(): void {
  setCardsLoader((file) => {
    if (file !== 'cards') {
      throw new Error(`no chunk ${file}`);
    }
    publishCards((load('../../../src/webview/cards/entry') as { cards: Cards }).cards);
    return undefined;
  });
}
