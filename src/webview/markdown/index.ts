// The Markdown renderer of the webview: block lexer (blockLexer.ts), streaming view with its open
// tail (markdownView.ts, openFence.ts), DOM builder (domBuilder.ts, codeBlock.ts) and sanitizer
// (sanitizer.ts).
export { MarkdownView, renderMarkdown } from './markdownView';
export { defaultScheduler, type MarkdownScheduler } from './scheduler';
