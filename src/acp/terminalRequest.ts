import type * as acp from '@agentclientprotocol/sdk';
import { ClientRequestError } from '../agentPort/agentErrors';

/**
 * The parameters of `terminal/create` checked before anything starts (ACP terminals.mdx): the
 * command and its arguments, the environment, the output byte limit. Bad input is `-32602`
 * (invalid params) with what was wrong.
 */

/** The command and its arguments: strings without NUL characters, the command non-empty. */
export function terminalCommand(params: acp.CreateTerminalRequest): { readonly command: string; readonly args: readonly string[] } {
  const { command } = params;
  if (typeof command !== 'string' || command.trim() === '' || command.includes('\0')) {
    throw ClientRequestError.invalidParams('terminal/create needs a non-empty command.');
  }
  const rawArgs: unknown = params.args ?? [];
  if (!Array.isArray(rawArgs) || !(rawArgs as readonly unknown[]).every((a) => typeof a === 'string' && !a.includes('\0'))) {
    throw ClientRequestError.invalidParams('terminal/create args must be strings without NUL characters.');
  }
  const args = rawArgs as readonly string[];
  return { command, args };
}

/** The manager's env, then the agent's `[{name, value}]` (ACP EnvVariable); the launcher adds them to the cleaned host environment. */
export function terminalEnvironment(base: Record<string, string> | undefined, vars: unknown): Record<string, string> {
  if (!Array.isArray(vars)) {
    throw ClientRequestError.invalidParams('terminal/create env must be an array of {name, value}.');
  }
  const env: Record<string, string> = { ...base };
  for (const v of vars as readonly unknown[]) {
    const { name, value } = (typeof v === 'object' && v !== null ? v : {}) as { name?: unknown; value?: unknown };
    if (typeof name !== 'string' || typeof value !== 'string' || name === '' || name.includes('=') || name.includes('\0') || value.includes('\0')) {
      throw ClientRequestError.invalidParams('terminal/create env entries must be {name, value} strings; names non-empty without "=".', {
        env: v,
      });
    }
    env[name] = value;
  }
  return env;
}

/** The agent's `outputByteLimit`, or the default, never above the manager's cap. */
export function terminalOutputLimit(requested: number | null | undefined, defaultLimit: number, maxLimit: number): number {
  if (requested === undefined || requested === null) {
    return Math.min(defaultLimit, maxLimit);
  }
  if (typeof requested !== 'number' || !Number.isSafeInteger(requested) || requested < 0) {
    throw ClientRequestError.invalidParams(`terminal/create outputByteLimit must be a non-negative integer; got ${String(requested)}.`);
  }
  return Math.min(requested, maxLimit);
}

/** The error a cancelled request rejects with: the signal's reason. */
export function abortError(signal: AbortSignal): Error {
  const reason: unknown = signal.reason;
  return reason instanceof Error ? reason : new Error(typeof reason === 'string' ? reason : 'The request was cancelled.');
}

export function asError(e: unknown): Error {
  return e instanceof Error ? e : new Error(String(e));
}
