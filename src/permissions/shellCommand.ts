import parse from 'shell-quote/parse';
import { commandBlockers, effectiveIndex, isShell, shellScript } from './commandRisk';
import { hasUnusualSpace, splitShellLines } from './shellLines';

/**
 * A command as the policy sees it: its simple commands (pipeline stages and the parts of
 * `a; b && c || d &`), each with its argv and what keeps a rule from allowing it, plus the files
 * its redirections name. Parsing is `shell-quote`'s (POSIX quoting, operators, globs, comments);
 * `shellLines.ts` covers what it gets wrong.
 */
export interface SimpleCommand {
  readonly argv: readonly string[];
  readonly blockers: readonly string[];
}

export interface ParsedCommand {
  readonly commands: readonly SimpleCommand[];
  /** Files written by `>`, `>>`, `&>`, `>|`, `<>` (a redirect to a path never matches a rule). */
  readonly writes: readonly string[];
  /** Files read by `<`. */
  readonly reads: readonly string[];
  /** The command could not be read at all (the request is asked). */
  readonly problems: readonly string[];
}

/** What shell-quote yields once variable expansions are made visible (see {@link expansion}). */
type Token = string | { readonly op: string; readonly pattern?: string } | { readonly comment: string } | { readonly expansion: string };

/** shell-quote substitutes variables through this callback: return a marker instead of a value. */
function expansion(name: string): { expansion: string } {
  return { expansion: name };
}

const separators = new Set([';', '&&', '||', '&', ';;', ';&', ';;&', '(', ')']);
const pipes = new Set(['|', '|&']);
const writeRedirects = new Set(['>', '>>', '>|', '&>', '&>>', '<>']);
const harmlessTargets = new Set(['/dev/null', '/dev/stdout', '/dev/stderr']);
const maxDepth = 3;

interface Draft {
  argv: string[];
  blockers: string[];
  pipedInto: boolean;
}

class Collector {
  readonly commands: SimpleCommand[] = [];
  readonly writes: string[] = [];
  readonly reads: string[] = [];
  readonly problems: string[] = [];
  private draft: Draft = { argv: [], blockers: [], pipedInto: false };

  constructor(private readonly depth: number) {}

  word(w: string): void {
    if (w.includes('`')) {
      this.draft.blockers.push('command substitution with backticks');
    }
    this.draft.argv.push(w);
  }

  block(why: string): void {
    this.draft.blockers.push(why);
  }

  end(pipe: boolean): void {
    const d = this.draft;
    this.draft = { argv: [], blockers: [], pipedInto: pipe };
    if (d.argv.length === 0) {
      if (d.blockers.length > 0) {
        this.commands.push({ argv: [], blockers: [...new Set(d.blockers)] });
      }
      return;
    }
    const at = effectiveIndex(d.argv);
    const script = d.pipedInto ? undefined : shellScript(d.argv, at);
    const inner = script !== undefined ? d.argv[script.scriptIndex] : undefined;
    if (inner !== undefined && this.depth < maxDepth && d.blockers.length === 0 && at === 0) {
      // `bash -lc "…"` (Codex): judge the script itself.
      this.merge(analyzeCommandText(inner, this.depth + 1));
      return;
    }
    this.commands.push({ argv: d.argv, blockers: [...new Set([...d.blockers, ...commandBlockers(d.argv, d.pipedInto)])] });
  }

  merge(other: ParsedCommand): void {
    this.commands.push(...other.commands);
    this.writes.push(...other.writes);
    this.reads.push(...other.reads);
    this.problems.push(...other.problems);
  }
}

function isOp(t: Token | undefined): t is { readonly op: string; readonly pattern?: string } {
  return typeof t === 'object' && 'op' in t;
}

/** Parses one line of shell text into `out`. */
function parseLine(line: string, out: Collector): void {
  let tokens: Token[];
  try {
    tokens = parse(line, expansion);
  } catch (e) {
    out.problems.push(`cannot parse ${JSON.stringify(line)}: ${e instanceof Error ? e.message : String(e)}`);
    return;
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t === undefined) {
      continue;
    }
    if (typeof t === 'string') {
      out.word(t);
    } else if ('expansion' in t) {
      out.block(t.expansion === '' || /[^\w]/.test(t.expansion) ? 'command substitution or a complex expansion' : `the variable $${t.expansion}`);
      out.word(`$${t.expansion}`);
    } else if ('comment' in t) {
      // shell-quote starts a comment at any unquoted `#`; a shell only at the start of a word.
      const at = line.length - t.comment.length - 1;
      if (at > 0 && !/\s/.test(line.charAt(at - 1))) {
        out.block('a "#" inside a word (read as a comment by the parser, not by a shell)');
      }
      break;
    } else if (t.op === 'glob') {
      out.word(t.pattern ?? '');
    } else if (separators.has(t.op)) {
      out.end(false);
    } else if (pipes.has(t.op)) {
      out.end(true);
    } else if (t.op === '<(' || t.op === '>(') {
      out.block('process substitution');
      out.end(false);
    } else {
      i += redirect(t.op, tokens[i + 1], out);
    }
  }
}

/** Handles a redirection operator and its target; returns how many tokens it consumed beyond the operator. */
function redirect(op: string, next: Token | undefined, out: Collector): number {
  if (op === '<<' || op === '<<-') {
    out.block('a here-document');
    return typeof next === 'string' ? 1 : 0;
  }
  if (op === '<<<') {
    return typeof next === 'string' ? 1 : 0;
  }
  if (typeof next !== 'string' || isOp(next)) {
    out.block(`a redirection (${op}) to something that is not a plain path`);
    return next === undefined || isOp(next) ? 0 : 1;
  }
  if ((op === '>&' || op === '<&') && /^(\d+|-)$/.test(next)) {
    return 1;
  }
  if (harmlessTargets.has(next)) {
    return 1;
  }
  if (op === '<') {
    out.reads.push(next);
  } else if (writeRedirects.has(op) || op === '>&') {
    out.writes.push(next);
    out.block(`output redirected to ${next}`);
  } else {
    out.block(`the redirection ${op}`);
  }
  return 1;
}

/** A command given as shell text (`rawInput.command` as a string, `cmd`, `script`). */
export function analyzeCommandText(text: string, depth = 0): ParsedCommand {
  const out = new Collector(depth);
  if (hasUnusualSpace(text)) {
    out.problems.push('the command contains control characters or unusual whitespace');
    return out;
  }
  const split = splitShellLines(text);
  if ('problem' in split) {
    out.problems.push(`cannot parse the command: ${split.problem}`);
    return out;
  }
  for (const line of split.lines) {
    parseLine(line, out);
    out.end(false);
  }
  if (out.commands.length === 0 && out.problems.length === 0) {
    out.problems.push('the command is empty');
  }
  return out;
}

/**
 * A command given as an argv array (Codex: `["/bin/bash", "-lc", "…"]`): run without a shell, so
 * its words are taken literally, except the script of `sh -c`, which is shell text.
 */
export function analyzeArgv(argv: readonly string[]): ParsedCommand {
  const out = new Collector(0);
  if (argv.length === 0 || argv.some((w) => w.includes('\0'))) {
    out.problems.push('an empty command or one with NUL characters');
    return out;
  }
  const script = isShell(argv[0] ?? '') ? shellScript(argv, 0) : undefined;
  const inner = script !== undefined ? argv[script.scriptIndex] : undefined;
  if (inner !== undefined) {
    return analyzeCommandText(inner, 1);
  }
  out.commands.push({ argv, blockers: commandBlockers(argv, false) });
  return out;
}
