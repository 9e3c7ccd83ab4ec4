import type { OffersView } from '../protocol/sessionView';
import type { AgentConnection } from '../agentPort/agentConnection';
import { isTransport } from '../agentPort/transport';

/**
 * What the chat may offer for a connection, from its transport's declared capabilities (the UI
 * offers only what the transport can do). ACP connections keep the chat's existing defaults: absent.
 */
export function transportOffers(connection: AgentConnection | undefined): { readonly offers?: OffersView } {
  if (connection === undefined || !isTransport(connection)) {
    return {};
  }
  const c = connection.transport.capabilities;
  return { offers: { rewrite: c.rewrite, fork: c.fork, modes: c.modes, attach: c.attach } };
}
