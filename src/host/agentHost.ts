import type * as acp from '@agentclientprotocol/sdk';
import { Emitter } from '../util/emitter';
import type { AcpClientOptions, RequestTimeouts } from '../acp/acpConnection';
import { createAcpClient } from '../acp/lazyAcpClient';
import { AgentProcess, type AgentCommand } from '../wire/agentProcess';
import type { ClientPorts } from '../agentPort/clientPorts';
import { TrafficLog } from '../wire/trafficLog';
import { AgentExitedError as ExitedError } from '../agentPort/agentErrors';
import type { AgentConnection } from '../agentPort/agentConnection';
import type { QuestionPort } from '../agentPort/questionPort';
import type { TransportSettings } from './transportSettings';
import type { ConnectedTransport, ConnectTransportOptions } from './connectTransport';

/** An agent the user configured (or a built-in preset). */
export interface AgentDefinition {
  readonly id: string;
  readonly name: string;
  readonly command: string;
  readonly args: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The built-in scripted agent standing in for a missing one; labelled "Demo" everywhere. */
  readonly demo?: boolean;
  /** Installed from the ACP Registry (`src/registry`), at the pinned `version`. */
  readonly source?: 'registry';
  readonly version?: string;
  /** Reached through the TUI Gateway or the API Server instead of ACP on stdio (`command` unused). */
  readonly transport?: TransportSettings;
}

/** The connection a host holds: ACP's client, or a non-ACP transport (src/transports). */
export type HostConnection = AgentConnection & { close(): Promise<void> };

export type AgentState =
  | { readonly kind: 'notStarted' }
  | { readonly kind: 'starting' }
  | { readonly kind: 'ready'; readonly info: acp.InitializeResponse }
  | { readonly kind: 'exited'; readonly error: ExitedError }
  | { readonly kind: 'failed'; readonly error: unknown };

export interface AgentHostOptions {
  readonly cwd: string;
  readonly clientInfo: acp.Implementation;
  readonly ports: ClientPorts;
  readonly capabilities?: AcpClientOptions['capabilities'];
  readonly timeouts?: Partial<RequestTimeouts>;
  readonly log?: TrafficLog;
  /** Extra environment for the process (overlaid after the definition's env). */
  readonly env?: Readonly<Record<string, string>>;
  /** Time between SIGTERM and SIGKILL when the process is stopped (AgentProcess's default otherwise). */
  readonly killGraceMs?: number;
  /** Where a non-ACP transport's clarify / secret questions go. */
  readonly questions?: QuestionPort;
  /** Connects a definition's non-ACP transport (injected: `src/host/connectTransport`). */
  readonly connectTransport?: (settings: TransportSettings, options: ConnectTransportOptions) => Promise<ConnectedTransport>;
  /** The token or key a transport needs (SecretStorage, prompted when missing; the runner's environment). */
  readonly transportSecret?: (def: AgentDefinition) => Promise<string | undefined>;
}

/**
 * One agent process and its ACP connection, started on demand: spawn → initialize → ready. Exits
 * are reported, not hidden; restarting is explicit (the surface layer decides the policy).
 */
export class AgentHost {
  readonly log: TrafficLog;
  private stateValue: AgentState = { kind: 'notStarted' };
  private process: AgentProcess | undefined;
  private clientValue: HostConnection | undefined;
  private starting: Promise<HostConnection> | undefined;
  private generation = 0;
  private disposed = false;
  /** Variables a sign-in method set (env-var auth): overlaid last, from the next start on; never logged. */
  private signInEnvValue: Readonly<Record<string, string>> = {};
  private readonly onDidChangeStateEmitter = new Emitter<AgentState>();
  private readonly onDidExitEmitter = new Emitter<ExitedError>();
  private readonly onDidConnectEmitter = new Emitter<HostConnection>();
  private readonly onStderrLineEmitter = new Emitter<string>();
  readonly onDidChangeState = this.onDidChangeStateEmitter.event;
  /** The agent process ended while connected (expected or not). */
  readonly onDidExit = this.onDidExitEmitter.event;
  /** A new connection is ready (first start and every restart). */
  readonly onDidConnect = this.onDidConnectEmitter.event;
  /** A line the agent wrote to stderr (also in the traffic log). */
  readonly onStderrLine = this.onStderrLineEmitter.event;

  constructor(
    readonly definition: AgentDefinition,
    private readonly options: AgentHostOptions,
  ) {
    this.log = options.log ?? new TrafficLog();
  }

  get state(): AgentState {
    return this.stateValue;
  }

  get client(): HostConnection | undefined {
    return this.clientValue;
  }

  get pid(): number | undefined {
    return this.process?.isRunning === true ? this.process.pid : undefined;
  }

  /** What the running agent wrote to stderr since its last message on stdout (a start that hangs: why). */
  stderrTail(maxLines = 40): string {
    return this.process?.stderrTail(maxLines) ?? '';
  }

  get signInEnv(): Readonly<Record<string, string>> {
    return this.signInEnvValue;
  }

  /** Sets (a value) or clears (undefined) a sign-in variable for the next start (env-var auth). */
  setSignInEnv(name: string, value: string | undefined): void {
    const next = { ...this.signInEnvValue };
    if (value === undefined) {
      delete next[name];
    } else {
      next[name] = value;
    }
    this.signInEnvValue = next;
  }

  /** Starts the agent if needed and resolves with a ready connection. */
  start(): Promise<HostConnection> {
    if (this.disposed) {
      return Promise.reject(new Error('The agent host was disposed.'));
    }
    if (this.clientValue !== undefined && !this.clientValue.isClosed && this.stateValue.kind === 'ready') {
      return Promise.resolve(this.clientValue);
    }
    this.starting ??= this.doStart().finally(() => {
      this.starting = undefined;
    });
    return this.starting;
  }

  /** Stops the process (and everything it started). Resolves when it is gone. */
  async stop(): Promise<void> {
    this.generation++;
    const proc = this.process;
    // Answers owed to the agent (permissions settled as the chats closed) go out before stdin closes.
    await this.clientValue?.close();
    if (proc !== undefined) {
      await proc.dispose();
    }
    this.process = undefined;
    this.clientValue = undefined;
    if (!this.disposed) {
      this.setState({ kind: 'notStarted' });
    }
  }

  /**
   * Kills the agent at once (SIGKILL to its process group); a start under way is abandoned as soon
   * as its process exists. The exit is reported as usual. For a caller that cannot wait for
   * {@link stop} (the runner's second interrupt, a turn that outlived its cancel grace).
   */
  kill(): void {
    if (this.process !== undefined) {
      this.process.kill();
    } else if (this.starting !== undefined) {
      this.generation++;
    }
  }

  async restart(): Promise<HostConnection> {
    await this.stop();
    return this.start();
  }

  async dispose(): Promise<void> {
    if (this.disposed) {
      return;
    }
    this.disposed = true;
    await this.stop();
    this.onDidChangeStateEmitter.dispose();
    this.onDidExitEmitter.dispose();
    this.onDidConnectEmitter.dispose();
    this.onStderrLineEmitter.dispose();
  }

  private async doStart(): Promise<HostConnection> {
    const generation = ++this.generation;
    this.setState({ kind: 'starting' });
    const def = this.definition;
    if (def.transport !== undefined) {
      return this.startTransport(def.transport, generation);
    }
    const spec: AgentCommand = {
      command: def.command,
      args: def.args,
      cwd: this.options.cwd,
      env: { ...def.env, ...this.options.env, ...this.signInEnvValue },
    };
    this.log.note(`starting ${def.name}: ${[def.command, ...def.args].join(' ')} (cwd ${this.options.cwd})`);
    let proc: AgentProcess;
    try {
      proc = await AgentProcess.start(spec, this.options.killGraceMs !== undefined ? { killGraceMs: this.options.killGraceMs } : {});
    } catch (error) {
      this.log.note(`could not start ${def.name}: ${error instanceof Error ? error.message : String(error)}`);
      this.setState({ kind: 'failed', error });
      throw error;
    }
    if (generation !== this.generation || this.disposed) {
      await proc.dispose();
      throw new Error('The agent start was superseded.');
    }
    this.process = proc;
    proc.onStderrLine((line) => {
      this.log.append({ dir: 'stderr', kind: 'text', size: Buffer.byteLength(line), text: line });
      this.onStderrLineEmitter.fire(line);
    });
    const client = createAcpClient(proc, {
      clientInfo: this.options.clientInfo,
      ports: this.options.ports,
      log: this.log,
      ...(this.options.capabilities !== undefined ? { capabilities: this.options.capabilities } : {}),
      ...(this.options.timeouts !== undefined ? { timeouts: this.options.timeouts } : {}),
    });
    this.clientValue = client;
    void client.closed.then((exit) => {
      if (this.clientValue === client) {
        this.clientValue = undefined;
        this.process = undefined;
        if (!this.disposed) {
          this.setState({ kind: 'exited', error: exit });
        }
      }
      this.onDidExitEmitter.fire(exit);
    });
    try {
      const info = await client.initialize();
      if (generation !== this.generation) {
        throw new Error('The agent start was superseded.');
      }
      this.setState({ kind: 'ready', info });
      this.onDidConnectEmitter.fire(client);
      return client;
    } catch (error) {
      // A failed initialize leaves no half-started agent behind.
      if (this.clientValue === client) {
        await this.stop();
      }
      this.setState({ kind: 'failed', error });
      throw error;
    }
  }

  /** A TUI Gateway or API Server connection: connect, handshake, ready; its end is reported as an exit. */
  private async startTransport(settings: TransportSettings, generation: number): Promise<HostConnection> {
    const connect = this.options.connectTransport;
    try {
      if (connect === undefined) {
        throw new Error(`${this.definition.name} uses the ${settings.kind} transport, which this client cannot connect.`);
      }
      const secret = await this.options.transportSecret?.(this.definition);
      this.log.note(`connecting to ${this.definition.name} over the ${settings.kind} transport`);
      const connected = await connect(settings, {
        cwd: this.options.cwd,
        log: this.log,
        ports: { permission: this.options.ports.permission, ...(this.options.questions !== undefined ? { questions: this.options.questions } : {}) },
        ...(secret !== undefined ? { secret } : {}),
        env: { ...this.definition.env, ...this.options.env },
      });
      const client: HostConnection = Object.assign(connected.connection, { close: () => connected.close() });
      if (generation !== this.generation || this.disposed) {
        await connected.close();
        throw new Error('The agent start was superseded.');
      }
      this.clientValue = client;
      void connected.closed.then((error) => {
        const exit = new ExitedError(null, null, error.message, generation !== this.generation);
        if (this.clientValue === client) {
          this.clientValue = undefined;
          if (!this.disposed) {
            this.setState({ kind: 'exited', error: exit });
          }
        }
        this.onDidExitEmitter.fire(exit);
      });
      const info = client.agent ?? { protocolVersion: 1 };
      this.setState({ kind: 'ready', info });
      this.onDidConnectEmitter.fire(client);
      return client;
    } catch (error) {
      this.log.note(`could not connect ${this.definition.name}: ${error instanceof Error ? error.message : String(error)}`);
      this.setState({ kind: 'failed', error });
      throw error;
    }
  }

  private setState(state: AgentState): void {
    this.stateValue = state;
    this.onDidChangeStateEmitter.fire(state);
  }
}
