/**
 * What makes a simple command impossible to judge by its words: it runs code that is not in
 * them (`eval`, `sh -c "$x"`, `python -c …`, a shell reading a pipe) or it is a piece of shell
 * syntax rather than a command (`if`, `{`, `for`). Such commands never match a rule.
 */

const shells = new Set(['sh', 'bash', 'zsh', 'dash', 'ksh', 'mksh', 'ash', 'fish', 'csh', 'tcsh', 'busybox', 'pwsh', 'powershell', 'cmd']);
const interpreters = new Set(['python', 'node', 'nodejs', 'perl', 'ruby', 'php', 'lua', 'luajit', 'deno', 'bun', 'osascript', 'tclsh', 'Rscript', 'julia', 'jshell', 'groovy']);
/** Flags that make an interpreter run the next argument as code. */
const inlineCodeFlags = new Set(['-c', '-e', '-E', '-p', '-r', '--eval', '--print', '-command', '/c', '/k', '-encodedcommand', '-ec']);
const evalLike = new Set(['eval', 'source', '.', 'exec', 'trap']);
const keywords = new Set(['if', 'then', 'else', 'elif', 'fi', 'for', 'while', 'until', 'do', 'done', 'case', 'esac', 'select', 'function', 'coproc', '{', '}', '!', '[[', ']]', 'time']);

/** Commands that run their arguments as another command; skipped to find the command that runs. */
const wrappers: Readonly<Record<string, { readonly valued: ReadonlySet<string>; readonly positional?: number }>> = {
  env: { valued: new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string']) },
  sudo: { valued: new Set(['-u', '-g', '-C', '-D', '-h', '-p', '-r', '-t', '-U']) },
  doas: { valued: new Set(['-u', '-C']) },
  nohup: { valued: new Set() },
  nice: { valued: new Set(['-n', '--adjustment']) },
  ionice: { valued: new Set(['-c', '-n', '-p']) },
  timeout: { valued: new Set(['-s', '--signal', '-k', '--kill-after']), positional: 1 },
  stdbuf: { valued: new Set(['-i', '-o', '-e']) },
  xargs: { valued: new Set(['-a', '-d', '-E', '-I', '-L', '-n', '-P', '-s', '--arg-file', '--delimiter', '--max-args', '--max-procs']) },
  command: { valued: new Set() },
  builtin: { valued: new Set() },
  unbuffer: { valued: new Set() },
  watch: { valued: new Set(['-n', '--interval', '-d']) },
  caffeinate: { valued: new Set() },
  chronic: { valued: new Set() },
};

/** `/usr/bin/Python3.11.exe` → `python3.11` → `python`. */
export function commandName(word: string): string {
  const base = word.split(/[\\/]/).pop() ?? word;
  const name = base.replace(/\.(exe|cmd|bat|com)$/i, '');
  const lower = name.toLowerCase();
  const stem = lower.replace(/[\d.]+$/, '');
  return shells.has(lower) || interpreters.has(lower) ? lower : shells.has(stem) || interpreters.has(stem) ? stem : name;
}

export function isShell(word: string): boolean {
  return shells.has(commandName(word));
}

/** The index of the word that actually runs, after `env X=1 sudo -u u nice -n 5 …`. */
export function effectiveIndex(argv: readonly string[]): number {
  let i = 0;
  while (i < argv.length) {
    const word = argv[i] ?? '';
    if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(word)) {
      i++;
      continue;
    }
    const wrapper = wrappers[commandName(word)];
    if (wrapper === undefined) {
      return i;
    }
    i++;
    let positional = wrapper.positional ?? 0;
    while (i < argv.length) {
      const arg = argv[i] ?? '';
      if (arg === '--') {
        i++;
        break;
      }
      if (/^[A-Za-z_][A-Za-z0-9_]*=/.test(arg)) {
        i++;
      } else if (arg.startsWith('-') && arg.length > 1) {
        i += wrapper.valued.has(arg) ? 2 : 1;
      } else if (positional > 0) {
        positional--;
        i++;
      } else {
        break;
      }
    }
  }
  return i;
}

export interface ShellScript {
  /** Index of the script argument of `sh -c SCRIPT`. */
  readonly scriptIndex: number;
}

/**
 * `bash -c SCRIPT [name args…]` (also `-lc`, `-ec`, `-l -c`): the script is judged as a command
 * of its own (Codex sends every command as `["/bin/bash", "-lc", "…"]`). Anything else with `-c`
 * somewhere is not followed.
 */
export function shellScript(argv: readonly string[], at: number): ShellScript | undefined {
  if (!isShell(argv[at] ?? '') || ['pwsh', 'powershell', 'cmd'].includes(commandName(argv[at] ?? ''))) {
    return undefined;
  }
  for (let i = at + 1; i < argv.length; i++) {
    const flag = argv[i] ?? '';
    if (!/^-[a-z]+$/.test(flag)) {
      return undefined;
    }
    if (flag.includes('c')) {
      return /^-[eilux]*c[eilux]*$/.test(flag) && i + 1 < argv.length ? { scriptIndex: i + 1 } : undefined;
    }
    if (!/^-[eilux]+$/.test(flag)) {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Why no rule may allow this simple command, looking through wrappers (`sudo`, `env`, `xargs`, …).
 * `pipedInto`: its stdin is the previous stage of a pipeline.
 */
export function commandBlockers(argv: readonly string[], pipedInto: boolean): string[] {
  const blockers: string[] = [];
  const first = argv[0] ?? '';
  if (keywords.has(first)) {
    blockers.push(`"${first}" is shell syntax, not a command`);
  }
  const at = effectiveIndex(argv);
  const word = argv[at];
  if (word === undefined) {
    return blockers;
  }
  const name = commandName(word);
  if (evalLike.has(name)) {
    blockers.push(`"${name}" runs text as code`);
  }
  if (pipedInto && (shells.has(name) || interpreters.has(name))) {
    blockers.push(`a pipe into ${name}`);
  }
  if (interpreters.has(name) || ['pwsh', 'powershell', 'cmd'].includes(name)) {
    const flag = argv.slice(at + 1).find((a) => inlineCodeFlags.has(a.toLowerCase()) || /^-[a-z]*[ce]$/i.test(a));
    if (flag !== undefined) {
      blockers.push(`inline ${name} code (${flag})`);
    }
  }
  if (shells.has(name) && !pipedInto && argv.slice(at + 1).some((a) => /^-[a-z]*c[a-z]*$/.test(a)) && shellScript(argv, at) === undefined) {
    blockers.push(`${name} -c with options that are not followed`);
  }
  return blockers;
}
