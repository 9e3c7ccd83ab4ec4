import { Emitter } from '../util/emitter';

/** How a write waiting for review ended. */
export type ReviewOutcome = { readonly kind: 'accepted' } | { readonly kind: 'rejected' } | { readonly kind: 'ended'; readonly reason: string };

/** What a click on Allow/Reject did. */
export type ReviewAnswer = { readonly kind: 'answered' } | { readonly kind: 'ended'; readonly reason: string; readonly label: string } | { readonly kind: 'unknown' };

interface Open {
  readonly sessionId: string;
  readonly label: string;
  readonly resolve: (o: ReviewOutcome) => void;
}

/** How many ended reviews are remembered to explain a late click. */
const endedMemory = 200;

/**
 * Writes waiting for the user (`fs/write_text_file` in `hermes.review.writes: review` mode). Every
 * one ends: accepted, rejected, or ended as rejected when its turn is cancelled, its session
 * closes, its agent exits or restarts, or the extension deactivates. A click that comes after
 * the end changes nothing and learns why ({@link answer}).
 */
export class ReviewLedger {
  private counter = 0;
  private readonly open = new Map<number, Open>();
  private readonly ended = new Map<number, { readonly reason: string; readonly label: string }>();
  private readonly onDidSettleEmitter = new Emitter<number>();
  /** A review ended (any way): its proposal can go off screen. */
  readonly onDidSettle = this.onDidSettleEmitter.event;

  /** Registers a write waiting for review; the promise always settles. */
  begin(sessionId: string, label: string): { readonly id: number; readonly outcome: Promise<ReviewOutcome> } {
    const id = ++this.counter;
    const outcome = new Promise<ReviewOutcome>((resolve) => this.open.set(id, { sessionId, label, resolve }));
    return { id, outcome };
  }

  isPending(id: number): boolean {
    return this.open.has(id);
  }

  /** The user's Allow (true) or Reject (false). */
  answer(id: number, accept: boolean): ReviewAnswer {
    const ended = this.ended.get(id);
    if (ended !== undefined) {
      return { kind: 'ended', ...ended };
    }
    return this.settle(id, accept ? { kind: 'accepted' } : { kind: 'rejected' }) ? { kind: 'answered' } : { kind: 'unknown' };
  }

  /** Ends every review of a session as rejected (turn cancelled, session closed, agent exited…). */
  endSession(sessionId: string, reason: string): number {
    let n = 0;
    for (const [id, o] of [...this.open]) {
      if (o.sessionId === sessionId && this.settle(id, { kind: 'ended', reason })) {
        n++;
      }
    }
    return n;
  }

  /** Ends every review (the extension deactivates). */
  endAll(reason: string): number {
    let n = 0;
    for (const id of [...this.open.keys()]) {
      n += this.settle(id, { kind: 'ended', reason }) ? 1 : 0;
    }
    return n;
  }

  dispose(): void {
    this.endAll('the extension was deactivated');
    this.onDidSettleEmitter.dispose();
  }

  private settle(id: number, outcome: ReviewOutcome): boolean {
    const o = this.open.get(id);
    if (o === undefined) {
      return false;
    }
    this.open.delete(id);
    this.ended.set(id, { reason: outcome.kind === 'ended' ? outcome.reason : outcome.kind === 'accepted' ? 'it was already allowed' : 'it was already rejected', label: o.label });
    if (this.ended.size > endedMemory) {
      const oldest = this.ended.keys().next().value;
      if (oldest !== undefined) {
        this.ended.delete(oldest);
      }
    }
    o.resolve(outcome);
    this.onDidSettleEmitter.fire(id);
    return true;
  }
}
