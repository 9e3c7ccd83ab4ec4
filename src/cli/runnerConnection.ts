import type * as acp from '@agentclientprotocol/sdk';
import { AcpClient, defaultTimeouts } from '../acp/acpConnection';
import { AgentProcess } from '../wire/agentProcess';
import { closeSessionIfSupported } from '../session/sessionClose';
import { runMarkerVariable } from './processSweep';
import type { AgentGone, RunnerConnection, RunnerConnectionDeps } from './runnerPort';
import { TransportRunnerConnection } from './runnerTransport';

export type { AgentGone, RunnerConnection, RunnerConnectionDeps } from './runnerPort';

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
    const spec = { command: options.agent.command, args: options.agent.args, cwd: options.cwd, env: { ...options.agent.env, [runMarkerVariable]: this.deps.marker } };
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
