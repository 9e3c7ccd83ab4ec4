import type * as acp from '@agentclientprotocol/sdk';
import { Deferred } from '../../util/deferred';
import { TransportClosedError, TransportRpcError } from '../../agentPort/transportErrors';
import { isObject, type JsonObject } from '../../util/json';
import { GatewayEventMapper } from './eventMapper';
import { RowIdBook } from './rowIds';
import { snapshotUpdates } from './transcriptReplay';
import { TurnTracker } from './turnTracker';
import { parseGatewayUsage, usageSince, type GatewayEvent, type GatewayUsage, type SessionSnapshot } from './wire';

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
  /**
   * The agent is built (`session.info`), or could not be (an `error` before any turn): Hermes
   * v0.19.0 answers `session.create` at once and builds the agent in the background.
   */
  readonly built = new Deferred<JsonObject>();
  /** `prompt.submit` requests sent and not answered yet. */
  private submitsInFlight = 0;
  /** The live session's running token total, as last reported. */
  private lastUsage: GatewayUsage | undefined;

  constructor(
    readonly wireId: string,
    readonly publicId: string,
    private readonly deliver: (update: acp.SessionUpdate) => void,
  ) {
    this.built.promise.catch(() => undefined);
  }

  /** Before submitting: the `message.start` carrying this text is ours (the session layer shows it already). */
  expectOwnInput(text: string): void {
    this.ownInputs.push(text);
  }

  /**
   * Hermes v0.19.0 answers `session.create` before the session's agent exists (`info.lazy`) and
   * builds it in the background: `session.info` says it is ready (with Hermes' version), an
   * `error` that it could not be built ("agent init failed: …", "agent initialization timed
   * out"). Waiting for it makes a start failure the session's failure rather than a hung first turn.
   */
  async whenBuilt(timeoutMs: number, closed: Promise<Error>): Promise<void> {
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      const s = Math.round(timeoutMs / 1000);
      timer = setTimeout(() => reject(new TransportRpcError('session.create', -32603, `Hermes created session ${this.wireId}, but its agent did not start within ${s} s (no session.info); see the gateway's log.`)), timeoutMs);
    });
    try {
      await Promise.race([this.built.promise, timeout, closed.then((e) => Promise.reject(e))]);
    } catch (e) {
      throw TransportRpcError.is(e) || TransportClosedError.is(e) ? e : new TransportRpcError('session.create', -32603, e instanceof Error ? e.message : String(e));
    } finally {
      clearTimeout(timer);
    }
  }

  /** Around a `prompt.submit` request: an `error` event meanwhile ends the turn it starts. */
  submitting(delta: 1 | -1): void {
    this.submitsInFlight = Math.max(0, this.submitsInFlight + delta);
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
    // A resumed session counts its tokens from 0 again (recorded in stdio-resume.jsonl).
    this.lastUsage = undefined;
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
      case 'message.complete': {
        for (const u of this.mapper.complete(event.payload)) {
          this.deliver(u);
        }
        const total = parseGatewayUsage(event.payload.usage);
        const usage = total !== undefined ? usageSince(total, this.lastUsage) : undefined;
        this.lastUsage = total ?? this.lastUsage;
        this.turns.completed({ status: typeof event.payload.status === 'string' ? event.payload.status : 'complete', payload: event.payload, ...(usage !== undefined ? { usage } : {}) });
        return;
      }
      case 'session.info':
        this.built.resolve(event.payload);
        for (const u of this.mapper.map(event)) {
          this.deliver(u);
        }
        return;
      case 'error':
        this.onError(typeof event.payload.message === 'string' && event.payload.message !== '' ? event.payload.message : 'Hermes reported an error without a message.', event);
        return;
      default:
        for (const u of this.mapper.map(event)) {
          this.deliver(u);
        }
    }
  }

  /**
   * An `error` event (v0.19.0: the agent could not be built, or the turn's dispatcher failed) ends
   * the turn that is running or being submitted — no `message.complete` follows it (recorded in
   * stdio-noprovider.jsonl). With no turn under way it is the session's start failing.
   */
  private onError(message: string, event: GatewayEvent): void {
    if (this.turns.running || this.turns.awaited || this.submitsInFlight > 0) {
      this.turns.completed({ status: 'error', payload: { error: message, text: '' } });
      return;
    }
    this.built.reject(new Error(message));
    for (const u of this.mapper.map(event)) {
      this.deliver(u);
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
