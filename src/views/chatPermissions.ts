import type * as acp from '@agentclientprotocol/sdk';
import { hostPolicyContext } from '../permissions/nodeFs';
import { PermissionPolicy } from '../permissions/policy';
import { rulesToRemember, verdictOf } from '../permissions/remember';
import type { PermissionRule, PolicyContext } from '../permissions/types';
import type { PermissionDecider, PermissionVerdict } from '../session/permissionDecider';
import type { SessionController } from '../session/sessionController';

export interface ChatPermissionOptions {
  readonly cwd: string;
  /** The client-side rules (settings, and answers remembered for the workspace). */
  readonly rules?: () => readonly PermissionRule[];
  /** Where an answer of kind allow_always / reject_always is remembered as a rule. */
  readonly rememberAlways?: () => 'off' | 'session' | 'workspace';
  /** Stores a rule remembered for the workspace. */
  readonly rememberForWorkspace?: (rule: PermissionRule) => void;
  /** Workspace folders, extra sensitive paths…: what the policy checks against (default: this machine, `cwd` as the only folder). */
  readonly permissionContext?: () => PolicyContext;
}

/**
 * One chat's side of the permission policy (src/permissions/policy.ts): decides requests before
 * the user sees them, logs what was checked and what decided to the traffic log, and keeps what
 * "always" answers remember for the session.
 */
export class ChatPermissions implements PermissionDecider {
  /** Rules remembered from this session's "always" answers. */
  private readonly sessionRules: PermissionRule[] = [];

  constructor(
    private readonly options: ChatPermissionOptions,
    private readonly log: { note(text: string): unknown },
  ) {}

  decide(request: acp.RequestPermissionRequest): PermissionVerdict {
    const verdict = verdictOf(this.policy().evaluate(request));
    // The traffic log shows what was checked and what decided, next to the request itself.
    this.log.note(`permission ${request.toolCall.toolCallId}: ${verdict.check.decision}; checked: ${verdict.check.targets.join(' | ') || 'nothing'}`);
    return verdict;
  }

  /**
   * The user answered a pending request. An "always" answer also becomes client rules (per
   * `hermes.permissions.rememberAlways`): the exact argv of each command — or the prefix of
   * `rememberPrefix` words the user picked on the card — or each exact file; never a pattern of
   * the text. They answer matching requests, the ones already waiting included.
   */
  choose(controller: SessionController, requestId: string, optionId: string, answeredBy: string, rememberPrefix?: number): boolean {
    const pending = controller.pendingPermissions.find((p) => p.requestId === requestId);
    const option = pending?.request.options.find((o) => o.optionId === optionId);
    if (pending === undefined || option === undefined) {
      return false;
    }
    const scope = this.options.rememberAlways?.() ?? 'session';
    const always = option.kind === 'allow_always' || option.kind === 'reject_always';
    const memory = always && scope !== 'off' ? rulesToRemember(this.policy().analyze(pending.request.toolCall), option, scope, rememberPrefix) : { rules: [] };
    const rules = 'rules' in memory ? memory.rules : [];
    const remembered =
      'notRemembered' in memory ? `Not remembered: ${memory.notRemembered}` : rules.length > 0 ? `Remembered: ${rules.map((r) => r.description ?? '').join('; ')}` : undefined;
    if (!controller.choosePermission(requestId, optionId, answeredBy, remembered)) {
      return false;
    }
    for (const rule of rules) {
      if (scope === 'workspace') {
        this.options.rememberForWorkspace?.(rule);
      } else {
        this.sessionRules.push(rule);
      }
    }
    if (rules.length > 0) {
      // "Always" applies to matching requests that are already waiting too.
      const policy = this.policy();
      for (const other of controller.pendingPermissions) {
        const d = policy.evaluate(other.request);
        if (d.effect !== 'ask') {
          controller.choosePermission(other.requestId, d.optionId, `rule: ${d.rule}`);
        }
      }
    }
    return true;
  }

  /** The policy as it stands now: rules remembered in this session first, then the configured ones. */
  private policy(): PermissionPolicy {
    const ctx = this.options.permissionContext?.() ?? hostPolicyContext(this.options.cwd);
    return new PermissionPolicy([...this.sessionRules, ...(this.options.rules?.() ?? [])], ctx);
  }
}
