import type { LanguageFn } from 'highlight.js';

/**
 * The hand-over between the webview bundle and its lazily loaded scripts (`dist/webview/hljs/`):
 * `core.js` (the highlight.js engine) and one script per grammar, each an iife that leaves what it
 * brings in one object on the page's global scope. Only scripts carrying the page's nonce run
 * (the webview's CSP), so only our own bundles can put anything there; the webview reads it after
 * each script's `load` event.
 */
/** highlight.js's token tree: scoped nodes (`keyword`, `title.function`, `language:xml`…) and text. */
export interface TokenNode {
  scope?: string;
  readonly children: (string | TokenNode)[];
}

export interface Engine {
  /**
   * The grammar a fence's language name selects (highlight.js's names and aliases, and a few
   * more; languages.json), with every grammar it embeds (`subLanguage`: CSS and JavaScript in
   * HTML, JSX in TypeScript), transitively.
   */
  grammarOf(label: string): { readonly name: string; readonly embeds: readonly string[] } | undefined;
  registerLanguage(name: string, grammar: LanguageFn): void;
  /** The tokens of `code` (no HTML: the webview builds the spans itself). */
  highlight(code: string, language: string): TokenNode;
}

export interface Mailbox {
  engine?: Engine;
  readonly grammars: { readonly name: string; readonly grammar: LanguageFn }[];
}

const key = '__hermesHighlight';

export function mailbox(): Mailbox {
  const scope = globalThis as unknown as Record<string, Mailbox | undefined>;
  let box = scope[key];
  if (box === undefined) {
    box = { grammars: [] };
    scope[key] = box;
  }
  return box;
}

/** Called by a grammar script (see scripts/build.mjs). */
export function publishGrammar(name: string, grammar: LanguageFn): void {
  mailbox().grammars.push({ name, grammar });
}
