/**
 * `session/prompt`: records the user message, runs the scenarios selected by the markers in
 * order, and answers with a stop reason and Hermes-style CUMULATIVE `usage`.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { AgentRequestContext, PromptRequest, PromptResponse, StopReason } from '@agentclientprotocol/sdk';
import { log, preview } from './agentLog';
import { parseMarkers } from './markers';
import type { AgentRuntime } from './runtime';
import { endsTurn, scenarios, slashCommand } from './scenarios';
import { recordUpdate, type StoredSession } from './sessionStore';
import { contextUsed, contextWindow, echo } from './textScenarios';
import { tokens, Turn, TurnCancelled } from './turn';

/**
 * Token usage as Hermes puts it on the prompt response: the totals of the SESSION so far, not of
 * this turn (Hermes 0.19, observed 1234 → 3702 → 6170 …). `usage` is an unstable
 * field in ACP v1, hence the local type.
 */
export interface CumulativeUsage {
  inputTokens: number;
  outputTokens: number;
  totalTokens: number;
  thoughtTokens?: number;
  cachedReadTokens?: number;
}

export type ScriptedPromptResponse = PromptResponse & { usage?: CumulativeUsage };

function usageOf(session: StoredSession): CumulativeUsage {
  const u = session.usage;
  return {
    inputTokens: u.inputTokens,
    outputTokens: u.outputTokens,
    totalTokens: u.inputTokens + u.outputTokens + u.thoughtTokens,
    ...(u.thoughtTokens > 0 ? { thoughtTokens: u.thoughtTokens } : {}),
    ...(u.cachedReadTokens > 0 ? { cachedReadTokens: u.cachedReadTokens } : {}),
  };
}

function promptText(prompt: PromptRequest['prompt']): string {
  return prompt
    .map((b) => (b.type === 'text' ? b.text : ''))
    .filter((t) => t !== '')
    .join('\n');
}

export async function runPrompt(runtime: AgentRuntime, ctx: AgentRequestContext<PromptRequest>): Promise<ScriptedPromptResponse> {
  const { sessionId, prompt } = ctx.params;
  const live = runtime.live.get(sessionId);
  if (live === undefined) {
    log(`prompt for unknown or closed session ${sessionId}`);
    throw RequestError.sessionNotFound(sessionId);
  }
  const stored = live.stored;
  if (live.turn !== undefined) {
    // v1 does not define concurrent prompts; Hermes answers the second one with `end_turn` at once.
    log(`prompt while a turn is running in ${sessionId}: answered end_turn immediately`);
    await ctx.client.notify('session/update', {
      sessionId,
      update: {
        sessionUpdate: 'agent_message_chunk',
        content: { type: 'text', text: 'A turn is already running in this session; this prompt was ignored.' },
      },
    });
    return { stopReason: 'end_turn', usage: usageOf(stored) };
  }

  const turn = new Turn(runtime, live, ctx.client, ctx.signal);
  live.turn = turn;
  for (const block of prompt) {
    recordUpdate(turn.history, { sessionUpdate: 'user_message_chunk', content: block });
  }
  runtime.store.touch(stored);

  const text = promptText(prompt);
  const markers = parseMarkers(text);
  log(`prompt ${sessionId}: ${markers.length > 0 ? markers.map((m) => m.source).join(' ') : `no markers: ${preview(text, 80)}`}`);

  let stopReason: StopReason = 'end_turn';
  let failure: Error | undefined;
  try {
    if (markers.length === 0 && !(await slashCommand(turn, text))) {
      await echo(turn, text);
    }
    for (const marker of markers) {
      if (marker.unknownKeys.length > 0) {
        log(`${marker.source}: unknown keys ignored: ${marker.unknownKeys.join(', ')}`);
      }
      await scenarios[marker.name](turn, marker);
      if (endsTurn.has(marker.name) || turn.stopReason !== undefined) {
        break;
      }
    }
    stopReason = turn.stopReason ?? 'end_turn';
  } catch (err) {
    if (!(err instanceof TurnCancelled) && !turn.cancelled) {
      // RequestErrors are answered as they are; anything else becomes -32603 with data.details.
      failure = err instanceof Error ? err : new Error(preview(err));
    }
  }

  try {
    if (turn.cancelled) {
      // ACP prompt-turn: the agent MAY send final updates after session/cancel, before the
      // response. Tool calls left open are closed as failed so no card spins forever.
      stopReason = 'cancelled';
      for (const toolCallId of [...turn.openToolCalls]) {
        await turn.send({
          sessionUpdate: 'tool_call_update',
          toolCallId,
          status: 'failed',
          content: [{ type: 'content', content: { type: 'text', text: 'Cancelled by the user.' } }],
        });
      }
    }
    const u = stored.usage;
    u.cachedReadTokens += stored.turns.length > 1 ? 1_000 : 0;
    u.inputTokens += 1_200 + tokens(JSON.stringify(prompt).length);
    u.outputTokens += tokens(turn.outputChars);
    u.thoughtTokens += tokens(turn.thoughtChars);
    if (failure === undefined && !turn.cancelled) {
      // Hermes sends a context-window gauge after every prompt.
      await turn.send({ sessionUpdate: 'usage_update', used: contextUsed(turn), size: contextWindow });
    }
  } finally {
    live.turn = undefined;
    runtime.store.touch(stored);
  }

  if (failure !== undefined) {
    log(`turn in ${sessionId} failed: ${failure.message}`);
    throw failure;
  }
  log(`turn in ${sessionId} ended: ${stopReason}`);
  if (turn.afterResponse.length > 0 && ctx.requestId !== null) {
    const tasks = [...turn.afterResponse];
    void runtime.stdout.afterResponse(ctx.requestId).then(async (ok) => {
      for (const task of ok ? tasks : []) {
        await task().catch((err: unknown) => log(`after-response update failed: ${String(err)}`));
      }
    });
  }
  return responseOf(stopReason, turn, stored);
}

/** `[meta-usage]` moves the tokens out of `usage`: into Gemini CLI's `_meta.quota`, or into chunks (Qwen Code). */
function responseOf(stopReason: StopReason, turn: Turn, stored: StoredSession): ScriptedPromptResponse {
  const u = turn.responseUsage;
  if (u === 'cumulative') {
    return { stopReason, usage: usageOf(stored) };
  }
  return u === 'none' ? { stopReason } : { stopReason, _meta: { quota: { token_count: u.quota, model_usage: [] } } };
}
