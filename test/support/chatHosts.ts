import { AgentHosts } from '../../src/app/agentHosts';
import type { ChatRegistry } from '../../src/app/chatRegistry';
import { formatMessage } from '../../src/util/l10n';

/** The window's agent hosts as the extension wires them, for a headless chat registry in `ws` (consent always given). */
export function chatHosts(registry: ChatRegistry, ws: string, report: (message: string) => void = () => undefined): AgentHosts {
  return new AgentHosts({
    cwd: () => ws,
    clientInfo: { name: 'hermes-acp-tests', version: '0.0.0' },
    ports: { permission: { requestPermission: (p, signal) => registry.routePermission(p, signal ?? new AbortController().signal) } },
    t: formatMessage,
    chatsOn: (h) => registry.on(h),
    allow: () => Promise.resolve(true),
    report,
  });
}
