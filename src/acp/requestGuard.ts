import { AgentTimeoutError, type AgentExitedError } from '../agentPort/agentErrors';
import type { TrafficLog } from '../wire/trafficLog';

/** Per-method answer deadlines. ACP itself has none, and the SDK adds none (`@agentclientprotocol/sdk` 2.4: a request waits until answered or the connection closes). */
export interface RequestTimeouts {
  /** Hermes needs ~12 s when no provider is configured (provider auto-detection); be generous. */
  readonly initialize: number;
  /** session/new, load, resume, fork: Hermes builds an agent per session (2–3 s); load replays history. */
  readonly session: number;
  /** A whole prompt turn. Long, but finite: a wedged agent must not hold the chat forever. */
  readonly prompt: number;
  /** Everything else (list, set_mode, close, …). */
  readonly other: number;
}

export const defaultTimeouts: RequestTimeouts = {
  initialize: 60_000,
  session: 120_000,
  // The session's turn deadline (60 min, src/session/turnDeadline.ts) sends session/cancel first;
  // this is that plus 2 min of grace for the agent to answer `cancelled` before the turn is abandoned.
  prompt: 62 * 60_000,
  other: 30_000,
};

export interface CallOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** What a request races besides its answer: the agent's exit (already known, or still to come) and the default deadline. */
export interface RequestRace {
  readonly exitError: AgentExitedError | undefined;
  /** Rejects with the exit reason when the agent exits. */
  readonly exitRejection: Promise<never>;
  readonly defaultTimeoutMs: number;
  readonly log: TrafficLog;
}

/**
 * Races a request against the agent's exit, a timeout and the caller's signal. A timeout is noted
 * in the traffic log; with `cancellable`, it (or the caller's signal) aborts the SDK request, which
 * sends `$/cancel_request`.
 */
export async function guardRequest<T>(
  method: string,
  send: (signal: AbortSignal | undefined) => Promise<T>,
  options: CallOptions,
  cancellable: boolean,
  race: RequestRace,
): Promise<T> {
  if (race.exitError !== undefined) {
    throw race.exitError;
  }
  const timeoutMs = options.timeoutMs ?? race.defaultTimeoutMs;
  const abort = cancellable ? new AbortController() : undefined;
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      const err = new AgentTimeoutError(method, timeoutMs);
      race.log.note(err.message);
      // Settle first: aborting makes the SDK reject the request too (and send $/cancel_request).
      reject(err);
      abort?.abort(err);
    }, timeoutMs);
  });
  const onCallerAbort = (): void => abort?.abort(options.signal?.reason);
  options.signal?.addEventListener('abort', onCallerAbort, { once: true });
  try {
    return await Promise.race([send(abort?.signal), race.exitRejection, timeout]);
  } finally {
    clearTimeout(timer);
    options.signal?.removeEventListener('abort', onCallerAbort);
  }
}
