/**
 * Guards for the gaps of `shell-quote` (checked in test/unit/permissions/shellCommand.test.ts):
 * it reads an unquoted newline as plain whitespace (`ls\nrm -rf ~` becomes one command `ls rm -rf ~`)
 * and silently drops an unterminated quote. Before parsing, a command is therefore cut at its
 * unquoted newlines (each line is a command of its own, as in a shell script), backslash-newline
 * continuations are joined, and an unterminated quote or a trailing backslash is a problem.
 * This is a quote tracker, not a parser: what it cannot follow (quotes nested in `$(…)`) only
 * contains constructs that never match a rule anyway.
 */
export type ShellLines = { readonly lines: readonly string[] } | { readonly problem: string };

/** Whitespace a shell treats as part of a word but `shell-quote` splits on (or the reverse). */
const unusualSpace = /[\r\v\f\u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000\ufeff\0]/;

export function hasUnusualSpace(text: string): boolean {
  return unusualSpace.test(text);
}

const wordBreak = /[\s;&|()<>]/;

export function splitShellLines(text: string): ShellLines {
  const lines: string[] = [];
  let line = '';
  let quote: 'none' | 'single' | 'double' | 'ansi' = 'none';
  for (let i = 0; i < text.length; i++) {
    const c = text.charAt(i);
    const next = text.charAt(i + 1);
    if (quote === 'single') {
      line += c;
      quote = c === "'" ? 'none' : quote;
      continue;
    }
    if (quote === 'double' || quote === 'ansi') {
      if (c === '\\' && i + 1 < text.length) {
        line += c + next;
        i++;
        continue;
      }
      line += c;
      if ((quote === 'double' && c === '"') || (quote === 'ansi' && c === "'")) {
        quote = 'none';
      }
      continue;
    }
    if (c === '\\') {
      if (i + 1 >= text.length) {
        return { problem: 'ends with a backslash' };
      }
      // Backslash-newline is a line continuation: both characters go.
      line += next === '\n' ? '' : c + next;
      i++;
    } else if (c === '\n') {
      lines.push(line);
      line = '';
    } else if (c === '#' && (line === '' || wordBreak.test(line.charAt(line.length - 1)))) {
      // A comment runs to the end of the line; quotes inside it are not quotes.
      const end = text.indexOf('\n', i);
      line += end < 0 ? text.slice(i) : text.slice(i, end);
      i = (end < 0 ? text.length : end) - 1;
    } else {
      if (c === "'") {
        quote = 'single';
      } else if (c === '"') {
        quote = 'double';
      } else if (c === '$' && next === "'") {
        quote = 'ansi';
        line += c;
        i++;
        line += next;
        continue;
      }
      line += c;
    }
  }
  if (quote !== 'none') {
    return { problem: `an unterminated ${quote === 'double' ? 'double' : 'single'} quote` };
  }
  lines.push(line);
  return { lines: lines.filter((l) => l.trim() !== '') };
}
