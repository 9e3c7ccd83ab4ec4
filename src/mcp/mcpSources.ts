import * as path from 'node:path';

/** Where MCP servers are configured, in priority order (an earlier source keeps a name). */
export type McpSourceSpec =
  /** An `mcp.json` in VS Code's format; a missing file is no servers, not an error. */
  | { readonly kind: 'file'; readonly path: string; readonly required?: boolean }
  /** A settings value of the same shape (`hermes.mcpServers`). */
  | { readonly kind: 'value'; readonly value: unknown; readonly origin: string };

export const mcpSettingOrigin = 'setting:hermes.mcpServers';

/** `.vscode/mcp.json` of a folder. */
export function workspaceMcpFile(folder: string): string {
  return path.join(folder, '.vscode', 'mcp.json');
}
