import type * as acp from '@agentclientprotocol/sdk';
import { TransportClosedError, TransportRpcError } from '../../agentPort/transportErrors';
import type { GatewaySession } from './gatewaySession';

/**
 * Waits for the end of the turn a submit started and turns it into the prompt's answer:
 * `interrupted` → `cancelled`, `error` (a `message.complete` with that status, or an `error`
 * event) → a rejected prompt carrying Hermes' message (the session layer shows the failure with
 * Retry; the runner classifies it as it does ACP errors), otherwise `end_turn` with the turn's
 * tokens. Races the turn deadline and the connection's end: nothing waits for ever.
 */
export async function turnOutcome(session: GatewaySession, mark: number, status: string, turnMs: number, closed: Promise<Error>): Promise<acp.PromptResponse> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new TransportClosedError(`The turn did not finish within ${Math.round(turnMs / 60_000)} min.`)), turnMs);
  });
  try {
    const end = await Promise.race([session.turns.waitFor(mark, status), timeout, closed.then((e) => Promise.reject(e))]);
    const usage = end.usage !== undefined ? { usage: end.usage } : {};
    if (end.status === 'interrupted') {
      return { stopReason: 'cancelled', ...usage };
    }
    if (end.status === 'error') {
      const p = end.payload;
      const why = [p.error, p.failure_reason, p.text].find((v): v is string => typeof v === 'string' && v !== '') ?? 'The turn failed.';
      throw new TransportRpcError('prompt.submit', -32603, why, p.error_surface);
    }
    return { stopReason: 'end_turn', ...usage };
  } finally {
    clearTimeout(timer);
  }
}
