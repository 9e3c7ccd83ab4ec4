import { readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { parseArgs } from 'node:util';
import { readMcpSources } from '../mcp/mcpServers';
import { parseRules } from '../permissions/rules';
import { invalidSensitivePatterns } from '../permissions/sensitive';
import type { TransportSettings } from '../host/transportSettings';
import { isObject } from '../util/json';
import type { PermissionMode } from './permissions';
import { parseTransportFlags, transportOptionSpecs } from './transportArgs';
import type { SessionRequest } from './sessionChoice';
import { parseSessionFlags, sessionOptionSpecs } from './sessionArgs';
import { applyHermesFlags, hermesOptionSpecs } from './hermesFlags';
import { agentOptionSpecs, chooseAgent, type RegistryAgentRequest } from './agentArgs';

export type OutputFormat = 'text' | 'stream-json';

/** The agent preset used when nothing follows `--`. */
export const defaultAgentCommand: readonly string[] = ['hermes', 'acp'];

export interface RunOptions {
  readonly query: string;
  readonly format: OutputFormat;
  /** Absolute; the agent's working directory and the session's cwd. */
  readonly cwd: string;
  readonly permissions: PermissionMode;
  /** Wall-clock budget of the whole run, in ms. */
  readonly timeoutMs?: number;
  /** The agent command (for `--agent ID`, what the registry install resolved to; `registryAgent.ts`). */
  readonly agent: { readonly command: string; readonly args: readonly string[]; readonly env?: Readonly<Record<string, string>> };
  /** `--agent ID`: an ACP Registry agent; `agent` is set from its install before the run. */
  readonly registryAgent?: RegistryAgentRequest;
  /** Where to write the ACP traffic (JSONL) when the run ends. */
  readonly trafficLog?: string;
  /** `--summary FILE`: the run as Markdown (a CI job summary), written with the result. */
  readonly summary?: string;
  /** `--mode ID`: the session mode to use. */
  readonly mode?: string;
  /** `--auth ID`: the agent sign-in method to `authenticate` with before `session/new`. */
  readonly auth?: string;
  /** `--mcp-config`: an `mcp.json` (VS Code's format) read before the `--cwd`'s `.vscode/mcp.json`. */
  readonly mcpConfig?: string;
  /** `--transport tui-gateway|api-server` and its settings; absent: ACP over the agent command's stdio. */
  readonly transport?: TransportSettings;
  /** `--worktree`: run in a new git worktree of the repository `cwd` is in (`<repo>/.worktrees/<name>`, branch `hermes/<name>`). */
  readonly worktree?: boolean;
  /** `--checkpoints`: save the files before the turn changes them; `result.checkpoint` names the checkpoint. */
  readonly checkpoints?: boolean;
  /** `--continue` or `--resume ID|NAME`: the run resumes a session instead of creating one. */
  readonly session?: SessionRequest;
  /** Hermes' isolation flags as the environment of a TUI Gateway the runner starts. */
  readonly gatewayEnv?: Readonly<Record<string, string>>;
  /** `--name NAME`: the name the run's session is recorded under. */
  readonly sessionName?: string;
}

export type ParsedCommandLine =
  | { readonly kind: 'run'; readonly options: RunOptions }
  | { readonly kind: 'restore'; readonly id: string; readonly cwd: string }
  | { readonly kind: 'help' }
  | { readonly kind: 'version' }
  | { readonly kind: 'error'; readonly message: string };

export const usage = `Usage: hermes-acp-run (-q TEXT | --query-file FILE) [options] [-- AGENT [ARGS...]]
       hermes-acp-run (-q TEXT | --query-file FILE) [options] --agent ID [--yes]
       hermes-acp-run (-q TEXT | --query-file FILE) [options] --transport tui-gateway|api-server ...
       hermes-acp-run sessions list|show ID|close ID [--cwd DIR] [--format stream-json] [-- AGENT [ARGS...]]

Runs one prompt turn against an Agent Client Protocol (ACP) agent and exits with a code that
says whether the turn really completed.

Options:
  -q, --query TEXT         the prompt
      --query-file FILE    read the prompt from FILE ("-" for stdin)
      --format FORMAT      text (default: the final answer on stdout) or stream-json
                           (one JSON event per stdout line, nothing else)
      --cwd DIR            working directory of the agent and the session (default: .)
      --permissions POLICY deny (default), allow, or a rules file (JSON, the extension's
                           permission rule format); unmatched requests are denied
      --timeout SEC        stop the run after SEC seconds: cancel the turn, exit 1 "timeout"
      --traffic-log FILE   write the ACP traffic (both directions, agent stderr) as JSONL
      --summary FILE       write the run as Markdown (reply, tools, tokens, duration, exit reason)
      --mode ID            use this session mode (default: the agent's, or under deny/rules
                           the mode that asks when the agent starts in one that does not)
      --auth ID            sign in with this agent method (ACP authenticate) before the session
      --mcp-config FILE    MCP servers for the agent, in VS Code's mcp.json format (also read:
                           .vscode/mcp.json in the --cwd); \${input:ID} values come from the
                           environment variable HERMES_MCP_INPUT_<ID> (upper case, _ for others)
      --transport KIND     acp (default: the agent command after "--", over stdio),
                           tui-gateway (Hermes' TUI Gateway) or api-server (Hermes' API Server)
      --gateway-url URL    tui-gateway: attach to a running gateway (ws://HOST:PORT/api/ws);
                           its session token comes from HERMES_GATEWAY_TOKEN, never the command line
      --hermes-root DIR    tui-gateway: start the gateway (python -m tui_gateway.entry) from this
                           Hermes checkout instead
      --python PYTHON      tui-gateway: the Hermes install's interpreter (default: python3)
      --base-url URL       api-server: the server (http(s)://HOST:PORT); its key comes from
                           HERMES_API_KEY
      --api-mode API       api-server: chat (default: chat completions, no approvals: only
                           --permissions deny) or runs (the runs API: approvals, stop)
      --worktree           run in a new git worktree of the --cwd's repository
                           (<repo>/.worktrees/hermes-<id> on branch hermes/hermes-<id>, from HEAD;
                           .worktreeinclude copied); it stays after the run with the agent's
                           changes uncommitted (result.worktree)
      --checkpoints        save every file before the turn changes it (result.checkpoint)
      --restore ID         no run: put the files of checkpoint ID of the --cwd back as they were
  -c, --continue           resume the latest session this runner had with the agent in --cwd
      --resume ID|NAME     resume this session (an id or a --name) instead of starting one
      --name NAME          record the run's session under NAME (for --resume NAME)
      --ignore-user-config, --ignore-rules, --pass-session-id, --skills NAME[,NAME], --safe-mode
                           Hermes' own flags, given to Hermes (hermes acp, or a gateway
                           started from --hermes-root); with any other agent a usage error
      --agent ID           start this agent of the ACP Registry (e.g. codex-acp), installed
                           under $XDG_DATA_HOME/hermes-acp-run (HERMES_ACP_RUN_DATA_DIR); the
                           registry: HERMES_ACP_REGISTRY_URL, else the public one (its last good
                           copy when unreachable). --agent hermes is Hermes (hermes acp)
  -y, --yes                with --agent: install it (or the newer version the registry lists)
                           without asking; a first install needs it when nobody can be asked
  -h, --help               show this help
  -V, --version            show the version

The agent command follows "--" (default: ${defaultAgentCommand.join(' ')}).

Exit codes: 0 turn completed, 1 failed (or agent missing/crashed, refusal, max_tokens,
timeout, a turn without output, sign-in needed), 2 bad command line, 75 provider
rate-limited/overloaded/unavailable (retry later), 130 interrupted.
`;

/** Parses the command line. Pure except for reading the query and rules files. */
export function parseCommandLine(argv: readonly string[], cwd: string, readStdin: () => string): ParsedCommandLine {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        query: { type: 'string', short: 'q' },
        'query-file': { type: 'string' },
        format: { type: 'string' },
        cwd: { type: 'string' },
        permissions: { type: 'string' },
        timeout: { type: 'string' },
        'traffic-log': { type: 'string' },
        summary: { type: 'string' },
        mode: { type: 'string' },
        auth: { type: 'string' },
        'mcp-config': { type: 'string' },
        worktree: { type: 'boolean' },
        checkpoints: { type: 'boolean' },
        restore: { type: 'string' },
        ...transportOptionSpecs,
        ...sessionOptionSpecs,
        ...hermesOptionSpecs,
        ...agentOptionSpecs,
        help: { type: 'boolean', short: 'h' },
        version: { type: 'boolean', short: 'V' },
      },
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (e) {
    return error(argsErrorMessage(e));
  }
  const { values, tokens } = parsed;
  if (values.help === true) {
    return { kind: 'help' };
  }
  if (values.version === true) {
    return { kind: 'version' };
  }
  const terminator = tokens.find((t) => t.kind === 'option-terminator');
  const before = tokens.filter((t) => t.kind === 'positional' && (terminator === undefined || t.index < terminator.index));
  const stray = before[0];
  if (stray?.kind === 'positional') {
    return error(`unexpected argument "${stray.value}" (put the agent command after "--")`);
  }
  if (values.restore !== undefined) {
    const others = tokens.filter((t) => t.kind === 'option' && t.name !== 'restore' && t.name !== 'cwd');
    if (others[0]?.kind === 'option' || terminator !== undefined) {
      return error(`--restore takes only --cwd (got ${others[0]?.kind === 'option' ? others[0].rawName : '"--"'})`);
    }
    if (!/^[A-Za-z0-9-]{1,80}$/.test(values.restore)) {
      return error(`--restore needs a checkpoint id (as result.checkpoint.id printed it), not "${values.restore}"`);
    }
    const dir = path.resolve(cwd, values.cwd ?? '.');
    return isDirectory(dir) ? { kind: 'restore', id: values.restore, cwd: dir } : error(`--cwd ${dir} is not a directory`);
  }
  const transport = parseTransportFlags(values, terminator !== undefined, cwd);
  if (typeof transport === 'string') {
    return error(transport);
  }
  const t = transport.transport;
  if (values.worktree === true && (t?.kind === 'api-server' || (t?.kind === 'tui-gateway' && t.url !== undefined))) {
    // The agent runs elsewhere: a local worktree would not be where it works.
    return error(`--worktree needs an agent this runner starts (--transport acp, or tui-gateway with --hermes-root), not ${t.kind === 'api-server' ? '--transport api-server' : '--gateway-url'}`);
  }
  const sessionFlags = parseSessionFlags(values);
  if (typeof sessionFlags === 'string') {
    return error(sessionFlags);
  }
  const chosen = chooseAgent(values, terminator !== undefined ? argv.slice(terminator.index + 1) : undefined, defaultAgentCommand, transport.transport);
  if (typeof chosen === 'string') {
    return error(chosen);
  }
  // A registry agent is named by its id until it is installed: Hermes' flags are refused by it.
  const hermes = applyHermesFlags(values, chosen.kind === 'command' ? chosen.agent : { command: chosen.request.id, args: [] }, transport.transport);
  if (typeof hermes === 'string') {
    return error(hermes);
  }
  const { command, args } = hermes.agent;

  let query: string;
  if (values.query !== undefined && values['query-file'] !== undefined) {
    return error('use either -q/--query or --query-file, not both');
  }
  if (values.query !== undefined) {
    query = values.query;
  } else if (values['query-file'] !== undefined) {
    const file = values['query-file'];
    try {
      query = file === '-' ? readStdin() : readFileSync(path.resolve(cwd, file), 'utf8');
    } catch (e) {
      return error(`cannot read the query file ${file}: ${e instanceof Error ? e.message : String(e)}`);
    }
  } else {
    return error('a prompt is required: -q/--query TEXT or --query-file FILE');
  }
  if (query.trim() === '') {
    return error('the prompt is empty');
  }

  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'stream-json') {
    return error(`--format must be "text" or "stream-json", not "${format}"`);
  }

  const workDir = path.resolve(cwd, values.cwd ?? '.');
  if (!isDirectory(workDir)) {
    return error(`--cwd ${workDir} is not a directory`);
  }

  let timeoutMs: number | undefined;
  if (values.timeout !== undefined) {
    const sec = Number(values.timeout);
    if (values.timeout.trim() === '' || !Number.isFinite(sec) || sec <= 0) {
      return error(`--timeout must be a positive number of seconds, not "${values.timeout}"`);
    }
    timeoutMs = Math.round(sec * 1000);
  }

  for (const [flag, value] of [['--mode', values.mode], ['--auth', values.auth]] as const) {
    if (value?.trim() === '') {
      return error(`${flag} needs an id`);
    }
  }

  if (values['mcp-config'] !== undefined) {
    const unreadable = readMcpSources([{ kind: 'file', path: path.resolve(cwd, values['mcp-config']), required: true }])[0]?.problems.find((p) => p.server === undefined);
    if (unreadable !== undefined) {
      return error(`--mcp-config: ${unreadable.message}`);
    }
  }

  const permissions = parsePermissions(values.permissions ?? 'deny', cwd);
  if (typeof permissions === 'string') {
    return error(permissions);
  }

  return {
    kind: 'run',
    options: {
      query,
      format,
      cwd: workDir,
      permissions,
      agent: { command, args },
      ...(chosen.kind === 'registry' ? { registryAgent: chosen.request } : {}),
      ...(timeoutMs !== undefined ? { timeoutMs } : {}),
      ...(values['traffic-log'] !== undefined ? { trafficLog: path.resolve(cwd, values['traffic-log']) } : {}),
      ...(values.summary !== undefined ? { summary: path.resolve(cwd, values.summary) } : {}),
      ...(transport.sessionMode !== undefined ? { mode: transport.sessionMode } : {}),
      ...(transport.transport !== undefined ? { transport: transport.transport } : {}),
      ...(hermes.gatewayEnv !== undefined ? { gatewayEnv: hermes.gatewayEnv } : {}),
      ...(values.auth !== undefined ? { auth: values.auth } : {}),
      ...(values['mcp-config'] !== undefined ? { mcpConfig: path.resolve(cwd, values['mcp-config']) } : {}),
      ...(values.worktree === true ? { worktree: true } : {}),
      ...(values.checkpoints === true ? { checkpoints: true } : {}),
      ...(sessionFlags.request !== undefined ? { session: sessionFlags.request } : {}),
      ...(sessionFlags.name !== undefined ? { sessionName: sessionFlags.name } : {}),
    },
  };
}

/** `deny`, `allow`, or a rules file (resolved against the invoking directory). Returns an error message on failure. */
function parsePermissions(value: string, cwd: string): PermissionMode | string {
  if (value === 'deny' || value === 'allow') {
    return { kind: value };
  }
  const file = path.resolve(cwd, value);
  let raw: unknown;
  try {
    raw = JSON.parse(readFileSync(file, 'utf8')) as unknown;
  } catch (e) {
    return `--permissions: expected "deny", "allow" or a JSON rules file; cannot use ${value}: ${e instanceof Error ? e.message : String(e)}`;
  }
  const { rules, problems } = parseRules(raw);
  const sensitive = isObject(raw) ? raw.sensitivePaths : undefined;
  const sensitivePaths = Array.isArray(sensitive) ? sensitive.filter((s): s is string => typeof s === 'string') : [];
  if (sensitive !== undefined && (!Array.isArray(sensitive) || sensitivePaths.length !== sensitive.length)) {
    problems.push('"sensitivePaths" must be a list of names or globs');
  }
  problems.push(...invalidSensitivePatterns(sensitivePaths));
  if (problems.length > 0) {
    return `--permissions ${value}: ${problems.join('; ')}`;
  }
  return { kind: 'rules', file, rules, ...(sensitivePaths.length > 0 ? { sensitivePaths } : {}) };
}

function isDirectory(p: string): boolean {
  try {
    return statSync(p).isDirectory();
  } catch {
    return false;
  }
}

/** node:util's messages, shortened to what applies here. */
function argsErrorMessage(e: unknown): string {
  const message = e instanceof Error ? e.message : String(e);
  const unknown = /^Unknown option '([^']+)'/.exec(message);
  if (unknown !== null) {
    return `unknown option ${unknown[1] ?? ''}`;
  }
  const ambiguous = /^Option '([^']+)' argument is ambiguous/.exec(message);
  if (ambiguous !== null) {
    return `${ambiguous[1] ?? 'the option'} needs a value (for a value starting with "-", write --option=VALUE)`;
  }
  return message.split('\n')[0] ?? message;
}

function error(message: string): ParsedCommandLine {
  return { kind: 'error', message };
}
