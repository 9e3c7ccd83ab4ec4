import * as path from 'node:path';
import { parseArgs } from 'node:util';
import type * as acp from '@agentclientprotocol/sdk';
import { TrafficLog } from '../wire/trafficLog';
import { McpSecretRedactor } from '../mcp/redaction';
import { closeSessionIfSupported } from '../session/sessionClose';
import { defaultAgentCommand, type OutputFormat, type RunOptions } from './args';
import type { TextOutput } from './events';
import { HeadlessQuestions } from './headlessQuestions';
import { newRunMarker, stopMarked } from './processSweep';
import { runnerConnection, type RunnerConnection } from './runnerConnection';
import { runAgentKey } from './runSessions';
import { agentSessions, describeRecord } from './sessionChoice';
import type { SessionRecord, SessionRecords } from './sessionRecords';
import { parseTransportFlags, transportOptionSpecs } from './transportArgs';
import { agentOptionSpecs, chooseAgent } from './agentArgs';

/** `hermes-acp-run sessions list|show ID|close ID`, parsed. */
export interface SessionsCommand {
  readonly action: 'list' | 'show' | 'close';
  readonly target?: string;
  readonly format: OutputFormat;
  /** The agent and cwd, as a run would have them (so the same records are found). */
  readonly options: RunOptions;
}

/** The `session` line of `sessions … --format stream-json` (schemas/stream-json.schema.json). */
export interface SessionLine {
  readonly type: 'session';
  readonly timestamp: number;
  readonly session_id: string;
  readonly name: string | null;
  readonly title: string;
  readonly agent: string;
  readonly cwd: string;
  readonly created_at: string | null;
  readonly last_used_at: string | null;
  /** Whether the agent's `session/list` has it for this cwd; `null` when the agent could not be asked. */
  readonly listed_by_agent: boolean | null;
  /** `sessions close`: whether the agent answered `session/close`. */
  readonly closed?: boolean;
}

export const sessionsUsage = `Usage: hermes-acp-run sessions list [--cwd DIR] [--format text|stream-json] [--agent ID | -- AGENT [ARGS...]]
       hermes-acp-run sessions show ID|NAME [--cwd DIR] [--format text|stream-json] [-- AGENT [ARGS...]]
       hermes-acp-run sessions close ID|NAME [--cwd DIR] [--format text|stream-json] [-- AGENT [ARGS...]]

The sessions this runner had with the agent in --cwd (default: .), for --continue and --resume:
name, id, title, last use, and whether the agent still lists it (ACP session/list). "close"
sends session/close where the agent offers it and forgets the runner's record.
--agent ID (an agent a run installed from the ACP Registry), --transport tui-gateway|api-server
and their settings pick the agent as for a run.
`;

/** Parses what follows `sessions`; a message on a usage error, `help` for --help. */
export function parseSessionsCommand(argv: readonly string[], cwd: string): SessionsCommand | { readonly help: true } | string {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: { cwd: { type: 'string' }, format: { type: 'string' }, help: { type: 'boolean', short: 'h' }, ...transportOptionSpecs, agent: agentOptionSpecs.agent },
      allowPositionals: true,
      strict: true,
      tokens: true,
    });
  } catch (e) {
    return `sessions: ${(e instanceof Error ? e.message : String(e)).split('\n')[0] ?? ''}`;
  }
  const { values, tokens } = parsed;
  if (values.help === true) {
    return { help: true };
  }
  const terminator = tokens.find((t) => t.kind === 'option-terminator');
  const words = tokens.flatMap((t) => (t.kind === 'positional' && (terminator === undefined || t.index < terminator.index) ? [t.value] : []));
  const [action, target, extra] = words;
  if (action !== 'list' && action !== 'show' && action !== 'close') {
    return `sessions: say list, show ID or close ID${action !== undefined ? `, not "${action}"` : ''}`;
  }
  if (action === 'list' ? target !== undefined : target === undefined || target === '' || extra !== undefined) {
    return action === 'list' ? `sessions list takes no argument ("${target ?? ''}")` : `sessions ${action} needs one session id or name`;
  }
  const format = values.format ?? 'text';
  if (format !== 'text' && format !== 'stream-json') {
    return `--format must be "text" or "stream-json", not "${format}"`;
  }
  const transport = parseTransportFlags(values, terminator !== undefined, cwd);
  if (typeof transport === 'string') {
    return transport;
  }
  const chosen = chooseAgent(values, terminator !== undefined ? argv.slice(terminator.index + 1) : undefined, defaultAgentCommand, transport.transport);
  if (typeof chosen === 'string') {
    return chosen;
  }
  // A registry agent: the command of its install, found before the command runs (main.ts).
  const { command, args } = chosen.kind === 'command' ? chosen.agent : { command: chosen.request.id, args: [] };
  const options: RunOptions = {
    query: '',
    format,
    cwd: path.resolve(cwd, values.cwd ?? '.'),
    permissions: { kind: 'deny' },
    agent: { command, args },
    ...(chosen.kind === 'registry' ? { registryAgent: chosen.request } : {}),
    timeoutMs: 60_000,
    ...(transport.transport !== undefined ? { transport: transport.transport } : {}),
  };
  return { action, ...(target !== undefined ? { target } : {}), format, options };
}

export interface SessionsDeps {
  readonly records: SessionRecords;
  readonly stdout: TextOutput;
  readonly stderr: TextOutput;
  readonly now: () => number;
  readonly clientVersion: string;
}

/** Runs the command; returns the exit code (0, or 1 for an unknown session). */
export async function runSessionsCommand(cmd: SessionsCommand, deps: SessionsDeps): Promise<number> {
  const { options } = cmd;
  const key = runAgentKey(options);
  const agent = await askAgent(options, deps);
  const records = deps.records.list(key, options.cwd);
  const chosen = cmd.target === undefined ? records : [deps.records.find(key, options.cwd, cmd.target)].filter((r): r is SessionRecord => r !== undefined);
  const lines: SessionLine[] = chosen.map((r) => lineOf(r, agent.listed, deps.now()));
  if (cmd.target !== undefined && lines.length === 0) {
    const info = agent.listed?.get(cmd.target);
    if (info === undefined) {
      deps.stderr.write(`hermes-acp-run: unknown session "${cmd.target}": no session of ${agent.label} in ${options.cwd} has this id or name\n`);
      await agent.stop();
      return 1;
    }
    lines.push({ type: 'session', timestamp: deps.now(), session_id: info.sessionId, name: null, title: info.title ?? '', agent: agent.label, cwd: options.cwd, created_at: null, last_used_at: info.updatedAt ?? null, listed_by_agent: true });
  }
  if (cmd.action === 'close') {
    const line = lines[0];
    if (line !== undefined) {
      const closed = await agent.close(line.session_id);
      lines[0] = { ...line, closed };
      chosen.forEach((r) => deps.records.remove(r));
      if (!closed) {
        deps.stderr.write(`hermes-acp-run: ${agent.label} did not close the session (it offers no session/close, or did not answer); the runner's record is removed\n`);
      }
    }
  }
  await agent.stop();
  for (const line of lines) {
    deps.stdout.write(cmd.format === 'stream-json' ? `${JSON.stringify(line)}\n` : textLine(line));
  }
  if (cmd.format === 'text' && lines.length === 0) {
    deps.stderr.write(`hermes-acp-run: no sessions of ${agent.label} in ${options.cwd}\n`);
  }
  return 0;
}

function lineOf(r: SessionRecord, listed: ReadonlyMap<string, acp.SessionInfo> | undefined, now: number): SessionLine {
  return {
    type: 'session',
    timestamp: now,
    session_id: r.sessionId,
    name: r.name ?? null,
    title: r.title,
    agent: r.agent,
    cwd: r.cwd,
    created_at: r.createdAt,
    last_used_at: r.lastUsedAt,
    listed_by_agent: listed === undefined ? null : listed.has(r.sessionId),
  };
}

function textLine(l: SessionLine): string {
  const listed = l.listed_by_agent === null ? 'agent not asked' : l.listed_by_agent ? 'listed by the agent' : 'not listed by the agent';
  const closed = l.closed === undefined ? '' : l.closed ? ', closed' : ', record removed';
  return `${describeRecord({ sessionId: l.session_id, ...(l.name !== null ? { name: l.name } : {}) })}\t${l.last_used_at ?? '-'}\t${listed}${closed}\t${l.title}\n`;
}

interface AgentView {
  readonly label: string;
  /** The agent's sessions for the cwd; undefined when it could not be asked. */
  readonly listed: Map<string, acp.SessionInfo> | undefined;
  close(sessionId: string): Promise<boolean>;
  stop(): Promise<void>;
}

/** Starts the agent (as a run would), asks `session/list`; kept open for a `close`. Never throws. */
async function askAgent(options: RunOptions, deps: SessionsDeps): Promise<AgentView> {
  const marker = newRunMarker();
  const log = new TrafficLog();
  let link: RunnerConnection | undefined;
  const fallback = options.transport !== undefined ? options.transport.kind : options.agent.command;
  const stop = async (): Promise<void> => {
    await link?.dispose();
    if (link?.spawned === true) {
      await stopMarked(marker, { graceMs: 1500 });
    }
  };
  try {
    link = runnerConnection({
      options,
      clientVersion: deps.clientVersion,
      log,
      redactor: new McpSecretRedactor(),
      marker,
      permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) },
      questions: new HeadlessQuestions(() => undefined),
      stderrLine: () => undefined,
    });
    const init = await withDeadline(link.open(), options.timeoutMs ?? 60_000);
    const opened = link;
    const label = init.agentInfo?.name ?? fallback;
    const listed = await withDeadline(agentSessions(opened.connection, options.cwd), options.timeoutMs ?? 60_000);
    return { label, listed, close: (id) => closeSessionIfSupported(opened.connection, id, 5000), stop };
  } catch (e) {
    deps.stderr.write(`hermes-acp-run: warning: could not ask the agent for its sessions: ${e instanceof Error ? e.message : String(e)}\n`);
    return { label: fallback, listed: undefined, close: () => Promise.resolve(false), stop };
  }
}

function withDeadline<T>(p: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${(ms / 1000).toString()} s`)), ms);
  });
  return Promise.race([p, deadline]).finally(() => clearTimeout(timer));
}
