import type * as acp from '@agentclientprotocol/sdk';
import { AgentExitedError, AgentNotFoundError, AgentTimeoutError, describeError, isRpcError } from '../agentPort/agentErrors';
import { classifyRpcFailure, detectProviderFailureInLog, detectProviderFailureText, isRetryOnlyText, type ProviderFailure } from '../session/providerErrors';
import type { TurnResult } from '../session/sessionController';
import { HttpStatusError, TransportClosedError } from '../agentPort/transportErrors';

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

/**
 * A run that ended before a turn ran (spawn, `initialize`, `session/new` failed, or a stop came
 * first). `signInHelp` (the agent's methods) is added to an `auth_required` error.
 */
export function startFailureVerdict(error: unknown, stop: StopCause | undefined, signInHelp?: string): Verdict {
  if (stop !== undefined) {
    return stopVerdict(stop, null, 'the run was stopped before the prompt was sent');
  }
  if (AgentNotFoundError.is(error)) {
    return { exitCode: ExitCode.failed, stopReason: null, error: `\`${error.command}\` was not found (is the agent installed and on PATH?)` };
  }
  if (AgentExitedError.is(error)) {
    return { exitCode: ExitCode.failed, stopReason: null, error: exitMessage(error) };
  }
  if (signInHelp !== undefined) {
    return { exitCode: ExitCode.failed, stopReason: null, error: `the agent requires sign-in (auth_required): ${describeError(error)}\n${signInHelp}` };
  }
  return { ...rpcVerdict(error), stopReason: null };
}

/** What the turn left behind, for judging an `end_turn`. */
export interface TurnOutput {
  /** The final assistant message. */
  readonly text: string;
  /** No text, no tool call, no plan. */
  readonly empty: boolean;
  /** The agent's last stderr lines. */
  readonly stderrTail: string;
}

/** A run whose prompt was sent: the turn's outcome, what it produced, and whether we stopped it. */
export function turnVerdict(turn: TurnResult, output: TurnOutput, stop: StopCause | undefined): Verdict {
  const stopReason = turn.kind === 'ended' ? turn.stopReason : null;
  if (stop !== undefined) {
    const detail = turn.kind === 'interrupted' ? 'the agent was killed before it ended the turn' : undefined;
    return stopVerdict(stop, stopReason, detail);
  }
  switch (turn.kind) {
    case 'ended':
      return endedVerdict(turn.stopReason, output);
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
        error: AgentExitedError.is(turn.error) || TransportClosedError.is(turn.error) ? exitMessage(turn.error) : describeError(turn.error),
      };
  }
}

function endedVerdict(stopReason: acp.StopReason, output: TurnOutput): Verdict {
  switch (stopReason) {
    case 'end_turn':
      return endTurnVerdict(output);
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

/**
 * `end_turn` is not always success. Hermes reports provider failures as the answer text; pi
 * streams only "Retrying…" notices, Cline nothing at all, after a failed model call
 * (agents-in-the-wild.md "Provider 429"): such a turn is a provider failure where the agent's
 * stderr or text says so, and a failure anyway.
 */
function endTurnVerdict(output: TurnOutput): Verdict {
  const stopReason = 'end_turn';
  const text = output.text.trim();
  const hermes = detectProviderFailureText(output.text);
  if (hermes !== undefined) {
    return { exitCode: providerExit(hermes), stopReason, error: text };
  }
  const retryOnly = isRetryOnlyText(output.text);
  if (!output.empty && !retryOnly) {
    return { exitCode: ExitCode.ok, stopReason };
  }
  const said = retryOnly ? `the agent only reported retries ("${firstLine(text)}") and ended the turn` : 'the agent ended the turn without output';
  const tail = output.stderrTail.trim();
  const provider = detectProviderFailureInLog(`${tail}\n${text}`);
  if (provider !== undefined) {
    const status = provider.httpStatus !== undefined ? `, HTTP ${provider.httpStatus}` : '';
    return { exitCode: providerExit(provider), stopReason, error: `${said}: the model provider failed (${provider.kind}${status}): ${provider.message}` };
  }
  return { exitCode: ExitCode.failed, stopReason, error: tail !== '' ? `${said}\n${tail}` : said };
}

function providerExit(p: ProviderFailure): RunExitCode {
  return p.transient ? ExitCode.tempFail : ExitCode.failed;
}

function firstLine(text: string): string {
  const line = text.split('\n')[0] ?? '';
  return line.length > 120 ? `${line.slice(0, 119)}…` : line;
}

/** A JSON-RPC error (or anything else thrown): 75 when it was the provider's transient failure. */
function rpcVerdict(error: unknown): { readonly exitCode: RunExitCode; readonly error: string } {
  const provider = isRpcError(error) ? classifyRpcFailure(error) : transportFailure(error);
  if (provider === undefined) {
    return { exitCode: ExitCode.failed, error: describeError(error) };
  }
  const status = provider.httpStatus !== undefined ? `, HTTP ${provider.httpStatus}` : '';
  return {
    exitCode: provider.transient ? ExitCode.tempFail : ExitCode.failed,
    error: `${describeError(error)} (provider ${provider.kind}${status})`,
  };
}

/**
 * The API Server's failures are not JSON-RPC errors: an HTTP status, or a stream that ended with
 * the agent's own error text (Hermes: "API call failed after 3 retries: HTTP 429 …"). Only plain
 * errors are read for their text; the client core's typed errors say what they are.
 */
function transportFailure(error: unknown): ProviderFailure | undefined {
  if (HttpStatusError.is(error)) {
    return classifyRpcFailure({ code: error.status, message: error.message });
  }
  return error instanceof Error && error.name === 'Error' ? classifyRpcFailure({ code: 0, message: error.message }) : undefined;
}

function stopVerdict(stop: StopCause, stopReason: acp.StopReason | null, detail: string | undefined): Verdict {
  if (stop === 'timeout') {
    return { exitCode: ExitCode.failed, stopReason, error: 'timeout' };
  }
  return { exitCode: ExitCode.interrupted, stopReason, error: detail !== undefined ? `interrupted: ${detail}` : 'interrupted' };
}

function exitMessage(e: AgentExitedError | TransportClosedError): string {
  return e.stderrTail !== '' ? `${e.message}\n${e.stderrTail}` : e.message;
}
