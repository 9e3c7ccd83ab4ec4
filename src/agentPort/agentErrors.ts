/**
 * Typed errors an agent connection raises (the ACP client, and the agent process and request
 * deadlines every transport shares), and the codes the client's ports answer with. Each carries what the user needs to hear (message) and
 * what an engineer needs to see (details); the surface layer decides how to show it.
 */

/** The agent executable could not be started because it does not exist. */
export class AgentNotFoundError extends Error {
  override readonly name = 'AgentNotFoundError';
  constructor(
    readonly command: string,
    readonly searchedPath: string | undefined,
  ) {
    super(
      `\`${command}\` was not found on PATH. Install it (for Hermes: https://github.com/NousResearch/hermes-agent) ` +
        `or point the \`hermes.agents\` setting at the full path of the agent's executable.`,
    );
  }

  /** By name, so it holds across bundles (the extension and its tests load separate copies). */
  static is(e: unknown): e is AgentNotFoundError {
    return e instanceof Error && e.name === 'AgentNotFoundError';
  }
}

/** The agent process could not be started for another reason (permissions, bad cwd, …). */
export class AgentSpawnError extends Error {
  override readonly name = 'AgentSpawnError';
  constructor(
    readonly command: string,
    readonly code: string | undefined,
    cause: unknown,
  ) {
    super(`Could not start \`${command}\`: ${cause instanceof Error ? cause.message : String(cause)}`);
  }

  /** By name, so it holds across bundles (the extension and its tests load separate copies). */
  static is(e: unknown): e is AgentSpawnError {
    return e instanceof Error && e.name === 'AgentSpawnError';
  }
}

/** The agent process ended. Everything still waiting on it rejects with this. */
export class AgentExitedError extends Error {
  override readonly name = 'AgentExitedError';
  constructor(
    readonly exitCode: number | null,
    readonly signal: string | null,
    /** The last stderr lines the agent wrote (after its last stdout message, when known). */
    readonly stderrTail: string,
    /** True when we ended it ourselves (dispose/restart), false when it exited on its own. */
    readonly expected: boolean,
  ) {
    const how = signal !== null ? `was killed by ${signal}` : `exited with code ${String(exitCode)}`;
    super(expected ? `The agent was stopped.` : `The agent ${how}.`);
  }

  /** By name, so it holds across bundles (the extension and its tests load separate copies). */
  static is(e: unknown): e is AgentExitedError {
    return e instanceof Error && e.name === 'AgentExitedError';
  }
}

/** An outgoing request got no answer in time. */
export class AgentTimeoutError extends Error {
  override readonly name = 'AgentTimeoutError';
  constructor(
    readonly method: string,
    readonly timeoutMs: number,
  ) {
    super(`The agent did not answer \`${method}\` within ${Math.round(timeoutMs / 1000)} s.`);
  }

  /** By name, so it holds across bundles (the extension and its tests load separate copies). */
  static is(e: unknown): e is AgentTimeoutError {
    return e instanceof Error && e.name === 'AgentTimeoutError';
  }
}

/** The agent speaks a protocol version we do not. */
export class AgentProtocolError extends Error {
  override readonly name = 'AgentProtocolError';
  constructor(message: string) {
    super(message);
  }

  /** By name, so it holds across bundles (the extension and its tests load separate copies). */
  static is(e: unknown): e is AgentProtocolError {
    return e instanceof Error && e.name === 'AgentProtocolError';
  }
}

/** A JSON-RPC error answered by the agent (shape of the SDK's RequestError, without importing it). */
export interface RpcErrorLike {
  readonly code: number;
  readonly message: string;
  readonly data?: unknown;
}

export function isRpcError(e: unknown): e is RpcErrorLike & Error {
  return (
    e instanceof Error &&
    typeof (e as Partial<RpcErrorLike>).code === 'number' &&
    typeof (e as Partial<RpcErrorLike>).message === 'string'
  );
}

/** JSON-RPC / ACP error codes the client reacts to. */
export const RpcCode = {
  parseError: -32700,
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internalError: -32603,
  requestCancelled: -32800,
  authRequired: -32000,
  resourceNotFound: -32002,
} as const;

/** The most useful single line from a JSON-RPC error: Hermes puts the real reason in data.details. */
export function describeRpcError(e: RpcErrorLike): string {
  const data = e.data;
  if (typeof data === 'object' && data !== null) {
    const rec = data as Record<string, unknown>;
    for (const key of ['details', 'message', 'error']) {
      const v = rec[key];
      if (typeof v === 'string' && v.trim() !== '') {
        return v;
      }
    }
  }
  if (typeof data === 'string' && data.trim() !== '') {
    return data;
  }
  return e.message;
}

/** A short human message for any error thrown by the client core. */
export function describeError(e: unknown): string {
  if (isRpcError(e)) {
    return describeRpcError(e);
  }
  if (e instanceof Error) {
    return e.message;
  }
  return String(e);
}

/**
 * An error our request handlers throw to answer the agent with a specific JSON-RPC code
 * (`acpConnection.ts` turns it into the SDK's RequestError, so the code reaches the wire).
 */
export class ClientRequestError extends Error {
  override readonly name = 'ClientRequestError';
  constructor(
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  static resourceNotFound(message: string, path?: string): ClientRequestError {
    return new ClientRequestError(RpcCode.resourceNotFound, message, path !== undefined ? { path } : undefined);
  }

  static invalidParams(message: string, data?: unknown): ClientRequestError {
    return new ClientRequestError(RpcCode.invalidParams, message, data);
  }

  /** By name, so it holds across bundles (the extension and its tests load separate copies). */
  static is(e: unknown): e is ClientRequestError {
    return e instanceof Error && e.name === 'ClientRequestError';
  }
}
