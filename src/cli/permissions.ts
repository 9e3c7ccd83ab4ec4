import type * as acp from '@agentclientprotocol/sdk';
import { PermissionPolicy, type PermissionRule } from '../session/permissionPolicy';
import type { PermissionDecider } from '../session/sessionController';

/** `--permissions`: `deny`, `allow`, or a rules file in the extension's format. */
export type PermissionMode =
  | { readonly kind: 'deny' }
  | { readonly kind: 'allow' }
  | { readonly kind: 'rules'; readonly file: string; readonly rules: readonly PermissionRule[] };

export function describePermissionMode(mode: PermissionMode): string {
  return mode.kind === 'rules' ? `rules from ${mode.file}` : mode.kind;
}

/**
 * Answers permission requests without a human.
 *
 * - `deny`: a reject option (`reject_once`, else `reject_always`).
 * - `allow`: an allow option (`allow_once`, else `allow_always`) — through the same policy as the
 *   extension's rules, so sensitive paths (`.env`, `.git/`, keys) are never allowed automatically.
 * - rules: the first matching rule decides; `ask` (a rule, a sensitive path, or no rule matched)
 *   falls back to `deny`, since nobody is there to ask.
 *
 * When no reject option was offered, {@link decide} returns undefined and the caller answers
 * `cancelled` (which every agent treats as "not allowed").
 */
export class HeadlessPermissions implements PermissionDecider {
  private readonly policy: PermissionPolicy | undefined;
  private readonly reasons = new Map<string, string>();

  constructor(mode: PermissionMode, cwd: string) {
    if (mode.kind === 'allow') {
      this.policy = new PermissionPolicy([{ effect: 'allow', description: '--permissions allow' }], { cwd });
    } else if (mode.kind === 'rules') {
      this.policy = new PermissionPolicy(mode.rules, { cwd });
    }
  }

  decide(request: acp.RequestPermissionRequest): { readonly optionId: string; readonly rule: string } | undefined {
    const d = this.evaluate(request);
    this.reasons.set(request.toolCall.toolCallId, d.rule);
    return d.optionId !== undefined ? { optionId: d.optionId, rule: d.rule } : undefined;
  }

  /** The rule that decided the last request about this tool call (for the `permission` event); read once. */
  takeRuleFor(toolCallId: string): string | undefined {
    const rule = this.reasons.get(toolCallId);
    this.reasons.delete(toolCallId);
    return rule;
  }

  private evaluate(request: acp.RequestPermissionRequest): { readonly optionId: string | undefined; readonly rule: string } {
    if (this.policy === undefined) {
      return denyWith(request.options, '--permissions deny');
    }
    const d = this.policy.evaluate(request);
    if (d.effect !== 'ask') {
      return { optionId: d.optionId, rule: d.rule };
    }
    return denyWith(request.options, `${d.reason}; denied: nobody to ask in a headless run`);
  }
}

function denyWith(options: readonly acp.PermissionOption[], rule: string): { readonly optionId: string | undefined; readonly rule: string } {
  const option = options.find((o) => o.kind === 'reject_once') ?? options.find((o) => o.kind === 'reject_always');
  return option !== undefined
    ? { optionId: option.optionId, rule }
    : { optionId: undefined, rule: `${rule} (the agent offered no reject option: answered cancelled)` };
}
