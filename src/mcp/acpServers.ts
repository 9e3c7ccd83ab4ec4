import type * as acp from '@agentclientprotocol/sdk';
import { parse as parseDotenv } from 'dotenv';
import { findOnPath } from '../registry/launch';
import type { McpInputResolver } from './inputs';
import type { McpConfigSource, McpInputDefinition, McpServerDefinition } from './mcpConfig';
import { expandVariables, inputsReferenced, VariableError, type VariableContext } from './variables';

/** What the conversion needs from the machine; tests pass `path.win32` functions to simulate Windows. */
export interface McpHost {
  readonly variables: VariableContext;
  readonly inputs: McpInputResolver;
  readonly platform: NodeJS.Platform;
  /** The PATH (and PATHEXT) stdio commands are looked up on: the agent's environment. */
  readonly PATH: string | undefined;
  readonly PATHEXT?: string | undefined;
  /** A regular file that may be run (on POSIX: with an execute bit). */
  readonly isExecutableFile: (p: string) => boolean;
  readonly readTextFile: (p: string) => string;
  readonly isAbsolute: (p: string) => boolean;
  readonly resolve: (...parts: string[]) => string;
  readonly join: (...parts: string[]) => string;
}

/** A configured server that is not passed to the agent, and why. */
export interface SkippedMcpServer {
  readonly name: string;
  readonly origin: string;
  readonly reason: string;
}

export interface McpServerList {
  /** In configuration order; names unique (an earlier source wins). */
  readonly servers: readonly acp.McpServer[];
  readonly skipped: readonly SkippedMcpServer[];
  /** Notes that do not stop a server (e.g. `cwd`, which ACP cannot carry). */
  readonly warnings: readonly SkippedMcpServer[];
}

/**
 * Turns configured servers into ACP `McpServer`s (ACP session-setup): stdio `{name, command, args,
 * env:[{name, value}]}` with an absolute command (looked up on PATH as VS Code does), http/sse
 * `{type, name, url, headers:[{name, value}]}`, every variable expanded. Sources come in priority
 * order: a name already taken by an earlier source is skipped (the user's setting over a
 * workspace's file, `--mcp-config` over the `--cwd`'s file). A server whose inputs were not given
 * is skipped, never sent with a hole.
 */
export async function buildMcpServers(sources: readonly McpConfigSource[], host: McpHost): Promise<McpServerList> {
  const servers: acp.McpServer[] = [];
  const skipped: SkippedMcpServer[] = [];
  const warnings: SkippedMcpServer[] = [];
  const taken = new Map<string, string>();
  for (const source of sources) {
    // One answer per input and source in one build: a dismissed input is not asked again for its next server.
    const answers = new Map<string, Promise<string | undefined>>();
    for (const p of source.problems) {
      skipped.push({ name: p.server ?? '(all)', origin: source.origin, reason: p.message });
    }
    for (const def of source.servers) {
      const earlier = taken.get(def.name);
      if (earlier !== undefined) {
        skipped.push({ name: def.name, origin: source.origin, reason: `a server of that name is already defined in ${earlier}` });
        continue;
      }
      try {
        const inputs = await resolveInputs(def, source, host.inputs, answers);
        const server = toAcp(def, host, inputs);
        taken.set(def.name, source.origin);
        servers.push(server);
        if (def.type === 'stdio' && def.cwd !== undefined) {
          warnings.push({ name: def.name, origin: source.origin, reason: `"cwd" is not sent: ACP gives MCP servers no working directory (the agent decides)` });
        }
      } catch (e) {
        skipped.push({ name: def.name, origin: source.origin, reason: e instanceof Error ? e.message : String(e) });
      }
    }
  }
  return { servers, skipped, warnings };
}

/** The agent's `mcpCapabilities` decide: stdio always (every agent must take it), http and sse only when advertised. */
export function filterForAgent(list: McpServerList, capabilities: acp.McpCapabilities | null | undefined, agentName: string): McpServerList {
  const servers: acp.McpServer[] = [];
  const skipped = [...list.skipped];
  for (const server of list.servers) {
    const type = 'type' in server ? server.type : 'stdio';
    if (type === 'stdio' || (type === 'http' && capabilities?.http === true) || (type === 'sse' && capabilities?.sse === true)) {
      servers.push(server);
    } else {
      skipped.push({ name: server.name, origin: 'agent capabilities', reason: `${agentName} does not take ${type} MCP servers (mcpCapabilities.${type} is not advertised)` });
    }
  }
  return { servers, skipped, warnings: list.warnings };
}

async function resolveInputs(
  def: McpServerDefinition,
  source: McpConfigSource,
  resolver: McpInputResolver,
  answers: Map<string, Promise<string | undefined>>,
): Promise<Map<string, string>> {
  const ids = new Set(textsOf(def).flatMap(inputsReferenced));
  const values = new Map<string, string>();
  for (const id of ids) {
    const input: McpInputDefinition | undefined = source.inputs.find((i) => i.id === id);
    if (input === undefined) {
      throw new VariableError(`\${input:${id}} is used but not declared in "inputs"`);
    }
    if (input.type === 'command') {
      throw new VariableError(`\${input:${id}} is a "command" input, which runs a VS Code command; this client does not run them`);
    }
    let answer = answers.get(id);
    if (answer === undefined) {
      answer = resolver.resolve(source.origin, input);
      answers.set(id, answer);
    }
    const value = await answer;
    if (value === undefined) {
      throw new VariableError(`no value was given for \${input:${id}} (${input.description})`);
    }
    values.set(id, value);
  }
  return values;
}

function textsOf(def: McpServerDefinition): string[] {
  if (def.type === 'stdio') {
    return [def.command, ...def.args, ...Object.values(def.env).filter((v): v is string => v !== null), def.envFile ?? '', def.cwd ?? ''];
  }
  return [def.url, ...Object.values(def.headers)];
}

function toAcp(def: McpServerDefinition, host: McpHost, inputs: ReadonlyMap<string, string>): acp.McpServer {
  const x = (text: string): string => expandVariables(text, host.variables, inputs);
  if (def.type === 'stdio') {
    const env: acp.EnvVariable[] = [];
    if (def.envFile !== undefined) {
      const file = absolute(x(def.envFile), host);
      let text: string;
      try {
        text = host.readTextFile(file);
      } catch (e) {
        throw new Error(`cannot read its envFile ${file}: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
      }
      for (const [name, value] of Object.entries(parseDotenv(text))) {
        env.push({ name, value });
      }
    }
    for (const [name, value] of Object.entries(def.env)) {
      if (value !== null) {
        const i = env.findIndex((e) => e.name === name);
        const entry = { name, value: x(value) };
        if (i >= 0) {
          env[i] = entry; // `env` overrides the envFile, as in VS Code
        } else {
          env.push(entry);
        }
      }
    }
    return { name: def.name, command: resolveCommand(x(def.command), host), args: def.args.map(x), env };
  }
  const url = x(def.url);
  if (!/^https?:\/\//i.test(url)) {
    throw new Error(`its url must be http:// or https://, not ${JSON.stringify(url.slice(0, 80))}`);
  }
  const headers = Object.entries(def.headers).map(([name, value]) => ({ name, value: x(value) }));
  return { type: def.type, name: def.name, url, headers };
}

/** ACP wants an absolute command: a path is taken relative to the workspace folder, a bare name is looked up on PATH. */
function resolveCommand(command: string, host: McpHost): string {
  const isPath = host.isAbsolute(command) || command.includes('/') || (host.platform === 'win32' && command.includes('\\'));
  if (isPath) {
    const file = absolute(command, host);
    const found = [file, ...windowsExtensions(host).map((ext) => file + ext)].find((p) => host.isExecutableFile(p));
    if (found === undefined) {
      throw new Error(`its command ${file} does not exist or cannot be run`);
    }
    return found;
  }
  const found = findOnPath(command, { platform: host.platform, PATH: host.PATH, PATHEXT: host.PATHEXT, isFile: host.isExecutableFile, join: host.join });
  if (found === undefined) {
    throw new Error(`its command \`${command}\` was not found on PATH`);
  }
  return found;
}

function absolute(p: string, host: McpHost): string {
  if (host.isAbsolute(p)) {
    return p;
  }
  const base = host.variables.workspaceFolder;
  if (base === undefined) {
    throw new VariableError(`the relative path ${p} needs an open workspace folder`);
  }
  return host.resolve(base, p);
}

function windowsExtensions(host: McpHost): string[] {
  if (host.platform !== 'win32') {
    return [];
  }
  return (host.PATHEXT ?? '.COM;.EXE;.BAT;.CMD').split(';').filter((e) => e !== '').map((e) => e.toLowerCase());
}
