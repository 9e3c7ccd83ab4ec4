import type * as acp from '@agentclientprotocol/sdk';
import { analyzeRequest, describeTarget } from './analysis';
import { compileCommandPattern, matchesArgv, matchesPattern } from './commandPattern';
import { describeRule, pathGlob, pickOption } from './rules';
import type { CheckedTarget, PathTarget, PermissionRule, PolicyContext, PolicyDecision, RequestAnalysis, SimpleCommandTarget } from './types';

/**
 * The client-side permission policy, the same in the extension and in `hermes-acp-run`:
 *
 * 1. The request is analysed ({@link analyzeRequest}): every target, canonical; the kind judged
 *    from the content.
 * 2. `reject` and `ask` rules come first, in order: the first one that hits ANY target decides.
 * 3. Otherwise the request is allowed only if nothing forbids it — every target readable, none
 *    sensitive, none outside the workspace folders, no command with substitution, `eval`, a pipe
 *    into a shell, a redirection to a file … — and EVERY target is covered by some `allow` rule:
 *    each simple command by a rule whose command pattern matches it, each written path (and each
 *    read path of a non-command request) by a rule whose path glob matches it. A rule with
 *    neither `command` nor `path` covers everything of its kinds.
 * 4. Anything else is asked (the runner, with nobody to ask, denies).
 */
export class PermissionPolicy {
  constructor(
    private rules: readonly PermissionRule[],
    private readonly ctx: PolicyContext,
  ) {}

  setRules(rules: readonly PermissionRule[]): void {
    this.rules = rules;
  }

  get currentRules(): readonly PermissionRule[] {
    return this.rules;
  }

  get context(): PolicyContext {
    return this.ctx;
  }

  analyze(toolCall: acp.ToolCallUpdate): RequestAnalysis {
    return analyzeRequest(toolCall, this.ctx);
  }

  evaluate(request: acp.RequestPermissionRequest): PolicyDecision {
    const analysis = this.analyze(request.toolCall);
    const ci = this.ctx.semantics.caseInsensitive;
    for (const rule of this.rules) {
      if (rule.effect === 'allow' || !ruleHits(rule, analysis, ci)) {
        continue;
      }
      const label = describeRule(rule);
      if (rule.effect === 'ask') {
        return { effect: 'ask', reason: label, analysis };
      }
      const optionId = pickOption(request.options, 'reject');
      return optionId !== undefined
        ? { effect: 'reject', optionId, rule: label, analysis }
        : { effect: 'ask', reason: `${label} matched, but the agent offered no reject option`, analysis };
    }
    const forbidden = whyNotAllowed(analysis);
    if (forbidden !== undefined) {
      return { effect: 'ask', reason: forbidden, analysis };
    }
    const allows = this.rules.filter((r) => r.effect === 'allow' && kindMatches(r, analysis.kind));
    const needing = analysis.targets.filter((t) => t.type === 'command' || t.access === 'write' || analysis.kind !== 'execute');
    const used = new Set<PermissionRule>();
    for (const t of needing) {
      const rule = allows.find((r) => covers(r, t, ci));
      if (rule === undefined) {
        return { effect: 'ask', reason: `no rule allows ${describeTarget(t)}`, analysis };
      }
      used.add(rule);
    }
    if (needing.length === 0) {
      const rule = allows.find((r) => r.path === undefined && r.command === undefined && r.argv === undefined);
      if (rule === undefined) {
        return { effect: 'ask', reason: 'no rule matched', analysis };
      }
      used.add(rule);
    }
    const label = [...used].map(describeRule).join('; ');
    const optionId = pickOption(request.options, 'allow');
    return optionId !== undefined
      ? { effect: 'allow', optionId, rule: label, analysis }
      : { effect: 'ask', reason: `${label} matched, but the agent offered no allow option`, analysis };
  }
}

/** What keeps every rule from allowing this request, or undefined. */
export function whyNotAllowed(a: RequestAnalysis): string | undefined {
  if (a.problems.length > 0) {
    return `not every target could be read (${a.problems.join('; ')}): always asked`;
  }
  const sensitive = a.targets.find((t) => t.sensitive !== undefined);
  if (sensitive !== undefined) {
    return `${describeTarget(sensitive)}: sensitive, always asked`;
  }
  const outside = a.targets.find((t): t is PathTarget => t.type === 'path' && t.relative === undefined);
  if (outside !== undefined) {
    return `${outside.canonical} is outside the workspace folders: never allowed by a rule`;
  }
  const blocked = a.targets.find((t): t is SimpleCommandTarget => t.type === 'command' && t.blockers.length > 0);
  if (blocked !== undefined) {
    return `${describeTarget(blocked)}: never allowed by a rule`;
  }
  return undefined;
}

function kindMatches(rule: PermissionRule, kind: acp.ToolKind | undefined): boolean {
  return rule.kind === undefined || rule.kind.length === 0 || (kind !== undefined && rule.kind.includes(kind));
}

function commandMatches(rule: PermissionRule, argv: readonly string[]): boolean {
  if (rule.argv !== undefined) {
    return matchesArgv(rule.argv, rule.argvPrefix === true, argv);
  }
  if (rule.command === undefined) {
    return false;
  }
  const pattern = compileCommandPattern(rule.command);
  return typeof pattern !== 'string' && matchesPattern(pattern, argv);
}

function pathMatches(rule: PermissionRule, t: PathTarget, ci: boolean): boolean {
  return rule.path !== undefined && t.relative !== undefined && pathGlob(rule.path, ci)(t.relative);
}

/** Whether an allow rule covers one target (see the class comment). */
function covers(rule: PermissionRule, t: CheckedTarget, ci: boolean): boolean {
  const hasCommand = rule.command !== undefined || rule.argv !== undefined;
  if (!hasCommand && rule.path === undefined) {
    return true;
  }
  return t.type === 'command' ? rule.path === undefined && commandMatches(rule, t.argv) : !hasCommand && pathMatches(rule, t, ci);
}

/** Whether a reject/ask rule hits the request: its kinds, and any target for each condition it has. */
function ruleHits(rule: PermissionRule, a: RequestAnalysis, ci: boolean): boolean {
  if (!kindMatches(rule, a.kind)) {
    return false;
  }
  const hasCommand = rule.command !== undefined || rule.argv !== undefined;
  if (hasCommand && !a.targets.some((t) => t.type === 'command' && commandMatches(rule, t.argv))) {
    return false;
  }
  return rule.path === undefined || a.targets.some((t) => t.type === 'path' && pathMatches(rule, t, ci));
}
