/**
 * Scenarios that only stream text or session-level updates: replies, thoughts, plans, usage,
 * titles, modes, commands, unusual stop reasons and errors.
 */
import { RequestError } from '@agentclientprotocol/sdk';
import type { PlanEntry, PlanEntryStatus } from '@agentclientprotocol/sdk';
import { intArg, strArg, type Marker } from './markers';
import { changedCommands, configOptions, isModeId } from './sessionConfig';
import { chunkWords, tokens, type Turn } from './turn';

export async function plain(turn: Turn): Promise<void> {
  await turn.say(
    'Hello from the scripted agent! This is a plain reply, streamed in several chunks that share one messageId.',
  );
}

const markdownReply = [
  '## Scripted Markdown',
  '',
  'A short list:',
  '',
  '- first item with **bold** text',
  '- second item with `inline code`',
  '- third item',
  '',
  '```ts',
  'export function greet(name: string): string {',
  '  return `Hello, ${name}!`;',
  '}',
  '```',
  '',
  'See the [ACP documentation](https://agentclientprotocol.com/) for details.',
].join('\n');

export async function markdown(turn: Turn): Promise<void> {
  // Small chunks so that the fenced block arrives split across several updates.
  await turn.say(markdownReply, 3);
}

export async function thought(turn: Turn): Promise<void> {
  await turn.stream(
    'agent_thought_chunk',
    chunkWords('The user wants to see reasoning. I will think first, then give a short answer.'),
  );
  await turn.say('Here is the answer, after thinking it through.');
}

/** Echo reply for prompts without markers (and unknown slash commands, as Hermes passes them on). */
export async function echo(turn: Turn, text: string): Promise<void> {
  const trimmed = text.trim();
  await turn.say(trimmed === '' ? 'You sent an empty prompt.' : `You said: ${trimmed}`);
}

function planEntries(statuses: readonly PlanEntryStatus[]): PlanEntry[] {
  const contents = ['Read the relevant files', 'Make the change', 'Run the tests'];
  return contents.map((content, i) => ({ content, priority: 'medium', status: statuses[i] ?? 'pending' }));
}

/** ACP: every `plan` update replaces the whole plan; statuses advance over four updates. */
export async function plan(turn: Turn): Promise<void> {
  const steps: PlanEntryStatus[][] = [
    ['in_progress', 'pending', 'pending'],
    ['completed', 'in_progress', 'pending'],
    ['completed', 'completed', 'in_progress'],
    ['completed', 'completed', 'completed'],
  ];
  for (const [i, statuses] of steps.entries()) {
    if (i > 0) {
      await turn.sleep(turn.chunkDelayMs * 4);
    }
    await turn.send({ sessionUpdate: 'plan', entries: planEntries(statuses) });
  }
  await turn.say('The plan is complete.');
}

/** Context-window size reported by Hermes' fixtures (`context_length: 131072`). */
export const contextWindow = 131072;

/** Estimated context use: a fixed system prompt plus the history, like Hermes' `used`. */
export function contextUsed(turn: Turn): number {
  let chars = 0;
  for (const t of turn.session.stored.turns) {
    for (const u of t.updates) {
      chars += JSON.stringify(u).length;
    }
  }
  return 10_000 + tokens(chars);
}

/** `usage_update` with a cumulative cost (ACP: cost is the session total so far). */
export async function usage(turn: Turn): Promise<void> {
  const u = turn.session.stored.usage;
  const amount = Math.round(((u.inputTokens + 1_000) * 3 + (u.outputTokens + tokens(turn.outputChars)) * 15)) / 1e6;
  u.costUsd = Math.max(u.costUsd, amount);
  await turn.send({
    sessionUpdate: 'usage_update',
    used: contextUsed(turn),
    size: contextWindow,
    cost: { amount: u.costUsd, currency: 'USD' },
  });
  await turn.say(`Usage so far costs $${u.costUsd.toFixed(6)}.`);
}

/** Hermes sends its generated title in a `session_info_update` AFTER the prompt response. */
export async function title(turn: Turn, marker: Marker): Promise<void> {
  const text = strArg(marker, 'text', 'Scripted Session Title');
  turn.session.stored.title = text;
  await turn.say(`I will name this session "${text}".`);
  turn.afterResponse.push(async () => {
    await turn.client.notify('session/update', {
      sessionId: turn.sessionId,
      update: { sessionUpdate: 'session_info_update', title: text, updatedAt: new Date().toISOString() },
    });
  });
}

/** Agent-initiated mode change: `current_mode_update` (plus `config_option_update` with config options). */
export async function mode(turn: Turn, marker: Marker): Promise<void> {
  const id = strArg(marker, 'id', 'accept_edits');
  if (isModeId(id)) {
    turn.session.stored.modeId = id;
  }
  await turn.send({ sessionUpdate: 'current_mode_update', currentModeId: id });
  if (turn.runtime.knobs.configOptions) {
    const boolean = turn.runtime.clientCapabilities.session?.configOptions?.boolean != null;
    await turn.send({ sessionUpdate: 'config_option_update', configOptions: configOptions(turn.session.stored, boolean) });
  }
  await turn.say(`Switched to mode ${id}.`);
}

export async function commands(turn: Turn): Promise<void> {
  await turn.send({ sessionUpdate: 'available_commands_update', availableCommands: changedCommands });
  await turn.say('The command list changed.');
}

/**
 * A `session/update` whose `sessionUpdate` is not in the stable schema (`plan_update` is unstable).
 * The SDK's stable client entrypoint drops it before any handler runs (`@agentclientprotocol/sdk` 2.4: v1 unions are closed).
 */
export async function unknownUpdate(turn: Turn): Promise<void> {
  await turn.sendUntyped({
    sessionUpdate: 'plan_update',
    planId: 'scripted-plan',
    entries: [{ content: 'An entry of an unknown update kind', priority: 'low', status: 'pending' }],
  });
  await turn.say('I sent an update of an unknown kind.');
}

export async function refusal(turn: Turn): Promise<void> {
  await turn.say('I can\'t help with that request.');
  turn.stopReason = 'refusal';
}

export async function maxTokens(turn: Turn): Promise<void> {
  await turn.say('This answer is cut off because the model ran out of output tok');
  turn.stopReason = 'max_tokens';
}

export async function maxTurnRequests(turn: Turn): Promise<void> {
  await turn.say('I stopped because this turn made too many model requests.');
  turn.stopReason = 'max_turn_requests';
}

/** The prompt fails with the given JSON-RPC error (what Claude/Codex do on provider errors). */
export function error(_turn: Turn, marker: Marker): Promise<void> {
  const code = intArg(marker, 'code', -32603, -2_147_483_648, 2_147_483_647);
  throw new RequestError(code, strArg(marker, 'message', 'Internal error'));
}

export function ratelimit(): Promise<void> {
  throw new RequestError(-32603, 'Internal error', { httpStatus: 429, message: 'Rate limit reached' });
}

/** Hermes reports provider failures as message text and ends the turn normally (Hermes 0.19; test/fixtures/hermes/ratelimit.jsonl). */
export async function ratelimitText(turn: Turn): Promise<void> {
  await turn.send({
    sessionUpdate: 'agent_message_chunk',
    messageId: turn.newMessageId(),
    content: { type: 'text', text: 'API call failed after 3 retries: HTTP 429: Rate limit reached for requests' },
  });
}

/** Turns with `[server-error-text]` seen per session (the first `fails` of them fail). */
const serverErrorSeen = new WeakMap<object, number>();

/**
 * Hermes' HTTP 500 as it was recorded (test/fixtures/hermes/main.jsonl, "provider failure: HTTP 500"):
 * the failure as message text and `end_turn`, for the first `fails` such turns of the session;
 * later ones answer, so a client's Retry can be seen to work.
 */
export async function serverErrorText(turn: Turn, marker: Marker): Promise<void> {
  const seen = (serverErrorSeen.get(turn.session) ?? 0) + 1;
  serverErrorSeen.set(turn.session, seen);
  if (seen > intArg(marker, 'fails', 1, 0, 1000)) {
    await turn.say('The provider answered this time.');
    return;
  }
  await turn.send({
    sessionUpdate: 'agent_message_chunk',
    messageId: turn.newMessageId(),
    content: { type: 'text', text: 'API call failed after 3 retries: HTTP 500: Fake upstream exploded' },
  });
}
