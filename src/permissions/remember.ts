import type * as acp from '@agentclientprotocol/sdk';
import { describeTarget } from './analysis';
import { whyNotAllowed } from './policy';
import { literalGlob } from './rules';
import type { PermissionCheckView } from '../protocol/sessionView';
import type { PermissionRule, PolicyDecision, RequestAnalysis, RuleScope } from './types';

/** What a {@link PolicyDecision} means for the session: answer with an option, or ask and show why. */
export function verdictOf(d: PolicyDecision): { readonly optionId?: string; readonly rule: string; readonly check: PermissionCheckView } {
  const decision = d.effect === 'ask' ? d.reason : `rule: ${d.rule}`;
  const check = checkOf(d.analysis, decision);
  return d.effect === 'ask' ? { rule: d.reason, check } : { optionId: d.optionId, rule: d.rule, check };
}

export function checkOf(a: RequestAnalysis, decision: string): PermissionCheckView {
  const commands = a.targets.filter((t) => t.type === 'command');
  const only = commands.length === 1 ? commands[0] : undefined;
  const rememberable = only?.type === 'command' && only.argv.length > 0 && whyNotAllowed(a) === undefined;
  return { targets: a.targets.map(describeTarget), decision, ...(rememberable ? { argv: only.argv } : {}) };
}

export type Remembered = { readonly rules: readonly PermissionRule[] } | { readonly notRemembered: string };

/**
 * The rules an "always" answer stores: for commands, the exact argv of each simple command (or,
 * for a single command, the prefix of `prefixLength` words the user picked on the card) — never a
 * pattern of the text; for files, each exact workspace path. Nothing is stored for what no rule
 * could allow anyway (sensitive, outside, unreadable, substitutions …); the card says so.
 */
export function rulesToRemember(
  a: RequestAnalysis,
  option: acp.PermissionOption,
  scope: Exclude<RuleScope, 'always'>,
  prefixLength?: number,
): Remembered {
  const effect = option.kind === 'allow_always' ? 'allow' : option.kind === 'reject_always' ? 'reject' : undefined;
  if (effect === undefined) {
    return { rules: [] };
  }
  if (a.problems.length > 0 || (effect === 'allow' && whyNotAllowed(a) !== undefined)) {
    return { notRemembered: whyNotAllowed(a) ?? 'not every target could be read' };
  }
  const where = scope === 'workspace' ? 'this workspace' : 'this session';
  const describe = (what: string): string => `you chose "${option.name}" for ${what} (${where})`;
  const commands = a.targets.filter((t) => t.type === 'command');
  if (commands.length > 0) {
    return {
      rules: commands.map((t) => {
        const prefix = commands.length === 1 && prefixLength !== undefined && prefixLength >= 1 && prefixLength < t.argv.length;
        const argv = prefix ? t.argv.slice(0, prefixLength) : t.argv;
        const what = prefix ? `${describeTarget({ ...t, argv, blockers: [] })} …` : describeTarget(t);
        return { effect, kind: ['execute'], argv, ...(prefix ? { argvPrefix: true } : {}), scope, description: describe(what) };
      }),
    };
  }
  const paths = a.targets.filter((t) => t.type === 'path' && t.relative !== undefined);
  const kind = a.kind !== undefined ? { kind: [a.kind] } : {};
  if (paths.length > 0) {
    return {
      rules: paths.map((t) => ({ effect, ...kind, path: literalGlob(t.type === 'path' ? (t.relative ?? '') : ''), scope, description: describe(describeTarget(t)) })),
    };
  }
  if (a.targets.length > 0 || a.kind === undefined) {
    return { notRemembered: 'nothing in this request can be remembered as a rule' };
  }
  return { rules: [{ effect, kind: [a.kind], scope, description: describe(`every ${a.kind} request`) }] };
}
