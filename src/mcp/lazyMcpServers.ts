import { loadChunk } from '../util/lazyChunk';
import type { McpServerList } from './acpServers';
import type * as McpServersChunk from './mcpServers';
import type { McpSourceSpec } from './mcpSources';

/**
 * `loadMcpServers` on this machine, its module loaded from a chunk of its own
 * (`dist/mcpServers.js`: the `mcp.json` reader with its zod schema, jsonc-parser and dotenv) when the
 * first session is set up, not when the extension activates (P4).
 */
export function loadMcpServersLazily(specs: readonly McpSourceSpec[], options: McpServersChunk.NodeMcpHostOptions): Promise<McpServerList> {
  const chunk = loadChunk<typeof McpServersChunk>(__dirname, 'mcpServers');
  return chunk.loadMcpServers(specs, chunk.nodeMcpHost(options));
}
