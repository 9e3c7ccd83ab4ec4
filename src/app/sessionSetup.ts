import type * as acp from '@agentclientprotocol/sdk';
import type { TrafficLog } from '../wire/trafficLog';
import { filterForAgent, type McpServerList } from '../mcp/acpServers';
import type { McpServersView } from '../protocol/sessionView';
import type { SessionSetupParams } from '../session/sessionController';

/** Where a chat's session setup comes from besides its cwd (the extension: settings, `.vscode/mcp.json`, the workspace folders). */
export interface SessionSetupSource {
  /**
   * The configured MCP servers, not yet filtered for the agent. Their secrets (input answers,
   * credential-named headers and variables) are registered with `log`'s redactor before this resolves.
   */
  mcpServers(log: TrafficLog): Promise<McpServerList>;
  /** Every workspace folder; the chat's cwd is one of them. */
  folders(): readonly string[];
}


export interface SessionSetup {
  readonly params: SessionSetupParams;
  /** For the chat header: the servers passed (name, transport) and those left out (with why). */
  readonly view: McpServersView;
}

/**
 * The setup for one agent: MCP servers filtered by its `mcpCapabilities` (stdio always, http/sse
 * only when advertised; each one left out named with the reason), and the other workspace folders
 * as `additionalDirectories` when it advertises `sessionCapabilities.additionalDirectories`
 * (ACP session-setup; absolute paths, the cwd not repeated).
 */
export async function prepareSessionSetup(
  source: SessionSetupSource | undefined,
  agent: acp.InitializeResponse | undefined,
  agentName: string,
  cwd: string,
  log: TrafficLog,
): Promise<SessionSetup> {
  const all = source !== undefined ? await source.mcpServers(log) : { servers: [], skipped: [], warnings: [] };
  const list = filterForAgent(all, agent?.agentCapabilities?.mcpCapabilities, agentName);
  const dirsCap = agent?.agentCapabilities?.sessionCapabilities?.additionalDirectories;
  const others = (source?.folders() ?? []).filter((f) => f !== cwd);
  const additional = dirsCap !== undefined && dirsCap !== null && others.length > 0 ? { additionalDirectories: [...new Set(others)] } : {};
  return {
    params: { mcpServers: [...list.servers], ...additional },
    view: {
      passed: list.servers.map((s) => ({ name: s.name, transport: 'type' in s ? s.type : 'stdio' })),
      skipped: list.skipped.map((s) => ({ name: s.name, reason: s.reason })),
    },
  };
}
