import type * as acp from '@agentclientprotocol/sdk';
import picomatch from 'picomatch/posix';
import { isObject } from '../util/json';
import { compileCommandPattern } from './commandPattern';
import type { PermissionRule } from './types';

const kinds = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);

/**
 * A `path` glob: picomatch over the target's path relative to its workspace folder, `/`-separated.
 * `dot: true`: `*` and `**` match names that start with a dot (`src/**` covers `src/.eslintrc`;
 * the sensitive list, not the glob, keeps `.env` asked). `.` and `..` never occur (paths are
 * canonical). Case-insensitive where the file system is.
 */
const globs = new Map<string, (p: string) => boolean>();

export function pathGlob(glob: string, caseInsensitive: boolean): (p: string) => boolean {
  const key = `${caseInsensitive ? 'i' : 's'}\u0000${glob}`;
  let test = globs.get(key);
  if (test === undefined) {
    test = picomatch(glob.replace(/^\.\//, ''), { dot: true, nocase: caseInsensitive, windows: false });
    globs.set(key, test);
  }
  return test;
}

/** A glob that matches exactly one relative path (for remembered answers). */
export function literalGlob(relative: string): string {
  return relative.replace(/[\\*?[\]{}()!+@|]/g, '\\$&');
}

function pathProblem(glob: string): string | undefined {
  if (/^([a-z]:)?[\\/]/i.test(glob) || glob.startsWith('~')) {
    return 'path globs are relative to the workspace folder (targets outside it are never allowed by a rule)';
  }
  if (glob.split(/[\\/]/).includes('..')) {
    return 'path globs cannot climb with ".." (paths are resolved before matching)';
  }
  return undefined;
}

function commandProblem(command: string): string | undefined {
  const compiled = compileCommandPattern(command);
  return typeof compiled === 'string' ? compiled : undefined;
}

/**
 * Reads rules from untrusted JSON (settings, a rules file, remembered answers); a rule that cannot
 * be used is reported and left out, never guessed at.
 */
export function parseRules(raw: unknown): { rules: PermissionRule[]; problems: string[] } {
  const list = Array.isArray(raw) ? raw : isObject(raw) && Array.isArray(raw.rules) ? raw.rules : undefined;
  if (list === undefined) {
    return { rules: [], problems: raw === undefined ? [] : ['expected an array of rules (or {"rules": [...]})'] };
  }
  const rules: PermissionRule[] = [];
  const problems: string[] = [];
  (list as unknown[]).forEach((r, i) => {
    if (!isObject(r) || (r.effect !== 'allow' && r.effect !== 'ask' && r.effect !== 'reject')) {
      problems.push(`rule ${i}: "effect" must be "allow", "ask" or "reject"`);
      return;
    }
    const kindList = typeof r.kind === 'string' ? [r.kind] : Array.isArray(r.kind) ? r.kind : [];
    const validKinds = kindList.filter((k): k is acp.ToolKind => typeof k === 'string' && kinds.has(k));
    if (validKinds.length !== kindList.length) {
      // Dropping only the bad kind would widen the rule to every kind.
      problems.push(`rule ${i}: unknown tool kind in ${JSON.stringify(r.kind)}`);
      return;
    }
    const path = typeof r.path === 'string' ? r.path : undefined;
    const command = typeof r.command === 'string' ? r.command : undefined;
    const argv = Array.isArray(r.argv) && r.argv.length > 0 && r.argv.every((w) => typeof w === 'string') ? (r.argv) : undefined;
    const problem =
      (path !== undefined ? pathProblem(path) : undefined) ??
      (command !== undefined ? commandProblem(command) : undefined) ??
      (r.argv !== undefined && argv === undefined ? '"argv" must be a non-empty list of words' : undefined);
    if (problem !== undefined) {
      problems.push(`rule ${i}: ${problem}`);
      return;
    }
    rules.push({
      effect: r.effect,
      ...(validKinds.length > 0 ? { kind: validKinds } : {}),
      ...(path !== undefined ? { path } : {}),
      ...(command !== undefined ? { command } : {}),
      ...(argv !== undefined ? { argv, ...(r.argvPrefix === true ? { argvPrefix: true } : {}) } : {}),
      ...(r.scope === 'session' || r.scope === 'workspace' || r.scope === 'always' ? { scope: r.scope } : {}),
      ...(typeof r.description === 'string' ? { description: r.description } : {}),
    });
  });
  return { rules, problems };
}

/** Allow picks a one-time allow; reject a one-time reject (falling back to the `always` kinds). */
export function pickOption(options: readonly acp.PermissionOption[], effect: 'allow' | 'reject'): string | undefined {
  const order: acp.PermissionOptionKind[] = effect === 'allow' ? ['allow_once', 'allow_always'] : ['reject_once', 'reject_always'];
  for (const kind of order) {
    const o = options.find((x) => x.kind === kind);
    if (o !== undefined) {
      return o.optionId;
    }
  }
  return undefined;
}

export function describeRule(rule: PermissionRule): string {
  if (rule.description !== undefined && rule.description !== '') {
    return rule.description;
  }
  const parts: string[] = [rule.effect];
  if (rule.kind !== undefined && rule.kind.length > 0) {
    parts.push(rule.kind.join('/'));
  }
  if (rule.path !== undefined) {
    parts.push(`path ${rule.path}`);
  }
  if (rule.command !== undefined) {
    parts.push(`command ${rule.command}`);
  }
  if (rule.argv !== undefined) {
    parts.push(`command ${rule.argv.join(' ')}${rule.argvPrefix === true ? ' …' : ''}`);
  }
  if (rule.scope !== undefined && rule.scope !== 'always') {
    parts.push(`(${rule.scope})`);
  }
  return parts.join(' ');
}
