// Entry of the webview bundle (dist/webview/main.js; the stylesheet becomes dist/webview/main.css).
import './styles/main.css';
import { startApp } from './app';
import { setScriptLoader } from './highlight';
import { nonceScriptLoader } from './highlight/scriptLoader';

// document.currentScript is this bundle's script element only while it runs.
setScriptLoader(nonceScriptLoader(window, document.currentScript));
startApp(window);
