import type * as acp from '@agentclientprotocol/sdk';
import type { PermissionCheckView } from '../protocol/sessionView';

/** A permission request waiting for an answer, as announced to the surface layer. */
export interface PendingPermission {
  readonly requestId: string;
  readonly sessionId: string;
  readonly request: acp.RequestPermissionRequest;
}

/** The client-side policy's answer: an offered option and the rule that chose it, or (no optionId) ask, and why. */
export interface PermissionVerdict {
  readonly optionId?: string;
  readonly rule: string;
  /** What was checked, for the card and the logs. */
  readonly check?: PermissionCheckView;
}

/** Decides permission requests before a human sees them (the client-side policy). */
export interface PermissionDecider {
  decide(request: acp.RequestPermissionRequest): PermissionVerdict | undefined;
}

/** The decider's verdict; a decider that throws asks the user (never allows). */
export function decideSafely(decider: PermissionDecider | undefined, request: acp.RequestPermissionRequest): PermissionVerdict | undefined {
  try {
    return decider?.decide(request);
  } catch (e) {
    return { rule: `the permission policy failed (${e instanceof Error ? e.message : String(e)}): asked` };
  }
}
