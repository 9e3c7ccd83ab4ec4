import type * as acp from '@agentclientprotocol/sdk';
import type { AgentConnection } from '../agentPort/agentConnection';
import type { PermissionPort } from '../agentPort/clientPorts';
import type { QuestionPort } from '../agentPort/questionPort';
import type { TransportKind } from '../agentPort/transport';
import type { McpSecretRedactor } from '../mcp/redaction';
import type { TrafficLog } from '../wire/trafficLog';
import type { RunOptions } from './args';

/** How the agent went away: the message and its last stderr lines (when it is a process we started). */
export interface AgentGone {
  readonly message: string;
  readonly stderrTail: string;
}

/**
 * What one run talks to, whatever the transport (ARCHITECTURE.md "The runner's connection"): ACP
 * over the agent command's stdio, or a TUI Gateway / API Server connection. The runner opens it,
 * hands {@link connection} to its `SessionController`, and stops it when the run ends.
 */
export interface RunnerConnection {
  readonly kind: TransportKind;
  /** Starts or connects to the agent and completes the handshake; rejects when that fails. */
  open(): Promise<acp.InitializeResponse>;
  /** The session layer's port; only after {@link open} resolved. */
  readonly connection: AgentConnection;
  /** Resolves once the agent is gone; only after {@link open} resolved. */
  readonly closed: Promise<AgentGone>;
  /** Every valid `session/update`, just before the session's listener gets it. */
  onWireUpdate(listener: (n: acp.SessionNotification) => void): void;
  authenticate(methodId: string): Promise<unknown>;
  /** Stops the agent at once (also while {@link open} is pending: it then rejects or the agent is stopped as it comes up). */
  kill(): void;
  /** The session's close (where the agent advertises it), bounded. */
  closeSession(sessionId: string | undefined): Promise<void>;
  /** Stops the agent; resolves when it is gone. */
  dispose(): Promise<void>;
  /** A process was started, whose descendants carry the run marker. */
  readonly spawned: boolean;
}

export interface RunnerConnectionDeps {
  readonly options: RunOptions;
  readonly clientVersion: string;
  readonly log: TrafficLog;
  /** Hides MCP secrets an ACP agent echoes on stderr. */
  readonly redactor: McpSecretRedactor;
  /** The run's process marker (processSweep.ts), put in the agent's environment. */
  readonly marker: string;
  readonly permission: PermissionPort;
  /** Questions only non-ACP transports ask (clarify, secrets). */
  readonly questions: QuestionPort;
  /** An agent stderr line, already redacted. */
  readonly stderrLine: (shown: string) => void;
}
