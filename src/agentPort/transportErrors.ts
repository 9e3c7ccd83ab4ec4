/**
 * Errors the non-ACP transports raise. Like `agentErrors.ts` each is recognised by name (the
 * extension and its tests load separate bundles) and says what happened and what to do.
 */

function guard<T extends Error>(name: string): (e: unknown) => e is T {
  return (e: unknown): e is T => e instanceof Error && e.name === name;
}

/** A JSON-RPC error answered by the peer; `code` and `data` as on the wire. */
export class TransportRpcError extends Error {
  override readonly name = 'TransportRpcError';
  static readonly is = guard<TransportRpcError>('TransportRpcError');
  constructor(
    readonly method: string,
    readonly code: number,
    message: string,
    readonly data?: unknown,
  ) {
    super(message);
  }

  static hasCode(e: unknown, code: number): e is TransportRpcError {
    return TransportRpcError.is(e) && e.code === code;
  }
}

/** The connection to the agent ended (process exit, socket closed, server gone). */
export class TransportClosedError extends Error {
  override readonly name = 'TransportClosedError';
  static readonly is = guard<TransportClosedError>('TransportClosedError');
  constructor(
    message: string,
    /** The last lines the agent wrote to stderr, when it is a process we started. */
    readonly stderrTail = '',
  ) {
    super(message);
  }
}

/**
 * `session.create` refused a model the provider cannot serve (TUI Gateway: JSON-RPC -32602 with
 * `data {model, provider, suggestions}`, at most five suggestions). The UI offers the suggestions.
 */
export class ModelMismatchError extends Error {
  override readonly name = 'ModelMismatchError';
  static readonly is = guard<ModelMismatchError>('ModelMismatchError');
  readonly model: string;
  readonly provider: string;
  readonly suggestions: readonly string[];

  constructor(refused: { readonly model: string; readonly provider: string; readonly suggestions: readonly string[] }, serverMessage: string) {
    super(
      serverMessage !== ''
        ? serverMessage
        : `The provider "${refused.provider}" cannot serve the model "${refused.model}". Pick one of the suggestions or change the provider.`,
    );
    this.model = refused.model;
    this.provider = refused.provider;
    this.suggestions = refused.suggestions;
  }
}

/** The transport does not offer this (its capabilities say so; the UI should not have asked). */
export class NotSupportedError extends Error {
  override readonly name = 'NotSupportedError';
  static readonly is = guard<NotSupportedError>('NotSupportedError');
  /** `transport` and `feature` as the user reads them ("API Server", "listing sessions"). */
  constructor(readonly transport: string, readonly feature: string) {
    super(`The ${transport} transport does not support ${feature}.`);
  }
}

/** An HTTP answer that is not a success (API Server); the body's OpenAI error message when it has one. */
export class HttpStatusError extends Error {
  override readonly name = 'HttpStatusError';
  static readonly is = guard<HttpStatusError>('HttpStatusError');
  constructor(
    readonly status: number,
    readonly code: string | undefined,
    message: string,
  ) {
    super(message);
  }
}
