import type { HostConnection } from '../host/agentHost';
import { describeError } from '../agentPort/agentErrors';
import type { SessionController } from '../session/sessionController';
import type { Localize } from '../util/l10n';
import type { SignIn } from './signIn';

export interface RestoreContext {
  readonly controller: SessionController;
  readonly agentName: string;
  readonly t: Localize;
  readonly signIn: SignIn;
  setStatus(status: string | undefined): void;
  /** The whole open again (connect, restore), after a sign-in. */
  retry(): Promise<boolean>;
}

/**
 * `session/load` (or `session/resume` where only that exists) into a chat. `readOnly`: whether the
 * transcript can still be continued (undefined: unchanged — the sign-in card took over).
 */
export async function restoreSession(ctx: RestoreContext, client: HostConnection, sessionId: string): Promise<{ ok: boolean; readOnly?: boolean }> {
  const { controller, t, agentName } = ctx;
  const caps = client.agent?.agentCapabilities;
  const how = caps?.loadSession === true ? 'load' : caps?.sessionCapabilities?.resume !== undefined && caps.sessionCapabilities.resume !== null ? 'resume' : undefined;
  if (how === undefined) {
    controller.addNotice('warning', t('{0} cannot reopen sessions; this conversation is read-only.', agentName), undefined, ['newSession']);
    return { ok: false, readOnly: true };
  }
  ctx.setStatus(t('Restoring the conversation from {0}…', agentName));
  try {
    await controller.load(sessionId, how);
    ctx.signIn.reset();
    if (!controller.state.entries.some((e) => e.kind === 'user' || e.kind === 'assistant')) {
      // Hermes answers a load of an unknown id with success and no history.
      controller.addNotice('warning', t('{0} returned no history for this session; it may not exist on this agent.', agentName), undefined, ['newSession']);
    }
    return { ok: true, readOnly: false };
  } catch (e) {
    const signedIn = await ctx.signIn.handle(e, () => ctx.retry());
    if (signedIn !== undefined) {
      return { ok: signedIn };
    }
    controller.addNotice('error', t('{0} could not restore this session; the transcript is kept read-only.', agentName), describeError(e), ['newSession', 'showTraffic']);
    return { ok: false, readOnly: true };
  } finally {
    ctx.setStatus(undefined);
  }
}
