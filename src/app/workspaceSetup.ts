import type { TrafficLog } from '../wire/trafficLog';
import type { McpServerList } from '../mcp/acpServers';
import { McpInputResolver, type McpInputPrompt } from '../mcp/inputs';
import { loadMcpServersLazily } from '../mcp/lazyMcpServers';
import { mcpSettingOrigin, workspaceMcpFile, type McpSourceSpec } from '../mcp/mcpSources';
import { McpSecretRedactor, secretValuesOf } from '../mcp/redaction';
import type { SessionSetupSource } from './sessionSetup';
import type { SecretStore } from './signIn';

/**
 * Session setup of a window: the MCP servers of the machine-scoped `hermes.mcpServers` setting, then
 * of each workspace folder's `.vscode/mcp.json` (`${workspaceFolder}` is that folder; a name already
 * taken keeps its first definition), `${input:…}` asked once in an input box (masked for
 * `password`) and kept in `SecretStorage`; every secret goes to the traffic log's redactor first.
 */
export class WorkspaceSessionSetup implements SessionSetupSource {
  private readonly inputs: McpInputResolver;
  private readonly redactors = new WeakMap<TrafficLog, McpSecretRedactor>();

  constructor(
    prompt: McpInputPrompt,
    secrets: SecretStore,
    private readonly setting: () => unknown,
    private readonly workspaceFolders: () => readonly string[],
  ) {
    this.inputs = new McpInputResolver(prompt, secrets);
  }

  folders(): readonly string[] {
    return this.workspaceFolders();
  }

  async mcpServers(log: TrafficLog): Promise<McpServerList> {
    const setting = this.setting();
    const folders = this.workspaceFolders();
    const groups: { folder: string | undefined; specs: McpSourceSpec[] }[] = folders.map((folder) => ({ folder, specs: [{ kind: 'file', path: workspaceMcpFile(folder) }] }));
    if (setting !== undefined && setting !== null) {
      const first = groups[0] ?? { folder: undefined, specs: [] };
      groups[0] = { folder: first.folder, specs: [{ kind: 'value', value: setting, origin: mcpSettingOrigin }, ...first.specs] };
    }
    const merged: { servers: McpServerList['servers'][number][]; skipped: McpServerList['skipped'][number][]; warnings: McpServerList['warnings'][number][] } = { servers: [], skipped: [], warnings: [] };
    for (const g of groups) {
      const list = await loadMcpServersLazily(g.specs, { workspaceFolder: g.folder, env: process.env, inputs: this.inputs });
      for (const s of list.servers) {
        if (merged.servers.some((m) => m.name === s.name)) {
          merged.skipped.push({ name: s.name, origin: g.folder ?? '', reason: 'a server of that name is already defined in another workspace folder or the setting' });
        } else {
          merged.servers.push(s);
        }
      }
      merged.skipped.push(...list.skipped);
      merged.warnings.push(...list.warnings);
    }
    const redactor = this.redactorFor(log);
    redactor.add(this.inputs.secrets);
    redactor.add(secretValuesOf(merged.servers));
    return merged;
  }

  private redactorFor(log: TrafficLog): McpSecretRedactor {
    let r = this.redactors.get(log);
    if (r === undefined) {
      r = new McpSecretRedactor();
      log.addRedactor(r);
      this.redactors.set(log, r);
    }
    return r;
  }
}

