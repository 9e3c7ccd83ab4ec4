import { parse as parseJsonc, printParseErrorCode, type ParseError } from 'jsonc-parser';
import * as z from 'zod/v4';
import { isObject } from '../util/json';

/**
 * MCP server configuration in VS Code's own format (`.vscode/mcp.json`, and the `hermes.mcpServers`
 * setting, which has the same shape): `servers` maps a name to a `stdio` (command, args, env,
 * envFile) or `http`/`sse` (url, headers) entry; `inputs` declares the `${input:id}` variables
 * (https://code.visualstudio.com/docs/copilot/reference/mcp-configuration). The file is JSONC, as
 * every VS Code settings file. One bad entry is reported and skipped; the others still count.
 */
export type McpServerDefinition = McpStdioDefinition | McpRemoteDefinition;

export interface McpStdioDefinition {
  readonly name: string;
  readonly type: 'stdio';
  readonly command: string;
  readonly args: readonly string[];
  /** `null` unsets a variable in VS Code; ACP can only set, so such entries are left out. */
  readonly env: Readonly<Record<string, string | null>>;
  readonly envFile?: string;
  /** VS Code's working directory of the server; ACP has no field for it (reported, not sent). */
  readonly cwd?: string;
}

export interface McpRemoteDefinition {
  readonly name: string;
  readonly type: 'http' | 'sse';
  readonly url: string;
  readonly headers: Readonly<Record<string, string>>;
}

/** An `inputs` entry: what to ask for a `${input:id}`. `command` inputs (run a VS Code command) are not supported. */
export interface McpInputDefinition {
  readonly id: string;
  readonly type: 'promptString' | 'pickString' | 'command';
  readonly description: string;
  readonly password: boolean;
  readonly default?: string;
  /** `pickString`: the values offered. */
  readonly options?: readonly string[];
}

export interface McpConfigProblem {
  /** The server the problem is about; undefined for the file as a whole. */
  readonly server?: string;
  readonly message: string;
}

export interface McpConfigSource {
  /** Where the configuration came from: a file's absolute path, or `setting:hermes.mcpServers`. Inputs are stored per origin. */
  readonly origin: string;
  readonly servers: readonly McpServerDefinition[];
  readonly inputs: readonly McpInputDefinition[];
  readonly problems: readonly McpConfigProblem[];
}

const stringMap = z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String));

const stdioEntry = z.object({
  type: z.literal('stdio').optional(),
  command: z.string().min(1),
  args: z.array(z.union([z.string(), z.number()]).transform(String)).optional(),
  env: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()]).transform(String).nullable()).optional(),
  envFile: z.string().min(1).optional(),
  cwd: z.string().min(1).optional(),
});

const remoteEntry = z.object({
  type: z.enum(['http', 'sse']).optional(),
  url: z.string().min(1),
  headers: stringMap.optional(),
});

const inputEntry = z.object({
  type: z.enum(['promptString', 'pickString', 'command']),
  id: z.string().min(1),
  description: z.string().optional(),
  password: z.boolean().optional(),
  default: z.string().optional(),
  options: z.array(z.union([z.string(), z.object({ value: z.string() })])).optional(),
});

/** Reads the text of an `mcp.json` (JSONC: comments and trailing commas allowed). */
export function parseMcpConfig(text: string, origin: string): McpConfigSource {
  const errors: ParseError[] = [];
  const value: unknown = parseJsonc(text, errors, { allowTrailingComma: true, disallowComments: false });
  if (errors.length > 0) {
    const first = errors[0];
    const where = first !== undefined ? ` at offset ${first.offset}: ${printParseErrorCode(first.error)}` : '';
    return { origin, servers: [], inputs: [], problems: [{ message: `${origin} is not valid JSON${where}` }] };
  }
  return mcpConfigFromValue(value, origin);
}

/** The same shape as a parsed value (the `hermes.mcpServers` setting). */
export function mcpConfigFromValue(value: unknown, origin: string): McpConfigSource {
  if (value === undefined || value === null) {
    return { origin, servers: [], inputs: [], problems: [] };
  }
  if (!isObject(value)) {
    return { origin, servers: [], inputs: [], problems: [{ message: `${origin}: expected an object with "servers" (and "inputs")` }] };
  }
  const problems: McpConfigProblem[] = [];
  const servers: McpServerDefinition[] = [];
  const rawServers = value.servers ?? {};
  if (!isObject(rawServers)) {
    problems.push({ message: `${origin}: "servers" must be an object mapping names to servers` });
  } else {
    for (const [name, entry] of Object.entries(rawServers)) {
      const parsed = serverFrom(name, entry);
      if (typeof parsed === 'string') {
        problems.push({ server: name, message: parsed });
      } else {
        servers.push(parsed);
      }
    }
  }
  const inputs: McpInputDefinition[] = [];
  const rawInputs = value.inputs ?? [];
  if (!Array.isArray(rawInputs)) {
    problems.push({ message: `${origin}: "inputs" must be a list` });
  } else {
    for (const [i, entry] of (rawInputs as unknown[]).entries()) {
      const parsed = inputEntry.safeParse(entry);
      if (!parsed.success) {
        problems.push({ message: `${origin}: inputs[${i}] is not a valid input (${firstIssue(parsed.error)})` });
        continue;
      }
      const d = parsed.data;
      inputs.push({
        id: d.id,
        type: d.type,
        description: d.description ?? d.id,
        password: d.password ?? false,
        ...(d.default !== undefined ? { default: d.default } : {}),
        ...(d.options !== undefined ? { options: d.options.map((o) => (typeof o === 'string' ? o : o.value)) } : {}),
      });
    }
  }
  return { origin, servers, inputs, problems };
}

/** A server entry, or why it cannot be used. VS Code infers the type from `command` / `url` when it is missing. */
function serverFrom(name: string, entry: unknown): McpServerDefinition | string {
  if (!isObject(entry)) {
    return 'not an object';
  }
  const type = entry.type ?? ('command' in entry ? 'stdio' : 'url' in entry ? 'http' : undefined);
  if (type === 'stdio') {
    const parsed = stdioEntry.safeParse(entry);
    if (!parsed.success) {
      return `not a valid stdio server (${firstIssue(parsed.error)})`;
    }
    const d = parsed.data;
    return {
      name,
      type: 'stdio',
      command: d.command,
      args: d.args ?? [],
      env: d.env ?? {},
      ...(d.envFile !== undefined ? { envFile: d.envFile } : {}),
      ...(d.cwd !== undefined ? { cwd: d.cwd } : {}),
    };
  }
  if (type === 'http' || type === 'sse') {
    const parsed = remoteEntry.safeParse(entry);
    if (!parsed.success) {
      return `not a valid ${type} server (${firstIssue(parsed.error)})`;
    }
    return { name, type, url: parsed.data.url, headers: parsed.data.headers ?? {} };
  }
  return `unknown server type ${JSON.stringify(entry.type ?? null)} (stdio, http or sse)`;
}

function firstIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue === undefined ? 'invalid' : `${issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''}${issue.message}`;
}
