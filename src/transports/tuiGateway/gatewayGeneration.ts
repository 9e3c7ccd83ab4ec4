import type * as acp from '@agentclientprotocol/sdk';
import type { TransportDescriptor } from '../../agentPort/transport';

/**
 * The two generations of the TUI Gateway (ARCHITECTURE.md "Transports"), told apart at connect by
 * `client.capabilities`: answered → `requests` (the documented gateway: questions are server
 * requests; truncating submits, model suggestions); `-32601` → `events` (Hermes v0.19.0, recorded:
 * questions are events answered by `*.respond` calls; no history rewrite).
 */
export type GatewayGeneration = 'requests' | 'events';

const shared = { fork: true, load: true, list: true, modes: false, clarify: true, secrets: true, attach: true, toolProgress: false, runRecovery: false } as const;

export function gatewayDescriptor(generation: GatewayGeneration): TransportDescriptor {
  return {
    kind: 'tui-gateway',
    capabilities: generation === 'requests' ? { ...shared, rewrite: true, modelSuggestions: true } : { ...shared, rewrite: false, modelSuggestions: false },
  };
}

/** The handshake's answer; `version` is Hermes' own once a `session.info` said it. */
export function gatewayAgentInfo(version: string): acp.InitializeResponse {
  return {
    protocolVersion: 1,
    agentInfo: { name: 'hermes-tui-gateway', title: 'Hermes (TUI Gateway)', version },
    agentCapabilities: { loadSession: true, sessionCapabilities: { list: {}, resume: {}, close: {} } },
    authMethods: [],
  };
}
