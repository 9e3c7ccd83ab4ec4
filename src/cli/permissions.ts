import type * as acp from '@agentclientprotocol/sdk';
import { hostSemantics } from '../permissions/canonicalPath';
import { hostPolicyContext } from '../permissions/nodeFs';
import { PermissionPolicy } from '../permissions/policy';
import { verdictOf } from '../permissions/remember';
import type { PathSemantics, PermissionRule } from '../permissions/types';
import type { PermissionDecider, PermissionVerdict } from '../session/sessionController';

/** `--permissions`: `deny`, `allow`, or a rules file in the extension's format. */
export type PermissionMode =
  | { readonly kind: 'deny' }
  | { readonly kind: 'allow' }
  | { readonly kind: 'rules'; readonly file: string; readonly rules: readonly PermissionRule[]; readonly sensitivePaths?: readonly string[] };

export function describePermissionMode(mode: PermissionMode): string {
  return mode.kind === 'rules' ? `rules from ${mode.file}` : mode.kind;
}

/**
 * Answers permission requests without a human, through the extension's policy
 * (src/permissions/policy.ts), so a rule means the same here as in the editor.
 *
 * - `deny`: a reject option (`reject_once`, else `reject_always`).
 * - `allow`: one rule that allows everything — still never a sensitive path, a target outside
 *   the working directory, an unreadable target or a command with substitution, `eval`, a pipe
 *   into a shell or a redirection to a file.
 * - rules: reject/ask rules first, then allow rules must cover every target; whatever would be
 *   asked in the editor (a rule, a sensitive path, no rule matched) is denied: nobody is there to ask.
 *
 * When no reject option was offered, {@link decide} returns no option and the caller answers
 * `cancelled` (which every agent treats as "not allowed").
 */
export class HeadlessPermissions implements PermissionDecider {
  private readonly policy: PermissionPolicy | undefined;
  private readonly reasons = new Map<string, string>();

  constructor(mode: PermissionMode, cwd: string) {
    const sensitive = mode.kind === 'rules' ? (mode.sensitivePaths ?? []) : [];
    const ctx = { ...hostPolicyContext(cwd, [cwd], sensitive), ...semanticsOverride(process.env.HERMES_ACP_PATH_SEMANTICS) };
    if (mode.kind === 'allow') {
      this.policy = new PermissionPolicy([{ effect: 'allow', description: '--permissions allow' }], ctx);
    } else if (mode.kind === 'rules') {
      this.policy = new PermissionPolicy(mode.rules, ctx);
    }
  }

  decide(request: acp.RequestPermissionRequest): PermissionVerdict {
    const v = this.evaluate(request);
    this.reasons.set(request.toolCall.toolCallId, v.rule);
    return v;
  }

  /** What decided the last request about this tool call (for the `permission` event); read once. */
  takeRuleFor(toolCallId: string): string | undefined {
    const rule = this.reasons.get(toolCallId);
    this.reasons.delete(toolCallId);
    return rule;
  }

  private evaluate(request: acp.RequestPermissionRequest): PermissionVerdict {
    if (this.policy === undefined) {
      return denyWith(request.options, '--permissions deny');
    }
    const v = verdictOf(this.policy.evaluate(request));
    if (v.optionId !== undefined) {
      return v;
    }
    const denied = denyWith(request.options, `${v.rule}; denied: nobody to ask in a headless run`);
    return { ...denied, check: { ...v.check, decision: denied.rule } };
  }
}

function denyWith(options: readonly acp.PermissionOption[], rule: string): PermissionVerdict {
  const option = options.find((o) => o.kind === 'reject_once') ?? options.find((o) => o.kind === 'reject_always');
  return option !== undefined ? { optionId: option.optionId, rule } : { rule: `${rule} (the agent offered no reject option: answered cancelled)` };
}

/**
 * `HERMES_ACP_PATH_SEMANTICS=win32|darwin|posix` judges paths as that platform's file system
 * would (separators, drive letters, case): to check a rules file meant for another platform, and
 * for the permission corpus, which runs Windows and macOS cases on Linux.
 */
function semanticsOverride(value: string | undefined): { semantics: PathSemantics } | undefined {
  return value === 'win32' || value === 'darwin' || value === 'posix' ? { semantics: hostSemantics(value === 'posix' ? 'linux' : value) } : undefined;
}
