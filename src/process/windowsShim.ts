/**
 * Running `.cmd` / `.bat` files on Windows. `CreateProcess` cannot start a batch file; Node
 * refuses to try without a shell since CVE-2024-27980 ("BatBadBut"); so the launcher starts
 * `cmd.exe /d /s /c "<line>"` itself, with every argument escaped for the two parsers it meets:
 *
 * 1. the C runtime's argument splitting of the program the batch file finally runs (npm's shims
 *    run `node … %*`): quote the argument, double the backslashes in front of a quote or the
 *    end, escape quotes as `\"`;
 * 2. cmd.exe itself, which expands `%VAR%` and `!VAR!` and acts on `& | < > ( ) ^` even inside
 *    quotes: each such character gets a `^`. A batch file passes its arguments through cmd a
 *    second time (`%*`), so arguments are caret-escaped twice, the batch file's path once.
 *
 * `/d` skips AutoRun commands from the registry, `/s` strips exactly the outer quotes of the line,
 * and the spawn must pass the arguments verbatim (`windowsVerbatimArguments`) so Node does not
 * quote them again.
 */

const cmdMetaChars = /([()\][%!^"`<>&|;, *?])/g;

/** One argument as the Microsoft C runtime splits command lines (`CommandLineToArgvW` rules). */
export function quoteWindowsArg(arg: string): string {
  let out = '"';
  let backslashes = 0;
  for (const ch of arg) {
    if (ch === '\\') {
      backslashes++;
      continue;
    }
    if (ch === '"') {
      out += '\\'.repeat(backslashes * 2 + 1) + '"';
    } else {
      out += '\\'.repeat(backslashes) + ch;
    }
    backslashes = 0;
  }
  return `${out}${'\\'.repeat(backslashes * 2)}"`;
}

/** Every character cmd.exe would act on, caret-escaped. */
export function escapeForCmd(s: string): string {
  return s.replace(cmdMetaChars, '^$1');
}

export function isBatchFile(file: string): boolean {
  return /\.(cmd|bat)$/i.test(file);
}

export interface ShimInvocation {
  readonly file: string;
  readonly args: readonly string[];
  /** The spawn must not quote `args` again. */
  readonly verbatim: true;
}

/** How to start the batch file `script` with `args` through `cmd.exe` (`comspec`). */
export function batchInvocation(script: string, args: readonly string[], comspec: string): ShimInvocation {
  const line = [escapeForCmd(quoteWindowsArg(script)), ...args.map((a) => escapeForCmd(escapeForCmd(quoteWindowsArg(a))))].join(' ');
  return { file: comspec, args: ['/d', '/s', '/c', `"${line}"`], verbatim: true };
}
