import type * as acp from '@agentclientprotocol/sdk';
import { canonicalize, comparisonKey, locateInRoots, pathApi, type CanonicalInput } from './canonicalPath';
import { accessFor, judgeKind, rawTargets } from './requestTargets';
import { sensitiveMatch } from './sensitive';
import { analyzeArgv, analyzeCommandText } from './shellCommand';
import type { CheckedTarget, PathTarget, PolicyContext, RequestAnalysis, TargetAccess } from './types';

const fileKinds = new Set<acp.ToolKind>(['read', 'edit', 'delete', 'move']);

/**
 * Turns a permission request into every target it can touch, each canonical and located: the
 * part of the policy that does not depend on rules. Pure apart from the injected file system.
 */
export function analyzeRequest(toolCall: acp.ToolCallUpdate, ctx: PolicyContext): RequestAnalysis {
  const raw = rawTargets(toolCall);
  const declaredKind = toolCall.kind ?? undefined;
  const kind = judgeKind(declaredKind, raw);
  const problems = [...raw.problems];
  const input: CanonicalInput = { cwd: ctx.cwd, home: ctx.home, semantics: ctx.semantics, fs: ctx.fs };
  const roots = (ctx.roots ?? [ctx.cwd]).flatMap((r) => {
    const c = canonicalize(r, input);
    return 'canonical' in c ? [c.canonical] : [];
  });
  const paths = new Map<string, PathTarget>();
  const addPath = (value: string, source: string, access: TargetAccess, base: CanonicalInput): void => {
    const c = canonicalize(value, base);
    if ('problem' in c) {
      problems.push(`${source}: ${c.problem}`);
      return;
    }
    const key = `${access}\u0000${comparisonKey(c.canonical, ctx.semantics)}`;
    if (paths.has(key)) {
      return;
    }
    paths.set(key, {
      type: 'path',
      access,
      raw: value,
      source,
      canonical: c.canonical,
      relative: locateInRoots(c.canonical, roots, ctx.semantics),
      sensitive: sensitiveMatch(value, ctx.sensitive) ?? sensitiveMatch(c.canonical, ctx.sensitive),
    });
  };
  for (const p of raw.paths) {
    addPath(p.value, p.source, accessFor(kind, p), input);
  }
  const commands: CheckedTarget[] = [];
  const commandIndex = new Map<string, number>();
  const commandCwd = raw.commandCwd !== undefined ? pathApi(ctx.semantics).resolve(ctx.cwd, raw.commandCwd) : ctx.cwd;
  if (raw.commands.length > 0 && raw.commandCwd !== undefined) {
    // The folder a command runs in must be inside the workspace like any other target.
    addPath(raw.commandCwd, 'rawInput.cwd', 'read', input);
  }
  for (const c of raw.commands) {
    const parsed = 'text' in c ? analyzeCommandText(c.text) : analyzeArgv(c.argv);
    problems.push(...parsed.problems.map((p) => `${c.source}: ${p}`));
    for (const sc of parsed.commands) {
      const sensitive = sc.argv.map((w) => sensitiveMatch(w, ctx.sensitive)).find((s) => s !== undefined);
      // One command named twice (Codex: the argv `bash -lc …` and its `parsed_cmd`) is one target, with both sets of blockers.
      const key = sc.argv.join('\u0000');
      const seen = commandIndex.get(key) ?? -1;
      const known = commands[seen];
      if (known?.type === 'command') {
        commands[seen] = { ...known, blockers: [...new Set([...known.blockers, ...sc.blockers])], sensitive: known.sensitive ?? sensitive };
        continue;
      }
      commandIndex.set(key, commands.length);
      commands.push({ type: 'command', argv: sc.argv, blockers: sc.blockers, sensitive });
    }
    for (const w of parsed.writes) {
      addPath(w, `${c.source} (redirect)`, 'write', { ...input, cwd: commandCwd });
    }
    for (const r of parsed.reads) {
      addPath(r, `${c.source} (redirect)`, 'read', { ...input, cwd: commandCwd });
    }
  }
  if (kind === 'execute' && commands.length === 0 && problems.length === 0) {
    problems.push('no command to check');
  }
  if (kind !== undefined && fileKinds.has(kind) && paths.size === 0 && problems.length === 0) {
    problems.push(`a request of kind ${kind} that names no file`);
  }
  return { declaredKind, kind, targets: [...commands, ...paths.values()], problems };
}

/** A word as a shell would need it written (display only). */
function shellWord(w: string): string {
  return /^[\w@%+=:,./~*?^-]+$/.test(w) ? w : `'${w.replace(/'/g, "'\\''")}'`;
}

/** One line per target, for the card and the traffic log. */
export function describeTarget(t: CheckedTarget): string {
  if (t.type === 'command') {
    const notes = [...t.blockers, ...(t.sensitive !== undefined ? [`names a sensitive file (${t.sensitive})`] : [])];
    return `run ${t.argv.map(shellWord).join(' ')}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
  }
  const notes = [...(t.relative === undefined ? ['outside the workspace'] : []), ...(t.sensitive !== undefined ? [`sensitive: ${t.sensitive}`] : [])];
  const where = t.relative === undefined ? t.canonical : t.relative === '' ? '.' : t.relative;
  return `${t.access === 'write' ? 'write' : 'read'} ${where}${notes.length > 0 ? ` (${notes.join('; ')})` : ''}`;
}
