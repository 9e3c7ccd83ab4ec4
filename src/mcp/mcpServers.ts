import { accessSync, constants, readFileSync, statSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { buildMcpServers, type McpHost, type McpServerList } from './acpServers';
import type { McpInputResolver } from './inputs';
import { mcpConfigFromValue, parseMcpConfig, type McpConfigSource } from './mcpConfig';
import type { McpSourceSpec } from './mcpSources';

export { mcpSettingOrigin, workspaceMcpFile, type McpSourceSpec } from './mcpSources';

export function readMcpSources(specs: readonly McpSourceSpec[]): McpConfigSource[] {
  return specs.flatMap((spec): McpConfigSource[] => {
    if (spec.kind === 'value') {
      return [mcpConfigFromValue(spec.value, spec.origin)];
    }
    let text: string;
    try {
      text = readFileSync(spec.path, 'utf8');
    } catch (e) {
      const missing = (e as NodeJS.ErrnoException).code === 'ENOENT';
      if (missing && spec.required !== true) {
        return [];
      }
      return [{ origin: spec.path, servers: [], inputs: [], problems: [{ message: `cannot read ${spec.path}: ${e instanceof Error ? e.message : String(e)}` }] }];
    }
    return [parseMcpConfig(text, spec.path)];
  });
}

export interface NodeMcpHostOptions {
  readonly workspaceFolder: string | undefined;
  /** The environment `${env:…}` reads and commands are looked up in (the agent's). */
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly inputs: McpInputResolver;
}

/** An {@link McpHost} on this machine (Node's fs, path and os). */
export function nodeMcpHost(o: NodeMcpHostOptions): McpHost {
  return {
    variables: { workspaceFolder: o.workspaceFolder, userHome: os.homedir(), env: o.env, pathSeparator: path.sep, basename: (p) => path.basename(p) },
    inputs: o.inputs,
    platform: process.platform,
    PATH: o.env.PATH ?? o.env.Path,
    PATHEXT: o.env.PATHEXT,
    isExecutableFile: (p) => {
      try {
        if (!statSync(p).isFile()) {
          return false;
        }
        accessSync(p, process.platform === 'win32' ? constants.F_OK : constants.X_OK);
        return true;
      } catch {
        return false;
      }
    },
    readTextFile: (p) => readFileSync(p, 'utf8'),
    isAbsolute: (p) => path.isAbsolute(p),
    resolve: (...parts) => path.resolve(...parts),
    join: (...parts) => path.join(...parts),
  };
}

/** Reads the sources and converts them (not yet filtered for an agent: see `filterForAgent`). */
export function loadMcpServers(specs: readonly McpSourceSpec[], host: McpHost): Promise<McpServerList> {
  return buildMcpServers(readMcpSources(specs), host);
}
