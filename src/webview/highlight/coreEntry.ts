// Entry of dist/webview/hljs/core.js: the highlight.js engine, loaded when the first fenced code
// block with a known language appears (not part of the initial webview bundle).
import type { Emitter } from 'highlight.js';
import hljs from 'highlight.js/lib/core';
import languages from './languages.json';
import { mailbox, type TokenNode } from './mailbox';

/**
 * Collects highlight.js's tokens as a plain tree (its `__emitter` option; the Emitter interface
 * is documented as "technically private, but … pretty stable"). The webview turns the tree into
 * elements and text nodes itself, so no HTML string is produced or parsed.
 */
class TreeEmitter implements Emitter {
  readonly root: TokenNode = { children: [] };
  private readonly stack: TokenNode[] = [this.root];

  private get top(): TokenNode {
    return this.stack[this.stack.length - 1] ?? this.root;
  }

  addText(text: string): void {
    if (text !== '') {
      this.top.children.push(text);
    }
  }

  startScope(scope: string): void {
    const node: TokenNode = { scope, children: [] };
    this.top.children.push(node);
    this.stack.push(node);
  }

  endScope(): void {
    if (this.stack.length > 1) {
      this.stack.pop();
    }
  }

  // highlight.js 11 also calls these two (the interface's older names for a mode's scope).
  openNode(scope: string): void {
    this.startScope(scope);
  }

  closeNode(): void {
    this.endScope();
  }

  __addSublanguage(emitter: Emitter, language: string): void {
    if (emitter instanceof TreeEmitter) {
      emitter.root.scope = `language:${language}`;
      this.top.children.push(emitter.root);
    }
  }

  finalize(): void {
    this.stack.length = 1;
  }

  toHTML(): string {
    return '';
  }
}

/** Fence name → grammar, from languages.json (grammar → its other names, space-separated). */
const grammarByName = new Map<string, string>();
for (const [name, aliases] of Object.entries<string>(languages.grammars)) {
  for (const label of [name, ...aliases.split(' ')]) {
    grammarByName.set(label, name);
  }
}
const requires: Readonly<Record<string, string>> = languages.requires;

/** The grammars `name` embeds, transitively (`xml` embeds `javascript`, which embeds `xml`). */
function embedded(name: string): string[] {
  const all = new Set([name]);
  for (const n of all) {
    for (const e of requires[n]?.split(' ') ?? []) {
      all.add(e);
    }
  }
  all.delete(name);
  return [...all];
}

hljs.configure({ __emitter: TreeEmitter });
mailbox().engine = {
  grammarOf: (label) => {
    const name = grammarByName.get(label);
    return name !== undefined ? { name, embeds: embedded(name) } : undefined;
  },
  registerLanguage: (name, grammar) => hljs.registerLanguage(name, grammar),
  highlight: (code, language) => {
    const emitter = hljs.highlight(code, { language, ignoreIllegals: true })._emitter;
    return emitter instanceof TreeEmitter ? emitter.root : { children: [code] };
  },
};
