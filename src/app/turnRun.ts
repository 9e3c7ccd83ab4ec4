import type * as acp from '@agentclientprotocol/sdk';
import { AgentExitedError } from '../agentPort/agentErrors';
import { detectProviderFailureText, type ProviderFailure } from '../session/providerErrors';
import type { SessionController, TurnResult } from '../session/sessionController';
import type { Entry, TokenUsage } from '../session/sessionState';
import { confirmAppliedEdits, type FileText } from './editOutcomes';

/** How one turn ended, as both the chat and the runner read it. */
export interface TurnOutcome {
  readonly result: TurnResult;
  readonly turnId: number | undefined;
  /** The entries the turn added (its prompt first). */
  readonly turnEntries: readonly Entry[];
  /** The text of the turn's last assistant message (thoughts excluded). */
  readonly reply: string;
  /**
   * An `end_turn` whose reply is Hermes' report of a failed model call rather than an answer
   * (Hermes 0.19 `acp_adapter/server.py`; test/fixtures/hermes/ratelimit.jsonl).
   */
  readonly providerFailure: ProviderFailure | undefined;
  /** The footer's usage for this turn, if the reducer wrote one. */
  readonly footerUsage: TokenUsage | undefined;
  readonly turnMs: number;
}

export interface TurnRunOptions {
  /** Sent before the prompt but not shown as the user's message (context notes). */
  readonly context?: readonly acp.ContentBlock[];
  readonly now: () => number;
  /**
   * Close the turn's open tool calls as soon as the prompt fails with the agent's exit, rather than
   * whenever the connection's exit notification lands (the runner reports right after). A chat
   * leaves the exit to its host's exit watch, which words the notice.
   */
  readonly closeOnAgentExit?: boolean;
  /** Reads files after the turn, to end the edits the agent left open that were applied (editOutcomes.ts). */
  readonly files?: FileText;
}

/**
 * One prompt turn on a session, the one way the extension's chats and `hermes-acp-run` run it:
 * submit (synchronously: the turn has its id and a stop cancels it from then on), wait for the end
 * under the controller's deadline, then read what the turn left. {@link cancel} is the ACP
 * prompt-turn cancellation with an optional grace before the caller gives up on the agent.
 */
export class TurnRun {
  readonly turnId: number | undefined;
  readonly done: Promise<TurnOutcome>;
  private runningValue = true;
  private graceTimer: NodeJS.Timeout | undefined;

  constructor(
    private readonly controller: SessionController,
    blocks: readonly acp.ContentBlock[],
    private readonly options: TurnRunOptions,
  ) {
    const startedAt = options.now();
    const before = controller.state.entries.length;
    const pending = controller.prompt(blocks, options.context);
    // prompt() dispatched `promptSubmitted` before its first await.
    this.turnId = controller.state.turn?.id;
    this.done = this.settle(pending, before, startedAt);
  }

  /** The prompt was sent and has not ended yet. */
  get running(): boolean {
    return this.runningValue;
  }

  /**
   * `session/cancel` (the controller answers pending permissions `cancelled` first). When the agent
   * has not ended the turn `graceMs` later, `onGraceExpired` runs (the runner kills the agent).
   */
  cancel(grace?: { readonly ms: number; readonly onExpired: () => void }): Promise<boolean> {
    if (grace !== undefined && this.runningValue) {
      clearTimeout(this.graceTimer);
      this.graceTimer = setTimeout(grace.onExpired, grace.ms);
    }
    return this.controller.cancel();
  }

  /** Stops a pending grace timer (the run is being torn down). */
  dispose(): void {
    clearTimeout(this.graceTimer);
  }

  private async settle(pending: Promise<TurnResult>, before: number, startedAt: number): Promise<TurnOutcome> {
    let result: TurnResult;
    try {
      result = await pending;
    } catch (e) {
      result = { kind: 'failed', error: e };
    }
    this.runningValue = false;
    clearTimeout(this.graceTimer);
    const turnMs = this.options.now() - startedAt;
    if (this.options.closeOnAgentExit === true && result.kind === 'interrupted' && AgentExitedError.is(result.error)) {
      this.controller.agentExited(result.error.message, result.error.stderrTail);
    }
    if (this.options.files !== undefined && result.kind === 'ended') {
      await confirmAppliedEdits(this.controller, this.turnId, this.options.files, this.options.now);
    }
    const { entries } = this.controller.state;
    const reply = turnReply(entries, this.turnId);
    return {
      result,
      turnId: this.turnId,
      turnEntries: entries.slice(before),
      reply,
      providerFailure: replyFailure(result, reply),
      footerUsage: footerUsage(entries, this.turnId),
      turnMs,
    };
  }
}

/** The provider failure an `end_turn` reply reports (see {@link TurnOutcome.providerFailure}). */
export function replyFailure(result: TurnResult, reply: string): ProviderFailure | undefined {
  return result.kind === 'ended' && result.stopReason === 'end_turn' ? detectProviderFailureText(reply) : undefined;
}

/** The text of the turn's last assistant message (thoughts excluded). */
export function finalAnswer(entries: readonly Entry[], turnId: number | undefined): string {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e === undefined) {
      continue;
    }
    if (e.kind === 'user' && e.origin === 'local') {
      break;
    }
    if (e.kind === 'assistant' && (turnId === undefined || e.turnId === undefined || e.turnId === turnId)) {
      const text = e.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
      if (text !== '') {
        return text;
      }
    }
  }
  return '';
}

/**
 * What the agent answered: its last message, or — a provider failure's report having left the reply
 * for the footer (turnSlice.ts) — that report.
 */
export function turnReply(entries: readonly Entry[], turnId: number | undefined): string {
  return finalAnswer(entries, turnId) || failureReport(entries, turnId);
}

/** The provider failure the turn's footer carries (the reply it replaced), or ''. */
function failureReport(entries: readonly Entry[], turnId: number | undefined): string {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'turnEnd' && (turnId === undefined || e.turnId === turnId)) {
      return e.errorWasReply === true ? (e.error ?? '') : '';
    }
  }
  return '';
}

/** The footer's usage for this turn, if the reducer wrote one. */
export function footerUsage(entries: readonly Entry[], turnId: number | undefined): TokenUsage | undefined {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'turnEnd' && e.turnId === turnId) {
      return e.usage;
    }
  }
  return undefined;
}
