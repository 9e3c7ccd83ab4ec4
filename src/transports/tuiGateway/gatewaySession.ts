import type * as acp from '@agentclientprotocol/sdk';
import { isObject } from '../../util/json';
import { GatewayEventMapper } from './eventMapper';
import { RowIdBook } from './rowIds';
import { snapshotUpdates } from './transcriptReplay';
import { TurnTracker } from './turnTracker';
import type { GatewayEvent, SessionSnapshot } from './wire';

/**
 * One gateway session this client created, resumed or attached to: its event translation, its turn
 * count and its row ids. Several clients may be attached to the same live session; each sees every
 * event, including turns another client started (their prompt shows as a user message).
 */
export class GatewaySession {
  readonly mapper = new GatewayEventMapper();
  readonly book = new RowIdBook();
  readonly turns = new TurnTracker();
  /** Texts this client submitted whose `message.start` has not come yet (they are not echoed). */
  private readonly ownInputs: string[] = [];

  constructor(
    readonly wireId: string,
    readonly publicId: string,
    private readonly deliver: (update: acp.SessionUpdate) => void,
  ) {}

  /** Before submitting: the `message.start` carrying this text is ours (the session layer shows it already). */
  expectOwnInput(text: string): void {
    this.ownInputs.push(text);
  }

  /** The submit failed or was folded into the running turn: no `message.start` will carry it. */
  dropOwnInput(text: string): void {
    const i = this.ownInputs.indexOf(text);
    if (i >= 0) {
      this.ownInputs.splice(i, 1);
    }
  }

  /** A resumed / attached session's state: row ids, whether a turn runs, the transcript as replay. */
  adopt(snapshot: SessionSnapshot): void {
    this.book.reset(snapshot.messages);
    this.turns.adoptRunning(snapshot.running);
    if (snapshot.running) {
      this.mapper.turnStarted();
      if (snapshot.inflight !== undefined && snapshot.inflight.assistant !== '') {
        // The replay below shows what streamed so far: the completion must not add the whole text again.
        this.mapper.textStreamed();
      }
    }
    for (const u of snapshotUpdates(snapshot)) {
      this.deliver(u);
    }
  }

  onEvent(event: GatewayEvent): void {
    switch (event.type) {
      case 'message.start':
        this.mapper.turnStarted();
        this.turns.started();
        this.echoInput(event.payload.input);
        return;
      case 'message.complete':
        for (const u of this.mapper.complete(event.payload)) {
          this.deliver(u);
        }
        this.turns.completed({ status: typeof event.payload.status === 'string' ? event.payload.status : 'complete', payload: event.payload });
        return;
      default:
        for (const u of this.mapper.map(event)) {
          this.deliver(u);
        }
    }
  }

  /**
   * `message.start.payload.input` (shared-session wire v1) is the canonical projection of the turn's
   * prompt; `null` means nothing displayable. Another client's prompt is shown; ours already is.
   */
  private echoInput(input: unknown): void {
    if (!isObject(input) || typeof input.text !== 'string' || input.text === '') {
      if (this.ownInputs.length > 0) {
        // A gateway without the input projection: the turn that started is the oldest submit of ours.
        this.ownInputs.shift();
      }
      return;
    }
    const i = this.ownInputs.indexOf(input.text);
    if (i >= 0) {
      this.ownInputs.splice(i, 1);
      return;
    }
    this.book.appendTurn();
    this.deliver({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: input.text } });
  }
}
