import { mailbox, type TokenNode } from './mailbox';

export type { TokenNode } from './mailbox';

/**
 * Syntax highlighting with highlight.js's official grammars, loaded when first needed: the engine
 * (`hljs/core.js`, which also knows which fence names select which grammar: languages.json) and
 * each grammar (`hljs/<name>.js`) are scripts of their own next to the webview bundle, fetched the
 * first time a fenced block with a language name closes (scripts/build.mjs builds them). No
 * auto-detection: a fence without a language, or with one no grammar covers, stays plain.
 */

/** Loads `hljs/<file>.js` (`core` or a grammar); `undefined` when it has run synchronously (tests). */
export type ScriptLoader = (file: string) => Promise<void> | undefined;

/** Code longer than this is shown plain: highlighting is linear but not free, and runs in one task. */
const maxHighlightChars = 100_000;

let loader: ScriptLoader | undefined;
/** Per script: loaded (true), failed (false) or on its way. */
const scripts = new Map<string, boolean | Promise<boolean>>();
const registered = new Set<string>();

/** Where grammars come from (the page's script loader; tests load them synchronously). */
export function setScriptLoader(next: ScriptLoader | undefined): void {
  loader = next;
  scripts.clear();
}

/** A fence's language name (lower case), when it looks like one: `language-<label>` on the code element. */
export function fenceLabel(info: string | undefined): string | undefined {
  const label = info?.trim().split(/\s+/)[0]?.toLowerCase();
  return label !== undefined && /^[a-z0-9][\w+#.-]{0,31}$/.test(label) ? label : undefined;
}

/**
 * Makes the grammar of a fence name usable: its name when it is, false when there is none or it
 * cannot be loaded, or a promise of either while scripts load.
 */
export function prepareLanguage(label: string): string | false | Promise<string | false> {
  const core = load('core');
  if (core === false) {
    return false;
  }
  return core === true ? prepareGrammar(label) : core.then((loaded) => (loaded ? prepareGrammar(label) : false));
}

function prepareGrammar(label: string): string | false | Promise<string | false> {
  const engine = mailbox().engine;
  const grammar = engine?.grammarOf(label);
  if (engine === undefined || grammar === undefined) {
    return false;
  }
  const loads = [grammar.name, ...grammar.embeds].filter((name) => !registered.has(name)).map(load);
  const ready = (): string | false => {
    absorb();
    return registered.has(grammar.name) ? grammar.name : false;
  };
  return loads.every((l) => typeof l === 'boolean') ? ready() : Promise.all(loads.map(async (l) => l)).then(ready);
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
