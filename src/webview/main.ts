// Entry of the webview bundle (dist/webview/main.js; the stylesheet becomes dist/webview/main.css).
import './styles/main.css';
import { startApp } from './app';

startApp(window);
