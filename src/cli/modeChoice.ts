/**
 * Which session mode a headless run uses. A deny or rules policy only holds if the agent asks:
 * an agent started in an auto-approving mode (Qwen's `auto`, Claude's `bypassPermissions`) is
 * switched to the mode that asks; `--mode ID` picks one explicitly.
 */
import { genericAutoApproving, type AgentProfile } from '../session/agentProfiles';
import type { SessionController } from '../session/sessionController';
import type { SessionState } from '../session/sessionState';
import type { RunOptions } from './args';
import type { Verdict } from './exitCodes';
import type { PermissionMode } from './permissions';

export interface ModeView {
  readonly current: string;
  readonly available: readonly string[];
  /** `session/set_mode`, or `session/set_config_option` on this option. */
  readonly via: { readonly kind: 'modes' } | { readonly kind: 'config'; readonly configId: string };
}

/** The session's modes: the `modes` field, else a select config option of category `mode`. */
export function sessionModes(state: SessionState): ModeView | undefined {
  const modes = state.modes;
  if (modes !== undefined && modes.availableModes.length > 0) {
    return { current: modes.currentModeId, available: modes.availableModes.map((m) => m.id), via: { kind: 'modes' } };
  }
  for (const o of state.configOptions) {
    if (o.category === 'mode' && o.type === 'select') {
      const values = o.options.flatMap((g) => ('options' in g ? g.options.map((x) => x.value) : [g.value]));
      return { current: o.currentValue, available: values, via: { kind: 'config', configId: o.id } };
    }
  }
  return undefined;
}

/** Whether the agent asks before acting in this mode; undefined when its profile does not say. */
export function modeAsks(profile: AgentProfile, modeId: string): boolean | undefined {
  if (profile.neverAsks === true) {
    return false;
  }
  const m = profile.modes;
  if (m === undefined) {
    return undefined;
  }
  if (m.asking.includes(modeId)) {
    return true;
  }
  if (m.autoApproving.includes(modeId)) {
    return false;
  }
  return m.judgeUnlistedByName === true ? !genericAutoApproving.test(modeId) : true;
}

export type ModeDecision =
  | { readonly kind: 'keep' }
  | { readonly kind: 'switch'; readonly to: string; readonly why: string }
  | { readonly kind: 'error'; readonly message: string };

/** `--mode` wins; else, under a deny or rules policy, leave an auto-approving mode for one that asks. */
export function chooseMode(profile: AgentProfile, view: ModeView | undefined, policy: PermissionMode, requested: string | undefined): ModeDecision {
  if (requested !== undefined) {
    if (view === undefined) {
      return { kind: 'error', message: `--mode ${requested}: the agent offers no session modes` };
    }
    if (!view.available.includes(requested)) {
      return { kind: 'error', message: `--mode ${requested}: the agent offers ${view.available.map((m) => `"${m}"`).join(', ')}` };
    }
    return requested === view.current ? { kind: 'keep' } : { kind: 'switch', to: requested, why: '--mode' };
  }
  if (policy.kind === 'allow' || view === undefined || modeAsks(profile, view.current) !== false) {
    return { kind: 'keep' };
  }
  const asking = [...(profile.modes?.asking ?? []), ...view.available].find((m) => view.available.includes(m) && modeAsks(profile, m) === true);
  return asking === undefined
    ? { kind: 'keep' }
    : { kind: 'switch', to: asking, why: `mode "${view.current}" does not ask before edits and commands, so --permissions ${policy.kind === 'rules' ? 'FILE' : policy.kind} could not hold` };
}

/**
 * `permissions_enforced`: false when the policy needed the agent to ask (deny, rules), it was not
 * in a mode known to ask, and during the turn it edited or ran something without a single request.
 */
export function permissionsEnforced(
  profile: AgentProfile,
  view: ModeView | undefined,
  policy: PermissionMode,
  turn: { readonly permissionsAsked: number; readonly guardedCalls: number },
): boolean {
  if (policy.kind === 'allow' || turn.permissionsAsked > 0 || turn.guardedCalls === 0) {
    return true;
  }
  return view !== undefined && modeAsks(profile, view.current) === true;
}

/**
 * Puts the session in the chosen mode. A failure fails the run only for an explicit `--mode`;
 * otherwise it is a warning (and `permissions_enforced` tells what happened).
 */
export async function applyMode(
  controller: SessionController,
  profile: AgentProfile,
  options: Pick<RunOptions, 'permissions' | 'mode'>,
  diagnostic: (line: string) => void,
): Promise<Verdict | undefined> {
  const view = sessionModes(controller.state);
  const decision = chooseMode(profile, view, options.permissions, options.mode);
  if (decision.kind === 'error') {
    return { exitCode: 1, stopReason: null, error: decision.message };
  }
  if (decision.kind === 'keep' || view === undefined) {
    return undefined;
  }
  try {
    if (view.via.kind === 'modes') {
      await controller.setMode(decision.to);
    } else {
      await controller.setConfigOption(view.via.configId, decision.to);
    }
    diagnostic(`hermes-acp-run: switched the session mode from "${view.current}" to "${decision.to}" (${decision.why})`);
    return undefined;
  } catch (e) {
    const message = `could not switch the session mode from "${view.current}" to "${decision.to}": ${e instanceof Error ? e.message : String(e)}`;
    if (options.mode !== undefined) {
      return { exitCode: 1, stopReason: null, error: `--mode ${options.mode}: ${message}` };
    }
    diagnostic(`hermes-acp-run: warning: ${message}`);
    return undefined;
  }
}
