import type { Localize } from '../util/l10n';

/** How long a prompt turn may run before the agent is asked to stop (ACP prompt-turn cancellation). */
export const defaultPromptDeadlineMs = 60 * 60_000;

/** What the deadline needs from the session it guards. */
export interface DeadlineTarget {
  addNotice(level: 'warning', title: string, detail?: string): void;
  /** The controller's own cancel: pending permissions answered `cancelled`, then `session/cancel`. */
  cancel(): Promise<boolean>;
}

/**
 * Arms a turn's deadline. When it passes, the chat says so and the turn is cancelled the ACP way
 * (`session/cancel`) rather than abandoned: the connection's own prompt timeout is this deadline
 * plus a grace period (`defaultTimeouts.prompt`), so the agent has time to answer `cancelled`.
 * Returns the function that disarms it (the turn ended).
 */
export function armTurnDeadline(target: DeadlineTarget, t: Localize, ms: number): () => void {
  const timer = setTimeout(() => {
    target.addNotice(
      'warning',
      t('The turn ran past its deadline ({0}); the agent was asked to stop.', formatDuration(ms)),
      t('Ending the turn now; if the agent does not answer, the request is abandoned. The traffic log ("Hermes: Show Traffic") shows what it was doing.'),
    );
    // A failed cancel (the agent exited) is reported by the prompt itself.
    target.cancel().catch(() => undefined);
  }, ms);
  return () => clearTimeout(timer);
}

function formatDuration(ms: number): string {
  return ms >= 60_000 ? `${Math.round(ms / 60_000)} min` : `${Math.max(1, Math.round(ms / 1000))} s`;
}
