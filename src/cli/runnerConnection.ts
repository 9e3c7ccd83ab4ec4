import type * as acp from '@agentclientprotocol/sdk';
import { AcpClient, defaultTimeouts } from '../acp/acpConnection';
import { AgentProcess } from '../wire/agentProcess';
import type { PermissionPort } from '../agentPort/clientPorts';
import type { TrafficLog } from '../wire/trafficLog';
import type { McpSecretRedactor } from '../mcp/redaction';
import type { AgentConnection } from '../agentPort/agentConnection';
import { closeSessionIfSupported } from '../session/sessionClose';
import type { QuestionPort } from '../agentPort/questionPort';
import type { TransportKind } from '../agentPort/transport';
import type { RunOptions } from './args';
import { runMarkerVariable } from './processSweep';
import { TransportRunnerConnection } from './runnerTransport';

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

export function runnerConnection(deps: RunnerConnectionDeps): RunnerConnection {
  const transport = deps.options.transport;
  return transport === undefined ? new AcpRunnerConnection(deps) : new TransportRunnerConnection(transport, deps);
}

/** ACP: the agent command after `--`, spawned with the run marker, and an `AcpClient` on its stdio. */
class AcpRunnerConnection implements RunnerConnection {
  readonly kind = 'acp';
  private proc: AgentProcess | undefined;
  private client: AcpClient | undefined;
  private killed = false;

  constructor(private readonly deps: RunnerConnectionDeps) {}

  get connection(): AcpClient {
    if (this.client === undefined) {
      throw new Error('the agent connection is not open');
    }
    return this.client;
  }

  get closed(): Promise<AgentGone> {
    return this.connection.closed;
  }

  get spawned(): boolean {
    return this.proc !== undefined;
  }

  async open(): Promise<acp.InitializeResponse> {
    const { options, log } = this.deps;
    const spec = { command: options.agent.command, args: options.agent.args, cwd: options.cwd, env: { [runMarkerVariable]: this.deps.marker } };
    const proc = await AgentProcess.start(spec, { killGraceMs: 2000 });
    this.proc = proc;
    proc.onStderrLine((line) => {
      const entry = { dir: 'stderr', kind: 'text', size: Buffer.byteLength(line), text: line } as const;
      log.append(entry);
      // An agent that echoes an MCP secret to stderr must not print it on ours either.
      this.deps.stderrLine(this.deps.redactor.redact(line, entry));
    });
    if (this.killed) {
      proc.kill();
    }
    this.client = new AcpClient(proc, {
      clientInfo: { name: 'hermes-acp-run', title: 'Hermes ACP headless runner', version: this.deps.clientVersion },
      ports: { permission: this.deps.permission },
      log,
      // The core bounds a turn at 60 min; a longer --timeout must not be cut short by it.
      ...(options.timeoutMs !== undefined && options.timeoutMs + 60_000 > defaultTimeouts.prompt ? { timeouts: { prompt: options.timeoutMs + 60_000 } } : {}),
    });
    return this.client.initialize();
  }

  onWireUpdate(listener: (n: acp.SessionNotification) => void): void {
    this.connection.onAnyUpdate(listener);
  }

  authenticate(methodId: string): Promise<unknown> {
    return this.connection.authenticate(methodId);
  }

  kill(): void {
    this.killed = true;
    this.proc?.kill();
  }

  async closeSession(sessionId: string | undefined): Promise<void> {
    await closeSessionIfSupported(this.client, sessionId, 1000);
  }

  async dispose(): Promise<void> {
    this.client?.dispose();
    try {
      await this.proc?.dispose();
    } catch {
      // already gone
    }
  }
}
