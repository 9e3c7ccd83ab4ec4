import languages from './languages.json';
import { mailbox, type TokenNode } from './mailbox';

export type { TokenNode } from './mailbox';

/**
 * Syntax highlighting with highlight.js's official grammars, loaded when first needed: the engine
 * (`hljs/core.js`) and each grammar (`hljs/<name>.js`) are scripts of their own next to the
 * webview bundle, fetched the first time a fenced block of that language closes (scripts/build.mjs
 * builds them; `languages.json` lists the grammars and the fence names that select them). No
 * auto-detection: a fence without a known language stays plain.
 */

/** Loads `hljs/<file>.js` (`core` or a grammar); `undefined` when it has run synchronously (tests). */
export type ScriptLoader = (file: string) => Promise<void> | undefined;

/** Grammar name → the other fence names it answers to, space-separated (highlight.js's aliases and a few more). */
const grammars: Readonly<Record<string, string>> = languages.grammars;
/** Grammar name → grammars it embeds (highlight.js `subLanguage`: `<script>` in HTML, JSX in TypeScript), loaded with it. */
const requires: Readonly<Record<string, string>> = languages.requires;

/** Code longer than this is shown plain: highlighting is linear but not free, and runs in one task. */
const maxHighlightChars = 100_000;

let loader: ScriptLoader | undefined;
let aliasIndex: Map<string, string> | undefined;
/** Per script: loaded (true), failed (false) or on its way. */
const scripts = new Map<string, boolean | Promise<boolean>>();
const registered = new Set<string>();

/** Where grammars come from (the page's script loader; tests load them synchronously). */
export function setScriptLoader(next: ScriptLoader | undefined): void {
  loader = next;
  scripts.clear();
}

export interface CodeLanguage {
  /** The fence's language name as written (lower case): `language-<label>` on the code element. */
  readonly label: string;
  /** The grammar that highlights it. */
  readonly grammar: string;
}

/** The language of a fence info string, when one of the grammars covers it. */
export function codeLanguage(info: string | undefined): CodeLanguage | undefined {
  const label = info?.trim().split(/\s+/)[0]?.toLowerCase();
  if (label === undefined || label === '') {
    return undefined;
  }
  if (aliasIndex === undefined) {
    aliasIndex = new Map();
    for (const [name, aliases] of Object.entries(grammars)) {
      aliasIndex.set(name, name);
      for (const alias of aliases.split(' ')) {
        aliasIndex.set(alias, name);
      }
    }
  }
  const grammar = aliasIndex.get(label);
  return grammar !== undefined ? { label, grammar } : undefined;
}

/**
 * Makes `grammar` usable: true when it is, false when it cannot be (no loader, a script failed),
 * or a promise while its scripts load.
 */
export function prepareGrammar(grammar: string): boolean | Promise<boolean> {
  if (isReady(grammar)) {
    return true;
  }
  const loads = ['core', ...embeddedIn(grammar)].map(load);
  if (loads.every((l) => typeof l === 'boolean')) {
    absorb();
    return isReady(grammar);
  }
  return Promise.all(loads.map(async (l) => l)).then(() => {
    absorb();
    return isReady(grammar);
  });
}

/** The tokens of `code`, or undefined (grammar not loaded, code too long, or a grammar error). */
export function highlightTokens(code: string, grammar: string): TokenNode | undefined {
  const engine = mailbox().engine;
  if (engine === undefined || !registered.has(grammar) || code.length > maxHighlightChars) {
    return undefined;
  }
  try {
    return engine.highlight(code, grammar);
  } catch {
    return undefined;
  }
}

/** Whether code this long is highlighted at all (longer code stays plain). */
export function isHighlightable(code: string): boolean {
  return code.length <= maxHighlightChars;
}

/** The grammar and every grammar it embeds, transitively (`xml` embeds `javascript`, which embeds `xml`). */
function embeddedIn(grammar: string): Set<string> {
  const all = new Set([grammar]);
  for (const name of all) {
    for (const embedded of requires[name]?.split(' ') ?? []) {
      all.add(embedded);
    }
  }
  return all;
}

function isReady(grammar: string): boolean {
  return mailbox().engine !== undefined && registered.has(grammar);
}

function load(file: string): boolean | Promise<boolean> {
  const known = scripts.get(file);
  if (known !== undefined) {
    return known;
  }
  let state: boolean | Promise<boolean>;
  try {
    const pending = loader?.(file);
    state = loader === undefined ? false : pending === undefined ? true : pending.then(() => true, () => false);
  } catch {
    state = false;
  }
  scripts.set(file, state);
  if (typeof state !== 'boolean') {
    // A script that failed (a transient resource error) is tried again by the next fence that needs it.
    void state.then((done) => (done ? scripts.set(file, true) : scripts.delete(file)));
  }
  return state;
}

/** Registers every grammar the loaded scripts left in the mailbox. */
function absorb(): void {
  const box = mailbox();
  const engine = box.engine;
  if (engine === undefined) {
    return;
  }
  for (const { name, grammar } of box.grammars.splice(0)) {
    engine.registerLanguage(name, grammar);
    registered.add(name);
  }
}
