import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type * as acp from '@agentclientprotocol/sdk';
import { AcpClient, defaultTimeouts } from '../acp/acpConnection';
import { AgentProcess } from '../acp/agentProcess';
import { AgentExitedError } from '../acp/errors';
import { TrafficLog } from '../acp/trafficLog';
import { quirksFor } from '../session/agentQuirks';
import { SessionController, type TurnResult } from '../session/sessionController';
import type { SessionState } from '../session/sessionState';
import type { RunOptions } from './args';
import type { AgentIdentity, EventBody, EventSink, Tokens } from './events';
import { startFailureVerdict, turnVerdict, type StopCause, type Verdict } from './exitCodes';
import { McpSecretRedactor } from '../mcp/redaction';
import { runnerMcpServers } from './mcp';
import { HeadlessPermissions } from './permissions';
import { finalAnswer, turnTokens, TurnEvents } from './turnEvents';

export interface RunnerDeps {
  readonly sink: EventSink;
  readonly now: () => number;
  /** Reported to the agent as `clientInfo.version`. */
  readonly clientVersion: string;
  /** After `session/cancel`, how long the agent gets to end the turn before it is killed. */
  readonly cancelGraceMs?: number;
}

const defaultCancelGraceMs = 10_000;

/**
 * One headless run: start the agent, `initialize`, `session/new`, one `session/prompt`, then a
 * `result` event and the agent stopped — whatever happens in between. Built on the same client
 * core as the extension (AgentProcess, AcpClient, SessionController).
 */
export class Runner {
  private stop: StopCause | undefined;
  private proc: AgentProcess | undefined;
  private client: AcpClient | undefined;
  private controller: SessionController | undefined;
  private turnRunning = false;
  private graceTimer: NodeJS.Timeout | undefined;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private startedAt = 0;
  private readonly log = new TrafficLog();
  private readonly redactor = new McpSecretRedactor();

  constructor(
    private readonly options: RunOptions,
    private readonly deps: RunnerDeps,
  ) {
    this.log.addRedactor(this.redactor);
  }

  /** SIGINT/SIGTERM. The first one cancels the turn (`session/cancel`); the next kills the agent at once. */
  interrupt(): void {
    if (this.stop === undefined) {
      this.requestStop('interrupt');
      return;
    }
    this.deps.sink.diagnostic('hermes-acp-run: interrupted again; stopping the agent now');
    this.proc?.kill();
  }

  /** Runs to the end and returns the exit code (equal to the `result` event's `exit_code`). Never rejects. */
  async run(): Promise<number> {
    this.startedAt = this.deps.now();
    const timeoutMs = this.options.timeoutMs;
    if (timeoutMs !== undefined) {
      this.timeoutTimer = setTimeout(() => this.requestStop('timeout'), timeoutMs);
    }
    try {
      return await this.runSession();
    } catch (e) {
      // A bug of ours: still end with a result, so no caller mistakes it for success.
      return this.finish({ exitCode: 1, stopReason: null, error: `internal error: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}` }, null);
    } finally {
      clearTimeout(this.timeoutTimer);
      clearTimeout(this.graceTimer);
      await this.cleanup();
    }
  }

  private async runSession(): Promise<number> {
    const { options } = this;
    let proc: AgentProcess;
    try {
      proc = await AgentProcess.start({ command: options.agent.command, args: options.agent.args, cwd: options.cwd }, { killGraceMs: 2000 });
    } catch (e) {
      return this.finish(startFailureVerdict(e, this.stop), null);
    }
    this.proc = proc;
    proc.onStderrLine((line) => {
      const entry = { dir: 'stderr', kind: 'text', size: Buffer.byteLength(line), text: line } as const;
      this.log.append(entry);
      // An agent that echoes an MCP secret to stderr must not print it on ours either.
      this.deps.sink.diagnostic(this.redactor.redact(line, entry));
    });
    if (this.stop !== undefined) {
      proc.kill();
    }

    const client = new AcpClient(proc, {
      clientInfo: { name: 'hermes-acp-run', title: 'Hermes ACP headless runner', version: this.deps.clientVersion },
      ports: {
        permission: {
          requestPermission: (params, signal) =>
            this.controller?.requestPermission(params, signal) ?? Promise.resolve({ outcome: { outcome: 'cancelled' } }),
        },
      },
      log: this.log,
      // The core bounds a turn at 60 min; a longer --timeout must not be cut short by it.
      ...(options.timeoutMs !== undefined && options.timeoutMs + 60_000 > defaultTimeouts.prompt
        ? { timeouts: { prompt: options.timeoutMs + 60_000 } }
        : {}),
    });
    this.client = client;
    let init: acp.InitializeResponse;
    try {
      init = await client.initialize();
    } catch (e) {
      return this.finish(startFailureVerdict(e, this.stop), null);
    }

    const mcp = await runnerMcpServers({ cwd: options.cwd, mcpConfig: options.mcpConfig, env: process.env }, init, agentIdentity(init.agentInfo, options.agent.command).name, this.redactor);
    mcp.diagnostics.forEach((line) => this.deps.sink.diagnostic(line));
    const decider = new HeadlessPermissions(options.permissions, options.cwd);
    let ids = 0;
    const controller = new SessionController({
      connection: client,
      cwd: options.cwd,
      quirks: quirksFor(init.agentInfo),
      now: this.deps.now,
      newId: () => `e${++ids}`,
      permissions: decider,
      mcpServers: mcp.servers,
    });
    this.controller = controller;
    // The decider found no option to answer with (e.g. no reject option): answer `cancelled`.
    controller.onPermissionRequested((p) => controller.dismissPermission(p.requestId));
    void client.closed.then((exit) => controller.agentExited(exit.message, exit.stderrTail));
    const events = new TurnEvents((body) => this.emit(body), this.deps.now, (id) => decider.takeRuleFor(id));
    controller.onDidChange((change) => events.onChange(change));

    if (this.stop !== undefined) {
      return this.finish(startFailureVerdict(undefined, this.stop), null);
    }
    try {
      await controller.start();
    } catch (e) {
      return this.finish(startFailureVerdict(e, this.stop), null);
    }
    const sessionId = controller.sessionId ?? '';
    const model = currentModel(controller.state);
    this.emit({
      type: 'system',
      subtype: 'init',
      session_id: sessionId,
      ...(model !== undefined ? { model } : {}),
      agent: agentIdentity(init.agentInfo, options.agent.command),
      cwd: options.cwd,
    });
    this.deps.sink.diagnostic(`session_id: ${sessionId}`);
    if (this.stop !== undefined) {
      return this.finish(startFailureVerdict(undefined, this.stop), sessionId);
    }

    const turnStartedAt = this.deps.now();
    const pending = controller.prompt([{ type: 'text', text: options.query }]);
    // prompt() submitted the turn synchronously: from here on a stop cancels it.
    const turnId = controller.state.turn?.id;
    this.turnRunning = true;
    events.begin(turnId);
    let turn: TurnResult;
    try {
      turn = await pending;
    } catch (e) {
      turn = { kind: 'failed', error: e };
    }
    this.turnRunning = false;
    clearTimeout(this.graceTimer);
    const turnMs = this.deps.now() - turnStartedAt;
    if (turn.kind === 'interrupted' && AgentExitedError.is(turn.error)) {
      // Mark open tool calls interrupted now rather than whenever the exit notification lands.
      controller.agentExited(turn.error.message, turn.error.stderrTail);
    }
    events.finish(controller.state);
    const text = finalAnswer(controller.state.entries, turnId);
    return this.finish(turnVerdict(turn, text, this.stop), sessionId, {
      text,
      tokens: turnTokens(controller.state.entries, turnId),
      turnMs,
    });
  }

  private requestStop(cause: StopCause): void {
    if (this.stop !== undefined) {
      return;
    }
    this.stop = cause;
    const why = cause === 'timeout' ? `timeout after ${((this.options.timeoutMs ?? 0) / 1000).toString()} s` : 'interrupted';
    const controller = this.controller;
    if (this.turnRunning && controller !== undefined) {
      const graceMs = this.deps.cancelGraceMs ?? defaultCancelGraceMs;
      this.deps.sink.diagnostic(
        `hermes-acp-run: ${why}; cancelling the turn${cause === 'interrupt' ? ' (interrupt again to stop at once)' : ''}`,
      );
      controller.cancel().catch(() => undefined);
      this.graceTimer = setTimeout(() => {
        this.deps.sink.diagnostic(`hermes-acp-run: the agent did not end the turn within ${graceMs / 1000} s of session/cancel; killing it`);
        this.proc?.kill();
      }, graceMs);
    } else {
      // Nothing to cancel yet (starting up): stop the agent; the pending request fails at once.
      this.deps.sink.diagnostic(`hermes-acp-run: ${why}; stopping the agent`);
      this.proc?.kill();
    }
  }

  private finish(verdict: Verdict, sessionId: string | null, turn?: { text: string; tokens: Tokens | null; turnMs: number }): number {
    this.emit({
      type: 'result',
      session_id: sessionId,
      exit_code: verdict.exitCode,
      stop_reason: verdict.stopReason,
      text: turn?.text ?? '',
      tokens: turn?.tokens ?? null,
      duration_ms: Math.max(0, this.deps.now() - this.startedAt),
      turn_duration_ms: turn?.turnMs ?? null,
      ...(verdict.error !== undefined ? { error: verdict.error } : {}),
    });
    return verdict.exitCode;
  }

  private emit(body: EventBody): void {
    // `type` and `timestamp` first, for readers of the raw lines.
    this.deps.sink.emit(Object.assign({ type: body.type, timestamp: this.deps.now() }, body));
  }

  /** Stops the agent and everything it started (no orphans), then writes the traffic log if asked. */
  private async cleanup(): Promise<void> {
    this.controller?.dispose();
    this.client?.dispose();
    try {
      await this.proc?.dispose();
    } catch {
      // already gone
    }
    const file = this.options.trafficLog;
    if (file !== undefined) {
      try {
        writeFileSync(file, `${this.log.toJsonl()}\n`);
      } catch (e) {
        this.deps.sink.diagnostic(`hermes-acp-run: cannot write the traffic log ${file}: ${e instanceof Error ? e.message : String(e)}`);
      }
    }
  }
}

function agentIdentity(info: acp.Implementation | null | undefined, command: string): AgentIdentity {
  if (info === undefined || info === null) {
    return { name: path.basename(command), version: null };
  }
  return {
    name: info.name,
    ...(typeof info.title === 'string' && info.title !== '' ? { title: info.title } : {}),
    version: info.version,
  };
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
