import type * as acp from '@agentclientprotocol/sdk';
import type { AgentConnection } from './agentConnection';

/**
 * The transport-neutral agent port (ARCHITECTURE.md "The agent port", "Transports"). Everything above it — the chat,
 * the permission layer, changes, the runner — talks to an {@link AgentConnection} and receives ACP
 * `session/update`s; a non-ACP adapter translates its own protocol into those calls. What ACP cannot
 * express is declared in {@link TransportCapabilities} and offered through the small extra ports
 * below, which callers find with the type guards (never by `instanceof`).
 */

export type TransportKind = 'acp' | 'tui-gateway' | 'api-server';

/** What the UI may offer for a connection. A feature the transport lacks is hidden, not failed. */
export interface TransportCapabilities {
  /** Fork a whole session (`session/fork`, `session.branch`). */
  readonly fork: boolean;
  /** Open a stored session with its history (`session/load`, `session.resume`). */
  readonly load: boolean;
  /** List stored sessions. */
  readonly list: boolean;
  /** Session modes / config options (`session/set_mode`, …). */
  readonly modes: boolean;
  /** Native edit / regenerate from an earlier user message ({@link HistoryRewriter}). */
  readonly rewrite: boolean;
  /** The agent asks clarifying questions ({@link ClarifyQuestion}). */
  readonly clarify: boolean;
  /** The agent asks for masked values: sudo, secrets, vault codes ({@link SecretQuestion}). */
  readonly secrets: boolean;
  /** Several clients can watch and steer one live session ({@link LiveSessionDirectory}). */
  readonly attach: boolean;
  /** A rejected model/provider pairing comes back with suggestions ({@link ModelMismatchError}). */
  readonly modelSuggestions: boolean;
  /** Tool activity arrives as progress markers without results (API Server `hermes.tool.progress`). */
  readonly toolProgress: boolean;
  /** Runs whose state was lost can be settled ({@link RunRecovery}). */
  readonly runRecovery: boolean;
}

export interface TransportDescriptor {
  readonly kind: TransportKind;
  readonly capabilities: TransportCapabilities;
}

/** A connection that says what it is. ACP's `AcpClient` does not; {@link describeTransport} derives it. */
export interface Transport extends AgentConnection {
  readonly transport: TransportDescriptor;
}

/** ACP's capabilities follow from its `initialize` answer (ACP initialization: `agentCapabilities`). */
export function acpCapabilities(init: acp.InitializeResponse | undefined): TransportCapabilities {
  const session = init?.agentCapabilities?.sessionCapabilities;
  // `fork` is unstable in ACP v1 (absent from the stable schema); Hermes, Claude and opencode advertise it.
  const fork = (session as Record<string, unknown> | null | undefined)?.fork;
  return {
    fork: fork !== undefined && fork !== null,
    load: init?.agentCapabilities?.loadSession === true,
    list: session?.list !== undefined && session.list !== null,
    modes: true,
    rewrite: false,
    clarify: false,
    secrets: false,
    attach: false,
    modelSuggestions: false,
    toolProgress: false,
    runRecovery: false,
  };
}

export function describeTransport(connection: AgentConnection): TransportDescriptor {
  if (isTransport(connection)) {
    return connection.transport;
  }
  return { kind: 'acp', capabilities: acpCapabilities(connection.agent) };
}

export function isTransport(connection: AgentConnection): connection is Transport {
  // Structural, and strict about it: AcpClient has a `transport` field of its own (its process).
  const t: unknown = (connection as { transport?: unknown }).transport;
  return typeof t === 'object' && t !== null && typeof (t as { kind?: unknown }).kind === 'string' && typeof (t as { capabilities?: unknown }).capabilities === 'object';
}

// ── Extra ports ────────────────────────────────────────────────────────────────────────────────

/** Where a rewrite cuts: a durable row id (preferred) and/or the 0-based user-turn ordinal. */
export interface RewriteTarget {
  readonly userOrdinal: number;
  readonly rowId?: number;
}

/** What the user is asked before a cut that archives more than one user turn. */
export interface DeepCutQuestion {
  readonly sessionId: string;
  readonly userTurnsCut: number;
  /** As the server counted them (only after it refused an unconfirmed cut). */
  readonly archivedMessages?: number;
}

export interface RewriteRequest {
  readonly sessionId: string;
  /** The new text of the user message at the target (edit) or its old text (regenerate). */
  readonly prompt: readonly acp.ContentBlock[];
  readonly target: RewriteTarget;
  /** Asked only for a deep cut; false (or a rejection) leaves the history untouched. */
  readonly confirmDeepCut: (question: DeepCutQuestion) => Promise<boolean>;
  readonly signal?: AbortSignal;
  /** Called once, right before the first truncating submit goes out (the user confirmed whatever was asked). */
  readonly onSubmitting?: () => void;
  /** Called once the agent accepted the submit, with the survivors' fresh row ids (before the turn ends). */
  readonly onSubmitted?: (survivorRowIds: readonly (number | null)[]) => void;
}

export type RewriteResult =
  | { readonly kind: 'declined' }
  | {
      readonly kind: 'rewritten';
      readonly response: acp.PromptResponse;
      /** Row ids of the user turns that survived, in order (null: no durable id). */
      readonly survivorRowIds: readonly (number | null)[];
      /** How often a busy session (4009) was interrupted before the submit landed. */
      readonly interrupts: number;
    };

/** Native edit / regenerate from any user message: the history is cut on the agent's side. */
export interface HistoryRewriter {
  rewrite(request: RewriteRequest): Promise<RewriteResult>;
  /** The durable row ids the transport knows for a session's user turns, in order. */
  userRowIds(sessionId: string): readonly (number | null)[];
}

export interface LiveSessionInfo {
  readonly sessionId: string;
  /** The stored session it runs (TUI Gateway `session_key`): the same session `session.list` lists as past. */
  readonly storedSessionId?: string;
  readonly title: string;
  readonly preview: string;
  readonly model: string;
  readonly status: string;
  readonly messageCount: number;
  readonly startedAt?: string;
  readonly lastActiveAt?: string;
}

/** Sessions running right now in the agent process, which a client can attach to. */
export interface LiveSessionDirectory {
  listLiveSessions(): Promise<readonly LiveSessionInfo[]>;
}

export interface UnknownRunResolution {
  readonly runId: string;
  readonly admissionId: string;
  readonly status: string;
  readonly outcome: string;
}

/** Settling a run whose state a server restart lost (API Server `resolve-unknown`). */
export interface RunRecovery {
  resolveUnknownRun(runId: string): Promise<UnknownRunResolution>;
}

export function canRewrite(c: AgentConnection): c is Transport & HistoryRewriter {
  return isTransport(c) && c.transport.capabilities.rewrite && typeof (c as Partial<HistoryRewriter>).rewrite === 'function';
}

export function canAttach(c: AgentConnection): c is Transport & LiveSessionDirectory {
  return isTransport(c) && c.transport.capabilities.attach && typeof (c as Partial<LiveSessionDirectory>).listLiveSessions === 'function';
}

export function canRecoverRuns(c: AgentConnection): c is Transport & RunRecovery {
  return isTransport(c) && c.transport.capabilities.runRecovery && typeof (c as Partial<RunRecovery>).resolveUnknownRun === 'function';
}
