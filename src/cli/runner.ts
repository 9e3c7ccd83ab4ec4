import { isRetryOnlyText } from '../session/providerErrors';
import { promises as fsp, writeFileSync } from 'node:fs';
import type * as acp from '@agentclientprotocol/sdk';
import { TrafficLog } from '../wire/trafficLog';
import { profileFor, type AgentProfile } from '../session/agentProfiles';
import { quirksFor } from '../session/agentQuirks';
import { SessionController } from '../session/sessionController';
import type { SessionState, TokenUsage } from '../session/sessionState';
import { agentIdentity, executableName } from './agentIdentity';
import type { RunOptions } from './args';
import type { EventBody, EventSink, LeftProcess } from './events';
import { startFailureVerdict, turnVerdict, type StopCause, type Verdict } from './exitCodes';
import { applyMode, permissionsEnforced, sessionModes } from './modeChoice';
import { McpSecretRedactor } from '../mcp/redaction';
import { runnerMcpServers } from './mcp';
import { HeadlessPermissions } from './permissions';
import { RecentLines } from './recentLines';
import { HeadlessQuestions } from './headlessQuestions';
import { newRunMarker, stopMarked } from './processSweep';
import { runnerConnection, type RunnerConnection } from './runnerConnection';
import { signInMethods } from './signIn';
import { startSession } from './sessionStart';
import { TurnEvents } from './turnEvents';
import { tokensOf } from './turnUsage';
import { TurnRun } from '../app/turnRun';
import { RunIsolation } from './runIsolation';
import { RunSessions } from './runSessions';
import { SummarySink } from './summary';
import { injectedSecrets, MaskingSink, secretMark, signInSecrets } from './secretMask';
import type { SessionRecords } from './sessionRecords';

export interface RunnerDeps {
  readonly sink: EventSink;
  readonly now: () => number;
  /** Reported to the agent as `clientInfo.version`. */
  readonly clientVersion: string;
  /** After `session/cancel`, how long the agent gets to end the turn before it is killed. */
  readonly cancelGraceMs?: number;
  /** The runner's session records (`--continue`, `--resume`, `sessions`). */
  readonly records: SessionRecords;
  /** Why the agent cannot be started (`--agent ID` could not be installed): the run ends with this error, exit 1. */
  readonly agentUnavailable?: string;
}

const defaultCancelGraceMs = 10_000;
const stderrTailLines = 20;

/** How the run ended, before the agent is stopped and the `result` is written. */
interface Outcome {
  readonly verdict: Verdict;
  readonly text?: string;
  readonly usage?: TokenUsage | undefined;
  readonly turnMs?: number;
  readonly permissionsEnforced?: boolean;
}

/**
 * One headless run: start the agent, `initialize`, `session/new`, one `session/prompt`, stop the
 * agent and everything it started, then a `result` event — whatever happens in between. Built on
 * the same client core as the extension: a {@link RunnerConnection} (ACP over the agent's stdio,
 * or a TUI Gateway / API Server adapter) under a SessionController.
 */
export class Runner {
  private stop: StopCause | undefined;
  private link: RunnerConnection | undefined;
  private controller: SessionController | undefined;
  private init: acp.InitializeResponse | undefined;
  private profile: AgentProfile;
  private turn: TurnRun | undefined;
  private systemWritten = false;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private readonly stderrTail = new RecentLines(stderrTailLines);
  private readonly marker = newRunMarker();
  private readonly log = new TrafficLog();
  private readonly redactor = new McpSecretRedactor(secretMark);
  private readonly isolation: RunIsolation;
  /** Everything printed goes through the mask of injected values. */
  private readonly sink: EventSink;
  private readonly sessions: RunSessions;

  constructor(
    private options: RunOptions,
    private readonly deps: RunnerDeps,
  ) {
    this.profile = profileFor(undefined, executableName(options.agent.command, options.agent.args));
    this.log.addRedactor(this.redactor);
    this.redactor.add(injectedSecrets(process.env, options.transport).values);
    this.sink = new MaskingSink(options.summary !== undefined ? new SummarySink(deps.sink, options.summary) : deps.sink, this.redactor);
    this.isolation = new RunIsolation(options, (line) => this.sink.diagnostic(line));
    this.sessions = new RunSessions(options, deps.records, deps.now);
  }

  /** SIGINT/SIGTERM. The first one cancels the turn (`session/cancel`); the next kills the agent at once. */
  interrupt(): void {
    if (this.stop === undefined) {
      this.requestStop('interrupt');
      return;
    }
    this.sink.diagnostic('hermes-acp-run: interrupted again; stopping the agent now');
    this.link?.kill();
  }

  /** Runs to the end and returns the exit code (equal to the `result` event's `exit_code`). Never rejects. */
  async run(): Promise<number> {
    this.startedAt = this.deps.now();
    const timeoutMs = this.options.timeoutMs;
    if (timeoutMs !== undefined) {
      this.timeoutTimer = setTimeout(() => this.requestStop('timeout'), timeoutMs);
    }
    let outcome: Outcome;
    try {
      // --worktree: made before any agent starts; without a repository the run ends here.
      const unavailable = this.deps.agentUnavailable;
      const prepared = unavailable !== undefined ? { error: unavailable } : await this.isolation.prepare(this.options.cwd);
      if ('error' in prepared) {
        outcome = { verdict: { exitCode: 1, stopReason: null, error: prepared.error } };
      } else {
        this.options = { ...this.options, cwd: prepared.cwd };
        outcome = await this.runSession();
      }
    } catch (e) {
      // A bug of ours: still end with a result, so no caller mistakes it for success.
      outcome = { verdict: { exitCode: 1, stopReason: null, error: `internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` } };
    } finally {
      clearTimeout(this.timeoutTimer);
      this.turn?.dispose();
    }
    const left = await this.cleanup();
    return this.finish(outcome, left, await this.isolation.finish());
  }

  private async runSession(): Promise<Outcome> {
    const { options } = this;
    const link = runnerConnection({
      options,
      clientVersion: this.deps.clientVersion,
      log: this.log,
      redactor: this.redactor,
      marker: this.marker,
      permission: { requestPermission: (params, signal) => this.controller?.requestPermission(params, signal) ?? Promise.resolve({ outcome: { outcome: 'cancelled' } }) },
      questions: new HeadlessQuestions((body) => this.emit(body)),
      stderrLine: (shown) => {
        this.stderrTail.push(shown);
        this.sink.diagnostic(shown);
      },
    });
    this.link = link;
    if (this.stop !== undefined) {
      link.kill();
    }
    let init: acp.InitializeResponse;
    try {
      init = await link.open();
    } catch (e) {
      return { verdict: startFailureVerdict(e, this.stop) };
    }
    this.init = init;
    // A transport's agent is named by its handshake alone (the default agent command is not what runs).
    this.profile = profileFor(init.agentInfo?.name, link.kind === 'acp' ? executableName(options.agent.command, options.agent.args) : undefined);

    // Non-ACP transports: Hermes uses the MCP servers of its own config (args.ts refuses --mcp-config).
    const mcp = link.kind === 'acp' ? await runnerMcpServers({ cwd: options.cwd, mcpConfig: options.mcpConfig, env: process.env }, init, agentIdentity(init.agentInfo, options.agent.command, options.agent.args).name, this.redactor) : { servers: [], diagnostics: [] };
    mcp.diagnostics.forEach((line) => this.sink.diagnostic(line));
    const decider = new HeadlessPermissions(options.permissions, options.cwd);
    let ids = 0;
    const controller = new SessionController({
      connection: link.connection,
      cwd: options.cwd,
      // Tokens are read where this agent's profile says (usage.ts: the chat reads them the same way).
      quirks: { ...quirksFor(init.agentInfo), usageSources: this.profile.usage },
      now: this.deps.now,
      newId: () => `e${++ids}`,
      permissions: decider,
      mcpServers: mcp.servers,
    });
    this.controller = controller;
    // The decider found no option to answer with (e.g. no reject option): answer `cancelled`.
    controller.onPermissionRequested((p) => controller.dismissPermission(p.requestId));
    void link.closed.then((exit) => controller.agentExited(exit.message, exit.stderrTail));
    const events = new TurnEvents({ emit: (body) => this.emit(body), now: this.deps.now, ruleFor: (id) => decider.takeRuleFor(id), profile: this.profile });
    controller.onDidChange((change) => events.onChange(change));
    link.onWireUpdate((n) => {
      if (n.sessionId === controller.sessionId) {
        events.onWireUpdate(n.update);
      }
    });

    const signIn = signInSecrets(signInMethods((init as { authMethods?: unknown }).authMethods), process.env);
    this.redactor.add(signIn.values);
    if (signIn.problems.length > 0) {
      return { verdict: { exitCode: 1, stopReason: null, error: signIn.problems.join('\n') } };
    }
    const unusable = await this.sessions.choose(link.connection, this.agentName());
    if (unusable !== undefined) {
      return { verdict: { exitCode: 1, stopReason: null, error: unusable } };
    }
    const ctx = { options, client: link, controller, sessions: this.sessions, stop: () => this.stop, diagnostic: (line: string) => this.sink.diagnostic(line) };
    const notStarted = await startSession(ctx, signInMethods((init as { authMethods?: unknown }).authMethods));
    if (notStarted !== undefined) {
      return { verdict: notStarted };
    }
    const modeFailure = await applyMode(controller, this.profile, options, (line) => this.sink.diagnostic(line));
    if (modeFailure !== undefined) {
      return { verdict: modeFailure };
    }
    const sessionId = controller.sessionId ?? '';
    this.writeSystem(sessionId, controller.state);
    this.sink.diagnostic(`session_id: ${sessionId}`);
    if (this.stop !== undefined) {
      return { verdict: startFailureVerdict(undefined, this.stop) };
    }

    const before = controller.state;
    this.isolation.watch(controller, options.cwd);
    await this.isolation.beginTurn(options.cwd);
    const run = new TurnRun(controller, [{ type: 'text', text: options.query }], { now: this.deps.now, closeOnAgentExit: true, files: readSmallText });
    // The turn is submitted: from here on a stop cancels it.
    this.turn = run;
    events.begin(run.turnId, before);
    const { result: turn, reply: text, turnMs, footerUsage } = await run.done;
    const state = controller.state;
    events.finish(state);
    const facts = events.turnFacts;
    const enforced = permissionsEnforced(this.profile, sessionModes(state), options.permissions, facts);
    if (!enforced) {
      this.sink.diagnostic(
        `hermes-acp-run: warning: the agent edited or ran something without asking for permission, and it offers no mode that asks: ` +
          `--permissions ${options.permissions.kind === 'rules' ? options.permissions.file : options.permissions.kind} was not enforced (result.permissions_enforced: false)`,
      );
    }
    const empty = !facts.text && facts.tools === 0 && !facts.plan;
    if (empty || isRetryOnlyText(text)) {
      // The verdict reads the stderr tail (a provider's 429 there means exit 75): let its last lines arrive.
      await this.stderrTail.quiet();
    }
    return {
      verdict: turnVerdict(turn, { text, empty, stderrTail: this.stderrTail.text() }, this.stop),
      text,
      usage: footerUsage,
      turnMs,
      permissionsEnforced: enforced,
    };
  }

  private requestStop(cause: StopCause): void {
    if (this.stop !== undefined) {
      return;
    }
    this.stop = cause;
    const why = cause === 'timeout' ? `timeout after ${((this.options.timeoutMs ?? 0) / 1000).toString()} s` : 'interrupted';
    const turn = this.turn;
    if (turn?.running === true) {
      const graceMs = this.deps.cancelGraceMs ?? defaultCancelGraceMs;
      this.sink.diagnostic(
        `hermes-acp-run: ${why}; cancelling the turn${cause === 'interrupt' ? ' (interrupt again to stop at once)' : ''}`,
      );
      const onExpired = (): void => {
        this.sink.diagnostic(`hermes-acp-run: the agent did not end the turn within ${graceMs / 1000} s of session/cancel; killing it`);
        this.link?.kill();
      };
      turn.cancel({ ms: graceMs, onExpired }).catch(() => undefined);
    } else {
      // Nothing to cancel yet (starting up): stop the agent; the pending request fails at once.
      this.sink.diagnostic(`hermes-acp-run: ${why}; stopping the agent`);
      this.link?.kill();
    }
  }

  /** The first record: after `session/new`, or before `result` when the run ended earlier. */
  private writeSystem(sessionId: string, state: SessionState | undefined): void {
    if (this.systemWritten) {
      return;
    }
    this.systemWritten = true;
    this.emit({
      type: 'system',
      subtype: 'init',
      session_id: sessionId,
      model: state !== undefined ? (currentModel(state) ?? '') : '',
      mode: state !== undefined ? (sessionModes(state)?.current ?? '') : '',
      agent: agentIdentity(this.agentInfo(), this.options.agent.command, this.options.agent.args),
      cwd: this.options.cwd,
    });
  }

  /** The agent's identity as it stands now: a transport learns Hermes' version after the handshake (`session.info`). */
  private agentInfo(): acp.Implementation | null | undefined {
    if (this.init === undefined) {
      return undefined;
    }
    try {
      return (this.link?.connection.agent ?? this.init).agentInfo;
    } catch {
      return this.init.agentInfo;
    }
  }

  private agentName(): string {
    return agentIdentity(this.init?.agentInfo, this.options.agent.command, this.options.agent.args).name;
  }

  private finish(outcome: Outcome, left: readonly LeftProcess[], isolated: Awaited<ReturnType<RunIsolation['finish']>>): number {
    const { verdict } = outcome;
    const sessionId = this.controller?.sessionId ?? '';
    this.writeSystem(sessionId, this.controller?.state);
    const unrecorded = this.sessions.save(sessionId, this.controller?.state, this.agentName(), (text) => this.redactor.mask(text));
    if (unrecorded !== undefined) {
      this.sink.diagnostic(unrecorded);
    }
    let error = verdict.error;
    if (left.length > 0) {
      const names = left.map((p) => `${p.pid} (${p.command})`).join(', ');
      this.sink.diagnostic(`hermes-acp-run: warning: could not stop ${names}`);
      error = error !== undefined ? `${error}\n(also left running: ${names})` : undefined;
    }
    this.emit({
      type: 'result',
      session_id: sessionId,
      exit_code: verdict.exitCode,
      stop_reason: verdict.stopReason,
      text: outcome.text ?? '',
      tokens: tokensOf(outcome.usage),
      tokens_reported: outcome.usage !== undefined,
      permissions_enforced: outcome.permissionsEnforced ?? true,
      left_running: left,
      duration_ms: Math.max(0, this.deps.now() - this.startedAt),
      turn_duration_ms: outcome.turnMs ?? null,
      ...(verdict.exitCode !== 0 ? { error: error ?? 'failed' } : {}),
      ...isolated,
    });
    return verdict.exitCode;
  }

  private emit(body: EventBody): void {
    // `type` and `timestamp` first, for readers of the raw lines.
    this.sink.emit(Object.assign({ type: body.type, timestamp: this.deps.now() }, body));
  }

  /** Stops the agent and everything it started (also what left its process group), then writes the traffic log if asked. */
  private async cleanup(): Promise<LeftProcess[]> {
    // The session's close before the agent is stopped (when advertised; bounded, never blocks the stop).
    await this.link?.closeSession(this.controller?.sessionId);
    this.controller?.dispose();
    await this.link?.dispose();
    const left = this.link?.spawned === true ? await stopMarked(this.marker, { graceMs: 1500 }) : [];
    const file = this.options.trafficLog;
    if (file !== undefined) {
      try {
        writeFileSync(file, `${this.log.toJsonl()}\n`);
      } catch (e) {
        this.sink.diagnostic(`hermes-acp-run: cannot write the traffic log ${file}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
    return left;
  }
}

/** The session's model: the legacy `models` field (Hermes, Gemini) or a `model` config option. */
function currentModel(state: SessionState): string | undefined {
  if (state.models !== undefined) {
    return state.models.currentModelId;
  }
  for (const o of state.configOptions) {
    if (o.category === 'model' && o.type === 'select') {
      return o.currentValue;
    }
  }
  return undefined;
}

/** A file's text for editOutcomes.ts (up to 8 MB), or undefined. */
async function readSmallText(p: string): Promise<string | undefined> {
  try {
    const stat = await fsp.stat(p);
    return stat.isFile() && stat.size <= 8 * 1024 * 1024 ? await fsp.readFile(p, 'utf8') : undefined;
  } catch {
    return undefined;
  }
}
