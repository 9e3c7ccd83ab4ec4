import picomatch from 'picomatch/posix';
import { analyzeCommandText } from './shellCommand';

/**
 * A `command` pattern of a rule, compared with ONE simple command at a time (so `ls *` can never
 * cover the `rm` in `ls; rm -rf ~`). The pattern is read with the same shell parser as commands:
 * its words are matched one to one with the command's argv, each word a glob over one argument
 * (`*` within a word never crosses `/`); a last word that is a bare `*` takes any further
 * arguments, including none. So `npm test` is exactly `npm test`, `npm test *` is `npm test`
 * with any arguments, `git log --oneline -n *` needs exactly one more word.
 */
export interface CommandPattern {
  readonly source: string;
  readonly words: readonly ((w: string) => boolean)[];
  readonly rest: boolean;
  readonly regex?: RegExp;
}

const cache = new Map<string, CommandPattern | string>();

/** The compiled pattern, or why it cannot be one. */
export function compileCommandPattern(source: string): CommandPattern | string {
  const hit = cache.get(source);
  if (hit !== undefined) {
    return hit;
  }
  const result = compile(source);
  cache.set(source, result);
  return result;
}

function compile(source: string): CommandPattern | string {
  const regex = /^\/(.*)\/([a-z]*)$/.exec(source.trim());
  if (regex !== null) {
    // A `/regex/` is tested against each simple command's words joined by single spaces.
    let re: RegExp;
    try {
      re = new RegExp(regex[1] ?? '', (regex[2] ?? '').replace(/[gy]/g, ''));
    } catch (e) {
      return `invalid regular expression: ${e instanceof Error ? e.message : String(e)}`;
    }
    return { source, rest: false, words: [], regex: re };
  }
  const parsed = analyzeCommandText(source);
  const only = parsed.commands[0];
  if (parsed.problems.length > 0 || parsed.commands.length !== 1 || only === undefined || parsed.writes.length > 0 || parsed.reads.length > 0) {
    return 'a command pattern must be one simple command, without ;, &&, |, redirections or newlines';
  }
  if (only.blockers.some((b) => b.startsWith('command substitution') || b.startsWith('the variable'))) {
    return 'a command pattern cannot contain $ expansions or backticks';
  }
  const words = [...only.argv];
  const rest = words.length > 1 && words[words.length - 1] === '*';
  if (rest) {
    words.pop();
  }
  return {
    source,
    rest,
    words: words.map((w) => {
      const glob = picomatch(w, { dot: true, windows: false });
      // A word the shell would expand (`*.txt`) is only covered by the same text: its expansion is
      // unknown when the request is judged.
      return (arg: string) => (isGlobWord(arg) ? arg === w : glob(arg));
    }),
  };
}

function isGlobWord(w: string): boolean {
  return /[*?[]/.test(w);
}

export function matchesPattern(pattern: CommandPattern, argv: readonly string[]): boolean {
  if (pattern.regex !== undefined) {
    return argv.length > 0 && pattern.regex.test(argv.join(' '));
  }
  if (argv.length < pattern.words.length || (!pattern.rest && argv.length !== pattern.words.length)) {
    return false;
  }
  return pattern.words.every((test, i) => test(argv[i] ?? ''));
}

/** A remembered argv: exactly these words, or (prefix) these words followed by any. */
export function matchesArgv(remembered: readonly string[], prefix: boolean, argv: readonly string[]): boolean {
  if (remembered.length === 0 || argv.length < remembered.length || (!prefix && argv.length !== remembered.length)) {
    return false;
  }
  return remembered.every((w, i) => argv[i] === w);
}
