import type * as acp from '@agentclientprotocol/sdk';
import { isObject } from '../util/json';
import { matchGlob } from './glob';
import type { PermissionDecider } from './sessionController';

export type RuleEffect = 'allow' | 'ask' | 'reject';
export type RuleScope = 'session' | 'workspace' | 'always';

/**
 * A client-side permission rule, the same for every agent (`hermes.permissions.rules`, and the
 * runner's `--permissions` file). All given conditions must hold; the first matching rule wins.
 */
export interface PermissionRule {
  /** Tool kinds the rule covers (ACP `ToolKind`); any when absent. */
  readonly kind?: readonly acp.ToolKind[];
  /** Glob over the workspace-relative paths the request touches (locations, diffs, rawInput paths). */
  readonly path?: string;
  /** Glob over the command (`rawInput.command`, else the title), or a `/regex/`. */
  readonly command?: string;
  readonly effect: RuleEffect;
  readonly scope?: RuleScope;
  /** Shown on the card and in the traffic log as "rule: …". */
  readonly description?: string;
}

/** Paths always asked about, whatever the rules say (credentials, repository internals, keys). */
const sensitivePathGlobs = ['**/.env', '**/.env.*', '**/.env*', '**/.git/**', '.git/**', '**/.ssh/**', '**/id_rsa*', '**/id_ed25519*', '**/*.pem', '**/*.key'];

export interface PolicyContext {
  /** The workspace root paths are made relative to. */
  readonly cwd: string;
}

/** What the policy decided, and why. */
export type PolicyDecision =
  | { readonly effect: 'ask'; readonly reason: string }
  | { readonly effect: 'allow' | 'reject'; readonly optionId: string; readonly rule: string };

export class PermissionPolicy implements PermissionDecider {
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

  decide(request: acp.RequestPermissionRequest): { readonly optionId: string; readonly rule: string } | undefined {
    const d = this.evaluate(request);
    return d.effect === 'ask' ? undefined : { optionId: d.optionId, rule: d.rule };
  }

  evaluate(request: acp.RequestPermissionRequest): PolicyDecision {
    const facts = requestFacts(request.toolCall, this.ctx.cwd);
    const sensitive = facts.paths.find((p) => sensitivePathGlobs.some((g) => matchGlob(g, p)));
    for (const rule of this.rules) {
      if (!ruleMatches(rule, facts)) {
        continue;
      }
      const label = describeRule(rule);
      if (rule.effect === 'ask') {
        return { effect: 'ask', reason: label };
      }
      if (rule.effect === 'allow' && sensitive !== undefined) {
        return { effect: 'ask', reason: `${sensitive} is a sensitive path: always asked` };
      }
      const optionId = pickOption(request.options, rule.effect);
      if (optionId === undefined) {
        return { effect: 'ask', reason: `${label} matched, but the agent offered no ${rule.effect} option` };
      }
      return { effect: rule.effect, optionId, rule: label };
    }
    return { effect: 'ask', reason: 'no rule matched' };
  }
}

export interface RequestFacts {
  readonly kind: acp.ToolKind | undefined;
  /** Workspace-relative where inside it, absolute otherwise. */
  readonly paths: readonly string[];
  readonly command: string | undefined;
}

export function requestFacts(toolCall: acp.ToolCallUpdate, cwd: string): RequestFacts {
  const paths = new Set<string>();
  const add = (p: unknown): void => {
    if (typeof p === 'string' && p !== '') {
      for (const one of p.split(/,\s*(?=\/)/)) {
        paths.add(relativeTo(cwd, one));
      }
    }
  };
  for (const l of toolCall.locations ?? []) {
    add(l.path);
  }
  for (const c of toolCall.content ?? []) {
    if (c.type === 'diff') {
      add(c.path);
    }
  }
  const raw = toolCall.rawInput;
  let command: string | undefined;
  if (isObject(raw)) {
    for (const key of ['path', 'file_path', 'filePath', 'file']) {
      add(raw[key]);
    }
    if (isObject(raw.arguments)) {
      add(raw.arguments.path);
    }
    if (typeof raw.command === 'string') {
      command = raw.command;
    } else if (Array.isArray(raw.command)) {
      command = raw.command.filter((x): x is string => typeof x === 'string').join(' ');
    }
  }
  if (command === undefined && toolCall.kind === 'execute' && typeof toolCall.title === 'string') {
    command = toolCall.title;
  }
  return { kind: toolCall.kind ?? undefined, paths: [...paths], command };
}

function ruleMatches(rule: PermissionRule, f: RequestFacts): boolean {
  if (rule.kind !== undefined && rule.kind.length > 0 && (f.kind === undefined || !rule.kind.includes(f.kind))) {
    return false;
  }
  if (rule.path !== undefined && (f.paths.length === 0 || !f.paths.every((p) => matchGlob(rule.path ?? '', p)))) {
    return false;
  }
  if (rule.command !== undefined) {
    if (f.command === undefined) {
      return false;
    }
    const c = rule.command;
    const regex = /^\/(.*)\/([a-z]*)$/.exec(c);
    if (regex !== null) {
      try {
        if (!new RegExp(regex[1] ?? '', regex[2]).test(f.command)) {
          return false;
        }
      } catch {
        return false;
      }
    } else if (!matchGlob(c, f.command.trim())) {
      return false;
    }
  }
  return true;
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
  if (rule.scope !== undefined && rule.scope !== 'always') {
    parts.push(`(${rule.scope})`);
  }
  return parts.join(' ');
}

function relativeTo(cwd: string, p: string): string {
  const root = cwd.endsWith('/') ? cwd : `${cwd}/`;
  if (p.startsWith(root)) {
    return p.slice(root.length);
  }
  return p;
}

const kinds = new Set(['read', 'edit', 'delete', 'move', 'search', 'execute', 'think', 'fetch', 'switch_mode', 'other']);

/** Reads rules from untrusted JSON (settings, a rules file); invalid rules are reported, not cast. */
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
      problems.push(`rule ${i}: unknown tool kind in ${JSON.stringify(r.kind)}`);
    }
    rules.push({
      effect: r.effect,
      ...(validKinds.length > 0 ? { kind: validKinds } : {}),
      ...(typeof r.path === 'string' ? { path: r.path } : {}),
      ...(typeof r.command === 'string' ? { command: r.command } : {}),
      ...(r.scope === 'session' || r.scope === 'workspace' || r.scope === 'always' ? { scope: r.scope } : {}),
      ...(typeof r.description === 'string' ? { description: r.description } : {}),
    });
  });
  return { rules, problems };
}
