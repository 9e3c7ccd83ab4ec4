// Entry of the webview bundle (dist/webview/main.js; the stylesheet becomes dist/webview/main.css).
import './styles/main.css';
import { startApp } from './app';
import { setScriptLoader } from './highlight';
import { loadCards, setCardsLoader } from './lazy/cards';
import { nonceScriptLoader } from './lazy/scriptLoader';
import { shareWithChunks } from './lazy/shared';

// document.currentScript is this bundle's script element only while it runs.
const load = nonceScriptLoader(window, document.currentScript);
setScriptLoader(load && ((file) => load(`hljs/${file}`)));
setCardsLoader(load);
shareWithChunks();
startApp(window);
// The cards chunk follows once the page is idle after its first paint: a menu or card is then
// there before anyone needs it (one that is needed sooner fetches it itself and waits).
window.requestIdleCallback(() => void Promise.resolve(loadCards()).catch(() => undefined), { timeout: 2000 });
