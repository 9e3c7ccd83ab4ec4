import type * as acp from '@agentclientprotocol/sdk';
import type { AgentIdentity } from './events';

/** Commands that run another program: the agent is the program they run, not them. */
const envLike = new Set(['env']);
const packageRunners = new Set(['npx', 'bunx', 'pnpx', 'uvx']);
const subcommandRunners: Readonly<Record<string, readonly string[]>> = { pnpm: ['dlx', 'exec'], yarn: ['dlx', 'exec'], npm: ['exec'], uv: ['run', 'tool'], pipx: ['run'], deno: ['run'] };
const interpreters = new Set(['node', 'nodejs', 'bun', 'deno', 'python', 'python3', 'tsx', 'ts-node']);
const shells = new Set(['sh', 'bash', 'zsh', 'dash']);
/** Options of the runners above that take a value (so the value is not the program). */
const optionsWithValue = new Set(['-u', '--unset', '-C', '--chdir', '-S', '--split-string', '-p', '--package', '--from', '--with', '-r', '--require', '--import', '--loader', '-m']);
/** Script names that say nothing: the package directory names the program instead. */
const genericScripts = new Set(['index', 'main', 'cli', 'bin', 'run', 'start', 'server', 'agent']);
const buildDirs = new Set(['dist', 'bin', 'lib', 'build', 'out', 'src', 'cjs', 'esm']);

/**
 * `system.agent`: the agent's `agentInfo`, else the name of the program really run — looking
 * through `env VAR=… cmd`, `npx -y pkg@1.2`, `node …/pkg/dist/index.js`, `sh -c "exec cmd …"`.
 */
export function agentIdentity(info: acp.Implementation | null | undefined, command: string, args: readonly string[]): AgentIdentity {
  if (info === undefined || info === null || info.name === '') {
    return { name: executableName(command, args), version: null };
  }
  return {
    name: info.name,
    ...(typeof info.title === 'string' && info.title !== '' ? { title: info.title } : {}),
    version: info.version,
  };
}

export function executableName(command: string, args: readonly string[], depth = 0): string {
  // Either separator: a Windows path in settings names a program the same way on any host.
  const base = stripExe(command.split(/[\\/]/).pop() ?? command);
  if (depth > 4) {
    return base;
  }
  const rest = [...args];
  if (envLike.has(base)) {
    const program = firstProgram(rest, (a) => /^[A-Za-z_][A-Za-z0-9_]*=/.test(a));
    return program === undefined ? base : executableName(program.value, program.after, depth + 1);
  }
  if (packageRunners.has(base) || (subcommandRunners[base]?.includes(rest[0] ?? '') ?? false)) {
    const program = firstProgram(packageRunners.has(base) ? rest : rest.slice(1), () => false);
    return program === undefined ? base : executableName(packageName(program.value), program.after, depth + 1);
  }
  if (interpreters.has(base) || /^python\d/.test(base)) {
    const m = rest.indexOf('-m');
    const module = m >= 0 ? rest[m + 1] : undefined;
    if (module !== undefined && base.startsWith('python')) {
      return module;
    }
    const program = firstProgram(base === 'deno' && rest[0] === 'run' ? rest.slice(1) : rest, () => false);
    return program === undefined ? base : scriptName(program.value);
  }
  if (shells.has(base)) {
    const c = rest.indexOf('-c');
    const script = c >= 0 ? rest[c + 1] : undefined;
    const words = script?.trim().split(/\s+/).filter((w) => w !== 'exec') ?? [];
    const [first, ...more] = words;
    return first === undefined ? base : executableName(first, more, depth + 1);
  }
  return base;
}

/** The first argument that is neither an option (nor its value) nor skipped; and what follows it. */
function firstProgram(args: readonly string[], skip: (a: string) => boolean): { readonly value: string; readonly after: readonly string[] } | undefined {
  for (let i = 0; i < args.length; i++) {
    const a = args[i] ?? '';
    if (a === '--') {
      const value = args[i + 1];
      return value === undefined ? undefined : { value, after: args.slice(i + 2) };
    }
    if (a.startsWith('-')) {
      if (optionsWithValue.has(a)) {
        i++;
      }
      continue;
    }
    if (!skip(a)) {
      return { value: a, after: args.slice(i + 1) };
    }
  }
  return undefined;
}

/** `@zed-industries/codex-acp@0.16.0` → `codex-acp`. */
function packageName(spec: string): string {
  const noVersion = spec.replace(/(.)@[^/@]*$/, '$1');
  return stripExe(noVersion.split('/').pop() ?? noVersion);
}

/** `…/node_modules/@scope/pkg/dist/index.js` → `pkg`; `…/scriptedAgent.js` → `scriptedAgent`. */
function scriptName(script: string): string {
  const parts = script.split(/[\\/]/).filter((p) => p !== '');
  const nm = parts.lastIndexOf('node_modules');
  if (nm >= 0) {
    const scoped = parts[nm + 1]?.startsWith('@') === true;
    const name = parts[nm + (scoped ? 2 : 1)];
    if (name !== undefined) {
      return name;
    }
  }
  const file = parts.pop() ?? script;
  const stem = file.replace(/\.(?:[cm]?[jt]s|py)$/, '');
  if (!genericScripts.has(stem)) {
    return stem;
  }
  for (let i = parts.length - 1; i >= 0; i--) {
    const dir = parts[i];
    if (dir !== undefined && !buildDirs.has(dir)) {
      return dir;
    }
  }
  return stem;
}

function stripExe(name: string): string {
  return name.replace(/\.(?:exe|cmd|bat)$/i, '');
}
