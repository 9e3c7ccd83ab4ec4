import type * as acp from '@agentclientprotocol/sdk';
import { AgentExitedError, AgentNotFoundError, AgentTimeoutError, describeError, isRpcError } from '../acp/errors';
import { classifyRpcFailure, detectProviderFailureText } from '../session/providerErrors';
import type { TurnResult } from '../session/sessionController';

/**
 * The runner's exit codes. Every run that got past argument parsing ends with a `result` event
 * whose `exit_code` equals the process exit code.
 */
export const ExitCode = {
  /** The turn completed (`end_turn`). */
  ok: 0,
  /** The turn failed, was refused or cut short, the agent crashed or never started. */
  failed: 1,
  /** Bad command line (no `result` event: nothing ran). */
  usage: 2,
  /** EX_TEMPFAIL: the model provider was rate-limited, overloaded, failing (5xx), timing out or out of quota. Retry later. */
  tempFail: 75,
  /** Interrupted (SIGINT / SIGTERM). */
  interrupted: 130,
} as const;

export type RunExitCode = (typeof ExitCode)[Exclude<keyof typeof ExitCode, 'usage'>];

/** How a run ended, before it is written as a `result` event. */
export interface Verdict {
  readonly exitCode: RunExitCode;
  /** The agent's stop reason, when it answered the prompt. */
  readonly stopReason: acp.StopReason | null;
  readonly error?: string;
}

/** Why the runner itself stopped the turn. */
export type StopCause = 'interrupt' | 'timeout';

/** A run that ended before a turn ran (spawn, `initialize`, `session/new` failed, or a stop came first). */
export function startFailureVerdict(error: unknown, stop: StopCause | undefined): Verdict {
  if (stop !== undefined) {
    return stopVerdict(stop, null, 'the run was stopped before the prompt was sent');
  }
  if (AgentNotFoundError.is(error)) {
    return { exitCode: ExitCode.failed, stopReason: null, error: `\`${error.command}\` was not found (is the agent installed and on PATH?)` };
  }
  if (AgentExitedError.is(error)) {
    return { exitCode: ExitCode.failed, stopReason: null, error: exitMessage(error) };
  }
  return { ...rpcVerdict(error), stopReason: null };
}

/** A run whose prompt was sent: the turn's outcome, the final assistant text, and whether we stopped it. */
export function turnVerdict(turn: TurnResult, finalText: string, stop: StopCause | undefined): Verdict {
  const stopReason = turn.kind === 'ended' ? turn.stopReason : null;
  if (stop !== undefined) {
    const detail = turn.kind === 'interrupted' ? 'the agent was killed before it ended the turn' : undefined;
    return stopVerdict(stop, stopReason, detail);
  }
  switch (turn.kind) {
    case 'ended':
      return endedVerdict(turn.stopReason, finalText);
    case 'failed': {
      if (AgentTimeoutError.is(turn.error)) {
        return { exitCode: ExitCode.failed, stopReason: null, error: turn.error.message };
      }
      return { ...rpcVerdict(turn.error), stopReason: null };
    }
    case 'interrupted':
      return {
        exitCode: ExitCode.failed,
        stopReason: null,
        error: AgentExitedError.is(turn.error) ? exitMessage(turn.error) : describeError(turn.error),
      };
  }
}

function endedVerdict(stopReason: acp.StopReason, finalText: string): Verdict {
  switch (stopReason) {
    case 'end_turn': {
      // Hermes reports provider failures as the answer text, with end_turn.
      const provider = detectProviderFailureText(finalText);
      if (provider !== undefined) {
        return {
          exitCode: provider.transient ? ExitCode.tempFail : ExitCode.failed,
          stopReason,
          error: finalText.trim(),
        };
      }
      return { exitCode: ExitCode.ok, stopReason };
    }
    case 'cancelled':
      return { exitCode: ExitCode.failed, stopReason, error: 'the agent cancelled the turn' };
    case 'refusal':
      return { exitCode: ExitCode.failed, stopReason, error: 'the agent refused to continue' };
    case 'max_tokens':
      return { exitCode: ExitCode.failed, stopReason, error: 'the agent reached its token limit (max_tokens)' };
    case 'max_turn_requests':
      return { exitCode: ExitCode.failed, stopReason, error: 'the agent reached its limit of model requests for one turn (max_turn_requests)' };
    default:
      return { exitCode: ExitCode.failed, stopReason, error: `unknown stop reason ${JSON.stringify(stopReason)}` };
  }
}

/** A JSON-RPC error (or anything else thrown): 75 when it was the provider's transient failure. */
function rpcVerdict(error: unknown): { readonly exitCode: RunExitCode; readonly error: string } {
  const provider = isRpcError(error) ? classifyRpcFailure(error) : undefined;
  if (provider === undefined) {
    return { exitCode: ExitCode.failed, error: describeError(error) };
  }
  const status = provider.httpStatus !== undefined ? `, HTTP ${provider.httpStatus}` : '';
  return {
    exitCode: provider.transient ? ExitCode.tempFail : ExitCode.failed,
    error: `${describeError(error)} (provider ${provider.kind}${status})`,
  };
}

function stopVerdict(stop: StopCause, stopReason: acp.StopReason | null, detail: string | undefined): Verdict {
  if (stop === 'timeout') {
    return { exitCode: ExitCode.failed, stopReason, error: 'timeout' };
  }
  return { exitCode: ExitCode.interrupted, stopReason, error: detail !== undefined ? `interrupted: ${detail}` : 'interrupted' };
}

function exitMessage(e: AgentExitedError): string {
  return e.stderrTail !== '' ? `${e.message}\n${e.stderrTail}` : e.message;
}
