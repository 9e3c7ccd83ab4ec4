import type { PermissionPort } from './clientPorts';

/**
 * Questions an agent asks that ACP has no request for: clarifying questions, masked values (sudo,
 * secrets, vault codes) and connection cards (Hermes TUI Gateway server requests, read from
 * `tui_gateway/contracts/server_requests.py`). Each method is optional: a transport answers a
 * question whose method is missing with JSON-RPC -32601 at once, so the agent fails fast instead of
 * waiting out its deadline (a headless runner leaves them out, or cancels and says so).
 *
 * `signal` aborts when the agent withdraws the question (`request.cancel`: answered on another
 * client, timed out, interrupted) or the connection ends; the prompt must then disappear. The
 * answer to a withdrawn question is dropped.
 */
export interface QuestionPort {
  clarify?(question: ClarifyRequest, signal: AbortSignal): Promise<ClarifyAnswer>;
  secret?(question: SecretRequest, signal: AbortSignal): Promise<SecretAnswer>;
  connection?(question: ConnectionRequest, signal: AbortSignal): Promise<ConnectionAnswer>;
}

/** What a transport routes agent→client questions to. */
export interface TransportPorts {
  readonly permission: PermissionPort;
  readonly questions?: QuestionPort;
}

export interface ClarifyQuestion {
  /** Question id; answers are keyed by it. */
  readonly id: string;
  readonly text: string;
  /** Offered choices (free text is always allowed). */
  readonly choices: readonly string[];
  readonly multiSelect: boolean;
}

export interface ClarifyRequest {
  readonly sessionId: string;
  readonly requestId: string;
  readonly questions: readonly ClarifyQuestion[];
  /** Answers the agent already accepted (a reconnect replay); `null` = skipped. */
  readonly locked: Readonly<Record<string, string | null>>;
  /** True when the question was re-delivered on attach rather than asked live. */
  readonly replayed: boolean;
  /**
   * Locks one answer early (`clarify.lock`); `expired` when the agent stopped waiting. Only for
   * batches: a single question has nothing to lock ahead of its answer.
   */
  lock(questionId: string, answer: string | null): Promise<'ok' | 'expired'>;
}

/** `answers` keyed by question id (`null` skips one); `cancelled` withdraws the whole set. */
export type ClarifyAnswer = { readonly kind: 'answered'; readonly answers: Readonly<Record<string, string | null>> } | { readonly kind: 'cancelled' };

export type SecretKind = 'sudo' | 'secret' | 'vault.unlock' | 'vault.code' | 'vault.saveLogin';

export interface SecretRequest {
  readonly sessionId: string;
  readonly requestId: string;
  readonly kind: SecretKind;
  /** What to show: the agent's prompt, the command sudo is for, the vault and site. */
  readonly prompt: string;
  /** The environment variable a `secret` fills. */
  readonly envVar?: string;
  readonly replayed: boolean;
}

/**
 * A masked value. It travels to the agent only: transports never log it, never put it in a session
 * update, and the UI must not keep it. `declined` answers the empty string (Hermes: skipped).
 */
export type SecretAnswer = { readonly kind: 'value'; readonly value: string } | { readonly kind: 'declined' };

export interface ConnectionTarget {
  readonly name: string;
  readonly kind: string;
  readonly action: string;
}

export interface ConnectionRequest {
  readonly sessionId: string;
  readonly requestId: string;
  readonly operationId: string;
  readonly reason: string;
  readonly targets: readonly ConnectionTarget[];
  /** Epoch ms after which the agent stops waiting. */
  readonly deadlineAt?: number;
  readonly replayed: boolean;
}

export type ConnectionTargetState = 'installed' | 'enabled' | 'authorized' | 'declined' | 'error';

export interface ConnectionAnswer {
  readonly settledBy: 'all_resolved' | 'continue';
  readonly targets: readonly { readonly name: string; readonly state: ConnectionTargetState; readonly detail?: string }[];
}
