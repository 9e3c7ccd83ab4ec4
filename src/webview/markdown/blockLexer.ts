import { Lexer, type Links, type Token } from 'marked';
import { maxLexMs } from './viewLimits';

/**
 * Block-level lexing for the streaming renderer: marked's lexer, plus what it takes to tell the
 * blocks of a growing text that are finished from the one still open.
 */

export interface Lexed {
  readonly tokens: Token[];
  readonly links: Links;
}

/** Lexes `source` with the link reference definitions found before it. */
export function lex(source: string, links: Links): Lexed {
  // `breaks`: a single newline is a line break, as agents mean it in chat (Hermes' `/help` and
  // `/context` answers are line-oriented plain text that would otherwise run together).
  const lexer = new Lexer({ gfm: true, breaks: true });
  for (const [key, value] of Object.entries(links)) {
    lexer.tokens.links[key] = value;
  }
  const tokens = lexer.lex(source);
  return { tokens, links: tokens.links };
}

/**
 * `lex`, refused (undefined) for text of a hostile shape, a lex slower than `maxLexMs` or one that
 * threw: such text is shown plain.
 */
export function guardedLex(source: string, links: Links, clock: { now(): number }): Lexed | undefined {
  if (looksHostile(source)) {
    return undefined;
  }
  const started = clock.now();
  try {
    const lexed = lex(source, links);
    return clock.now() - started > maxLexMs ? undefined : lexed;
  } catch {
    return undefined;
  }
}

/** Hostile shapes that make a Markdown parser recurse deeply; such text is shown plain. */
export function looksHostile(text: string): boolean {
  return (
    /(?:^|\n)(?:[ \t]*>){16}/.test(text) ||
    /(?:^|\n)[ \t]{64,}(?:[-*+]|\d{1,9}[.)])[ \t]/.test(text) ||
    /[[(]{64}/.test(text)
  );
}

/** Top-level tokens that produce nodes (blank lines and link definitions do not). */
export function isRendered(token: Token): boolean {
  return token.type !== 'space' && token.type !== 'def';
}

/** Whether a link reference definition in `after` is new or differs from `before`. */
export function linksChanged(before: Links, after: Links): boolean {
  for (const [key, value] of Object.entries(after)) {
    const old = before[key];
    if (old?.href !== value.href || old.title !== value.title) {
      return true;
    }
  }
  return false;
}

/** A fenced code block whose closing line is complete (so no later text can change it). */
export function isClosedFence(token: Token): boolean {
  if (token.type !== 'code' || token.codeBlockStyle === 'indented') {
    return false;
  }
  const raw = token.raw;
  const open = /^ {0,3}(`{3,}|~{3,})/.exec(raw);
  // Closed only when the closing line is complete: "```" at the very end could still become "```x".
  if (open?.[1] === undefined || !raw.endsWith('\n')) {
    return false;
  }
  const lines = raw.slice(0, -1).split('\n');
  if (lines.length < 2) {
    return false;
  }
  const m = /^ {0,3}(`{3,}|~{3,})[ \t]*$/.exec(lines[lines.length - 1] ?? '');
  return m?.[1] !== undefined && m[1].startsWith(open[1][0] ?? '`') && m[1].length >= open[1].length;
}

export interface TailSplit {
  /** Tokens no later text can change: every block before the last one (and a closed fence). */
  readonly finished: Token[];
  /** Characters of the source the finished tokens span. */
  readonly consumed: number;
  /** The open tail: the last block (and any blank lines around it). */
  readonly open: Token[];
}

/**
 * Splits the tokens of a tail into finished blocks and the open one. A block is finished once
 * another block starts after it (a paragraph, list, table or blockquote can still grow until
 * then); a fence once its closing line is complete.
 */
export function splitTail(tokens: readonly Token[], source: string): TailSplit {
  let last = tokens.length - 1;
  while (last >= 0 && tokens[last]?.type === 'space') {
    last--;
  }
  let count = last < 0 ? 0 : last;
  const lastToken = tokens[last];
  if (lastToken !== undefined && isClosedFence(lastToken)) {
    count = last + 1;
  }
  let consumed = 0;
  for (let i = 0; i < count; i++) {
    const raw = tokens[i]?.raw ?? '';
    // The lexer did not split the text as we assume (it normalises some input): keep it all open.
    if (!source.startsWith(raw, consumed)) {
      return { finished: [], consumed: 0, open: tokens.slice() };
    }
    consumed += raw.length;
  }
  return { finished: tokens.slice(0, count), consumed, open: tokens.slice(count) };
}

/** The first of `tokens` spanning at most `maxChars` of source (at least one), or all of them. */
export function firstBlocksWithin<T extends { readonly raw: string }>(tokens: T[], maxChars: number): T[] {
  let chars = 0;
  for (let i = 0; i < tokens.length; i++) {
    chars += tokens[i]?.raw.length ?? 0;
    if (chars > maxChars && i > 0) {
      return tokens.slice(0, i);
    }
  }
  return tokens;
}
