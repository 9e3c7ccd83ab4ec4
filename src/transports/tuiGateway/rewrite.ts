import { isObject, type JsonObject } from '../../util/json';
import { TransportRpcError } from '../../agentPort/transportErrors';
import type { RewriteRequest } from '../../agentPort/transport';
import type { RowIdBook } from './rowIds';
import type { TurnTracker } from './turnTracker';
import { GatewayCode, type SubmitResult } from './wire';

/** How often a busy session is interrupted before the rewrite gives up. */
const maxInterrupts = 5;

export interface RewriteSteps {
  readonly book: RowIdBook;
  /** `prompt.submit` for this session with these extra params. */
  submit(params: JsonObject): Promise<SubmitResult>;
  /** `session.interrupt`, resolved once the running turn has ended (or a short wait passed). */
  interrupt(): Promise<void>;
  /** Re-reads the durable row ids (`session.history`). */
  refreshRows(): Promise<void>;
}

export type RewriteOutcome =
  | { readonly kind: 'declined' }
  | { readonly kind: 'submitted'; readonly result: SubmitResult; readonly interrupts: number; readonly survivors: readonly (number | null)[] };

/**
 * Edit / regenerate as a truncating `prompt.submit` (docs "Rewinding history on prompt.submit"):
 * `confirm_truncate` always; `truncate_before_row_id` when the turn has a durable id, else the
 * ordinal (never both: a disagreement is 4030); `confirm_empty_truncate` when nothing survives;
 * `confirm_deep_truncate` only after the user agreed to archive more than one user turn (4033
 * otherwise). A busy session (4009) is interrupted and the same submit retried. The cached row ids
 * are rebound from `survivor_user_row_ids` (a stale id is refused with 4018, never re-aimed).
 */
export async function rewriteHistory(request: RewriteRequest, text: string, steps: RewriteSteps): Promise<RewriteOutcome> {
  // Other clients may have added turns, and our own turns have no ids until the history is read.
  await steps.refreshRows();
  const ordinal = request.target.userOrdinal;
  if (!Number.isInteger(ordinal) || ordinal < 0) {
    throw new RangeError(`A rewrite needs a user-turn ordinal ≥ 0 (got ${String(ordinal)}).`);
  }
  const rowId = request.target.rowId ?? steps.book.rowIdAt(ordinal);
  const userTurnsCut = Math.max(1, steps.book.size - ordinal);
  let deepConfirmed = false;
  if (userTurnsCut > 1) {
    deepConfirmed = await request.confirmDeepCut({ sessionId: request.sessionId, userTurnsCut });
    if (!deepConfirmed) {
      return { kind: 'declined' };
    }
  }
  const params = (): JsonObject => ({
    text,
    confirm_truncate: true,
    ...(rowId !== undefined ? { truncate_before_row_id: rowId } : { truncate_before_user_ordinal: ordinal }),
    ...(ordinal === 0 ? { confirm_empty_truncate: true } : {}),
    ...(deepConfirmed ? { confirm_deep_truncate: true } : {}),
  });
  let interrupts = 0;
  let announced = false;
  for (;;) {
    request.signal?.throwIfAborted();
    try {
      if (!announced) {
        announced = true;
        request.onSubmitting?.();
      }
      const result = await steps.submit(params());
      const survivors = result.survivorUserRowIds;
      if (survivors !== undefined) {
        steps.book.rebind(survivors);
      } else {
        steps.book.forgetFrom(ordinal);
      }
      request.onSubmitted?.(steps.book.list().slice(0, -1));
      return { kind: 'submitted', result, interrupts, survivors: survivors ?? [] };
    } catch (e) {
      if (TransportRpcError.hasCode(e, GatewayCode.busy) && interrupts < maxInterrupts) {
        // A truncating submit is never queued: stop the live turn, then send the same submit again.
        interrupts++;
        await steps.interrupt();
        continue;
      }
      if (TransportRpcError.hasCode(e, GatewayCode.deepCut) && !deepConfirmed) {
        // The gateway counted a deeper cut than we did (turns added elsewhere): ask with its numbers.
        const data = isObject(e.data) ? e.data : {};
        deepConfirmed = await request.confirmDeepCut({
          sessionId: request.sessionId,
          userTurnsCut: typeof data.archived_user_turns === 'number' ? data.archived_user_turns : userTurnsCut,
          ...(typeof data.archived_messages === 'number' ? { archivedMessages: data.archived_messages } : {}),
        });
        if (!deepConfirmed) {
          return { kind: 'declined' };
        }
        continue;
      }
      throw e;
    }
  }
}

/** Interrupts a busy session before a truncating submit; a running turn gets a bounded wait to end `interrupted`. */
export async function interruptAndSettle(turns: TurnTracker, interrupt: () => Promise<unknown>): Promise<void> {
  const wasRunning = turns.running;
  const mark = turns.mark;
  await interrupt();
  if (wasRunning) {
    // The busy turn ends with an `interrupted` completion; a bounded wait, then the retry decides.
    await Promise.race([turns.waitFor(mark, 'streaming'), delay(5000)]).catch(() => undefined);
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms).unref());
}
