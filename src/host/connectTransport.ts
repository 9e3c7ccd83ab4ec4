import type { TrafficLog } from '../wire/trafficLog';
import { ApiServerConnection } from '../transports/apiServer/apiServerConnection';
import type { TransportPorts } from '../agentPort/questionPort';
import type { Transport } from '../agentPort/transport';
import type { TransportSettings } from './transportSettings';
import { connectTuiGateway, gatewayCommand } from '../transports/tuiGateway/connectTuiGateway';

/** A connected non-ACP transport, with how it ends. */
export interface ConnectedTransport {
  readonly connection: Transport;
  /** Resolves with the reason once the connection is gone. */
  readonly closed: Promise<Error>;
  close(): Promise<void>;
}

export interface ConnectTransportOptions {
  readonly cwd: string;
  readonly log: TrafficLog;
  readonly ports: TransportPorts;
  /** The gateway token (WebSocket) or the API key, from SecretStorage or the environment. */
  readonly secret?: string;
  /** Extra environment for a gateway the extension starts. */
  readonly env?: Readonly<Record<string, string>>;
}

/** Connects (or starts) the transport an agent entry names and completes its handshake. */
export async function connectTransport(settings: TransportSettings, options: ConnectTransportOptions): Promise<ConnectedTransport> {
  if (settings.kind === 'api-server') {
    const connection = new ApiServerConnection({
      target: { baseUrl: settings.baseUrl, ...(options.secret !== undefined && options.secret !== '' ? { apiKey: options.secret } : {}) },
      log: options.log,
      ports: options.ports,
      mode: settings.mode,
    });
    await connection.connect();
    return { connection, closed: connection.closed, close: () => Promise.resolve(connection.dispose()) };
  }
  const target =
    settings.url !== undefined
      ? { kind: 'websocket' as const, url: settings.url, ...(options.secret !== undefined && options.secret !== '' ? { token: options.secret } : {}) }
      : { kind: 'stdio' as const, command: gatewayCommand(settings.python ?? 'python3', settings.hermesRoot ?? '', options.cwd, options.env) };
  const connection = await connectTuiGateway(target, { log: options.log, ports: options.ports });
  return { connection, closed: connection.closed, close: () => connection.dispose() };
}
