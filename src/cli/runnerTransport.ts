import type * as acp from '@agentclientprotocol/sdk';
import type { AgentConnection } from '../agentPort/agentConnection';
import { closeSessionIfSupported } from '../session/sessionClose';
import type { ConnectedTransport } from '../host/connectTransport';
import { NotSupportedError, TransportClosedError } from '../agentPort/transportErrors';
import { connectTransportLazily } from '../host/lazyConnect';
import type { TransportSettings } from '../host/transportSettings';
import { Deferred } from '../util/deferred';
import type { Disposable } from '../util/disposable';
import { runMarkerVariable } from './processSweep';
import type { AgentGone, RunnerConnection, RunnerConnectionDeps } from './runnerPort';

/** How long stopping waits for a handshake still under way; the run marker sweep stops what remains. */
const pendingConnectWaitMs = 2000;

/**
 * A TUI Gateway (a gateway started from `--hermes-root`, or one attached at `--gateway-url`) or an
 * API Server (`--base-url`) as the runner's connection, through the extension's own adapters
 * (`connectTransport`, loaded from its chunk as in the extension). The token or key comes from the
 * environment — `HERMES_GATEWAY_TOKEN`, `HERMES_API_KEY` — and never reaches the traffic log.
 */
export class TransportRunnerConnection implements RunnerConnection {
  readonly kind: TransportSettings['kind'];
  private connected: ConnectedTransport | undefined;
  private pending: Promise<ConnectedTransport> | undefined;
  private tapped: AgentConnection | undefined;
  private wireListener: ((n: acp.SessionNotification) => void) | undefined;
  private stderrSubscription: Disposable | undefined;
  private readonly stopped = new Deferred<never>();

  constructor(
    private readonly settings: TransportSettings,
    private readonly deps: RunnerConnectionDeps,
  ) {
    this.kind = settings.kind;
    this.stopped.promise.catch(() => undefined);
  }

  get connection(): AgentConnection {
    if (this.tapped === undefined) {
      throw new Error('the transport is not connected');
    }
    return this.tapped;
  }

  get closed(): Promise<AgentGone> {
    if (this.connected === undefined) {
      throw new Error('the transport is not connected');
    }
    return this.connected.closed.then((e) => ({ message: e.message, stderrTail: TransportClosedError.is(e) ? e.stderrTail : '' }));
  }

  /** Only a gateway we start is a process of ours. */
  get spawned(): boolean {
    return this.pending !== undefined && this.settings.kind === 'tui-gateway' && this.settings.url === undefined;
  }

  async open(): Promise<acp.InitializeResponse> {
    const { options, log } = this.deps;
    // The gateway's stderr reaches the traffic log through its channel; mirror it on ours, as for an ACP agent.
    this.stderrSubscription = log.onDidAppend((entry) => {
      if (entry.dir === 'stderr' && entry.text !== undefined) {
        this.deps.stderrLine(entry.text);
      }
    });
    const env = process.env;
    const secret = this.settings.kind === 'api-server' ? env.HERMES_API_KEY : this.settings.url !== undefined ? env.HERMES_GATEWAY_TOKEN : undefined;
    this.pending = connectTransportLazily(this.settings, {
      cwd: options.cwd,
      log,
      ports: { permission: this.deps.permission, questions: this.deps.questions },
      ...(secret !== undefined && secret !== '' ? { secret } : {}),
      env: { ...options.gatewayEnv, [runMarkerVariable]: this.deps.marker },
    });
    const connected = await Promise.race([this.pending, this.stopped.promise]);
    this.connected = connected;
    this.tapped = tapUpdates(connected.connection, (n) => this.wireListener?.(n));
    const init = connected.connection.agent;
    if (init === undefined) {
      throw new TransportClosedError('The transport connected without a handshake; see the traffic log.');
    }
    return init;
  }

  onWireUpdate(listener: (n: acp.SessionNotification) => void): void {
    this.wireListener = listener;
  }

  authenticate(): Promise<unknown> {
    return Promise.reject(new NotSupportedError(this.kind, 'ACP sign-in (authenticate)'));
  }

  kill(): void {
    this.stopped.reject(new TransportClosedError('stopped before the connection was up'));
    void this.connected?.close().catch(() => undefined);
  }

  async closeSession(sessionId: string | undefined): Promise<void> {
    await closeSessionIfSupported(this.connected?.connection, sessionId, 1000);
  }

  async dispose(): Promise<void> {
    const pending = this.pending;
    try {
      if (this.connected !== undefined) {
        await this.connected.close();
      } else if (pending !== undefined) {
        let timer: NodeJS.Timeout | undefined;
        const late = pending.then((c) => c.close());
        await Promise.race([late, new Promise<void>((resolve) => (timer = setTimeout(resolve, pendingConnectWaitMs)))]).finally(() => clearTimeout(timer));
      }
    } catch {
      // it never came up, or is already gone
    } finally {
      this.stderrSubscription?.dispose();
    }
  }
}

/**
 * The connection with every update also shown to `tap` first, the way `AcpClient.onAnyUpdate`
 * fires before the session's listener (the transports' router keeps one listener per session).
 */
function tapUpdates(connection: AgentConnection, tap: (n: acp.SessionNotification) => void): AgentConnection {
  const subscribeSession: AgentConnection['subscribeSession'] = (sessionId, listener, onProblem) =>
    connection.subscribeSession(
      sessionId,
      (n) => {
        tap(n);
        listener(n);
      },
      onProblem,
    );
  return new Proxy(connection, {
    get(target, prop): unknown {
      if (prop === 'subscribeSession') {
        return subscribeSession;
      }
      const value: unknown = Reflect.get(target, prop, target);
      return typeof value === 'function' ? (value as (...args: unknown[]) => unknown).bind(target) : value;
    },
  });
}
