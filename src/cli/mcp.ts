import type * as acp from '@agentclientprotocol/sdk';
import { filterForAgent } from '../mcp/acpServers';
import { environmentInputs, inputVariableName, McpInputResolver } from '../mcp/inputs';
import { loadMcpServers, nodeMcpHost, workspaceMcpFile, type McpSourceSpec } from '../mcp/mcpServers';
import { secretValuesOf, type McpSecretRedactor } from '../mcp/redaction';
import { minSecretLength } from './secretMask';

export interface RunnerMcp {
  /** What `session/new` carries: the configured servers the agent can take. */
  readonly servers: acp.McpServer[];
  /** One line per server left out, and per note, for stderr. */
  readonly diagnostics: readonly string[];
}

/**
 * The runner's MCP servers: `--mcp-config FILE` first, then `.vscode/mcp.json` in the `--cwd`, with
 * `${input:…}` values from the environment (`HERMES_MCP_INPUT_<ID>`), filtered by the agent's
 * `mcpCapabilities`. Their secrets go to `redactor` before anything is sent.
 */
export async function runnerMcpServers(
  o: { readonly cwd: string; readonly mcpConfig: string | undefined; readonly env: NodeJS.ProcessEnv },
  init: acp.InitializeResponse,
  agentName: string,
  redactor: McpSecretRedactor,
): Promise<RunnerMcp> {
  const specs: McpSourceSpec[] = [
    ...(o.mcpConfig !== undefined ? [{ kind: 'file', path: o.mcpConfig, required: true } as const] : []),
    { kind: 'file', path: workspaceMcpFile(o.cwd) },
  ];
  const inputs = new McpInputResolver(environmentInputs(o.env));
  const all = await loadMcpServers(specs, nodeMcpHost({ workspaceFolder: o.cwd, env: o.env, inputs }));
  const list = filterForAgent(all, init.agentCapabilities?.mcpCapabilities, agentName);
  redactor.add(inputs.secrets);
  // Credential-named values of the files: a value too short to be a secret would shred ordinary text.
  redactor.add(secretValuesOf(list.servers).filter((v) => v.length >= minSecretLength));
  const diagnostics = [
    ...list.skipped.map((s) => `hermes-acp-run: MCP server "${s.name}" (${s.origin}) left out: ${s.reason}${inputHint(s.reason)}`),
    ...list.warnings.map((s) => `hermes-acp-run: MCP server "${s.name}" (${s.origin}): ${s.reason}`),
  ];
  return { servers: [...list.servers], diagnostics };
}

/** Where the runner takes an input's value from, for a server left out for want of one. */
function inputHint(reason: string): string {
  const id = /^no value was given for \$\{input:([^}]+)\}/.exec(reason)?.[1];
  return id === undefined ? '' : ` (set ${inputVariableName(id)})`;
}
