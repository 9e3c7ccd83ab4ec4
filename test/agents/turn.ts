/**
 * One `session/prompt` turn: sending and recording updates, cancellable pauses, and permission
 * requests that survive cancellation.
 */
import type {
  AgentContext,
  PermissionOption,
  RequestPermissionResponse,
  SessionUpdate,
  StopReason,
  ToolCallUpdate,
} from '@agentclientprotocol/sdk';
import { randomBytes } from 'node:crypto';
import { isAbsolute, resolve } from 'node:path';
import { log, preview } from './agentLog';
import type { AgentRuntime, LiveSession } from './runtime';
import { recordUpdate, type StoredTurn } from './sessionStore';

/** Thrown out of a scenario when the turn was cancelled; the prompt then answers `cancelled`. */
export class TurnCancelled extends Error {
  constructor() {
    super('turn cancelled');
    this.name = 'TurnCancelled';
  }
}

/** How a permission request ended, from the agent's point of view. */
export type PermissionAnswer =
  | { readonly outcome: 'selected'; readonly optionId: string }
  | { readonly outcome: 'cancelled' }
  | { readonly outcome: 'timeout' }
  | { readonly outcome: 'error'; readonly message: string };

export interface PermissionRequestOptions {
  /** Give up after this many ms (Hermes waits 60 s, then treats the request as denied). */
  readonly timeoutMs?: number;
  /** On timeout, also send `$/cancel_request` for the pending request (ACP cancellation.mdx). */
  readonly cancelRequest?: boolean;
}

export function hexId(bytes: number): string {
  return randomBytes(bytes).toString('hex');
}

/** Rough token estimate used for the usage counters (about four characters per token). */
export function tokens(chars: number): number {
  return Math.ceil(chars / 4);
}

/** Splits text into chunks of `wordsPerChunk` words, keeping the whitespace. */
export function chunkWords(text: string, wordsPerChunk = 2): string[] {
  const words = text.match(/\s*\S+\s*/g) ?? [text];
  const chunks: string[] = [];
  for (let i = 0; i < words.length; i += wordsPerChunk) {
    chunks.push(words.slice(i, i + wordsPerChunk).join(''));
  }
  return chunks;
}

export class Turn {
  readonly history: StoredTurn = { updates: [] };
  /** Tool calls announced but not yet `completed`/`failed`; closed as failed on cancel. */
  readonly openToolCalls = new Set<string>();
  /** Work to run once the prompt response has been written (e.g. `[title]`). */
  readonly afterResponse: (() => Promise<void>)[] = [];
  stopReason: StopReason | undefined;
  /** How the prompt response reports tokens: Hermes' cumulative `usage` (default), none at all, or only Gemini CLI's `_meta.quota`. */
  responseUsage: 'cumulative' | 'none' | { readonly quota: { readonly input_tokens: number; readonly output_tokens: number } } = 'cumulative';
  outputChars = 0;
  thoughtChars = 0;
  private readonly controller = new AbortController();

  constructor(
    readonly runtime: AgentRuntime,
    readonly session: LiveSession,
    readonly client: AgentContext,
    requestSignal: AbortSignal,
  ) {
    // A `$/cancel_request` for the prompt itself is treated like `session/cancel`.
    requestSignal.addEventListener('abort', () => this.cancel('the prompt request was cancelled'), { once: true });
    session.stored.turns.push(this.history);
  }

  get sessionId(): string {
    return this.session.stored.sessionId;
  }

  get cwd(): string {
    return this.session.stored.cwd;
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get cancelled(): boolean {
    return this.controller.signal.aborted;
  }

  /** Streaming pause between chunks; zero when the session's `fast` config option is on. */
  get chunkDelayMs(): number {
    return this.session.stored.fast ? 0 : this.runtime.knobs.chunkDelayMs;
  }

  cancel(reason: string): void {
    if (!this.cancelled) {
      log(`turn in ${this.sessionId} cancelled: ${reason}`);
      this.controller.abort(new TurnCancelled());
    }
  }

  throwIfCancelled(): void {
    if (this.cancelled) {
      throw new TurnCancelled();
    }
  }

  /** Path relative to the session cwd unless absolute (ACP: paths on the wire are absolute). */
  resolvePath(path: string): string {
    return isAbsolute(path) ? path : resolve(this.cwd, path);
  }

  newMessageId(): string {
    return `msg-${hexId(6)}`;
  }

  /** Hermes' tool call ids look like `tc-<12 hex>`. */
  newToolCallId(): string {
    return `tc-${hexId(6)}`;
  }

  /** Sends one `session/update` and records it for replay. Allowed after cancel (final updates). */
  async send(update: SessionUpdate): Promise<void> {
    this.track(update);
    recordUpdate(this.history, update);
    await this.client.notify('session/update', { sessionId: this.sessionId, update });
  }

  /** Sends an update the stable schema does not know (not recorded, not type-checked). */
  async sendUntyped(update: Record<string, unknown>): Promise<void> {
    await this.client.notify<Record<string, unknown>>('session/update', { sessionId: this.sessionId, update });
  }

  /** A pause that ends early, with {@link TurnCancelled}, when the turn is cancelled. */
  sleep(ms: number): Promise<void> {
    this.throwIfCancelled();
    if (ms <= 0) {
      return Promise.resolve();
    }
    return new Promise<void>((resolvePromise, reject) => {
      const onAbort = (): void => {
        clearTimeout(timer);
        reject(new TurnCancelled());
      };
      const timer = setTimeout(() => {
        this.signal.removeEventListener('abort', onAbort);
        resolvePromise();
      }, ms);
      this.signal.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Streams text as chunks of one message (`messageId` shared), pausing between chunks. */
  async stream(
    kind: 'agent_message_chunk' | 'agent_thought_chunk',
    chunks: readonly string[],
    messageId: string = this.newMessageId(),
  ): Promise<void> {
    for (const [i, text] of chunks.entries()) {
      if (i > 0) {
        await this.sleep(this.chunkDelayMs);
      }
      this.throwIfCancelled();
      await this.send({ sessionUpdate: kind, messageId, content: { type: 'text', text } });
    }
  }

  /** Streams a reply message in word chunks. */
  say(text: string, wordsPerChunk = 2): Promise<void> {
    return this.stream('agent_message_chunk', chunkWords(text, wordsPerChunk));
  }

  /**
   * Sends `session/request_permission` and waits for the answer, the turn's cancellation or the
   * timeout. On cancellation the request is abandoned, not withdrawn: ACP prompt-turn says the
   * CLIENT must answer pending requests with `cancelled`. Whatever the client eventually answers is
   * logged as `permission <toolCallId> answered <json>` so tests can check it.
   */
  async requestPermission(
    toolCall: ToolCallUpdate,
    options: PermissionOption[],
    opts: PermissionRequestOptions = {},
  ): Promise<PermissionAnswer> {
    this.throwIfCancelled();
    const id = toolCall.toolCallId;
    const withdraw = new AbortController();
    log(`permission ${id} requested: ${options.map((o) => o.optionId).join(', ')}`);
    const request = this.client.request(
      'session/request_permission',
      { sessionId: this.sessionId, toolCall, options },
      opts.cancelRequest === true ? { cancellationSignal: withdraw.signal } : undefined,
    );
    const answered: Promise<PermissionAnswer> = request.then(
      (response: RequestPermissionResponse) => {
        log(`permission ${id} answered ${JSON.stringify(response)}`);
        return response.outcome.outcome === 'selected'
          ? { outcome: 'selected', optionId: response.outcome.optionId }
          : { outcome: 'cancelled' };
      },
      (err: unknown) => {
        const message = err instanceof Error ? err.message : preview(err);
        log(`permission ${id} failed: ${message}`);
        return { outcome: 'error', message };
      },
    );
    const cancelled = new Promise<'cancelled'>((resolvePromise) => {
      if (this.cancelled) {
        resolvePromise('cancelled');
      }
      this.signal.addEventListener('abort', () => resolvePromise('cancelled'), { once: true });
    });
    let timer: NodeJS.Timeout | undefined;
    const timedOut = new Promise<'timeout'>((resolvePromise) => {
      if (opts.timeoutMs !== undefined) {
        timer = setTimeout(() => resolvePromise('timeout'), opts.timeoutMs);
      }
    });
    const first = await Promise.race([answered, cancelled, timedOut]);
    clearTimeout(timer);
    if (first === 'cancelled') {
      log(`permission ${id} was still pending when the turn was cancelled; abandoned`);
      throw new TurnCancelled();
    }
    if (first === 'timeout') {
      log(`permission ${id} timed out after ${opts.timeoutMs ?? 0} ms; treated as denied`);
      if (opts.cancelRequest === true) {
        withdraw.abort();
      }
      return { outcome: 'timeout' };
    }
    return first;
  }

  private track(update: SessionUpdate): void {
    switch (update.sessionUpdate) {
      case 'tool_call':
      case 'tool_call_update': {
        const status = update.status ?? (update.sessionUpdate === 'tool_call' ? 'pending' : undefined);
        if (status === 'completed' || status === 'failed') {
          this.openToolCalls.delete(update.toolCallId);
        } else if (update.sessionUpdate === 'tool_call' || status !== undefined) {
          this.openToolCalls.add(update.toolCallId);
        }
        break;
      }
      case 'agent_message_chunk':
        this.outputChars += update.content.type === 'text' ? update.content.text.length : 0;
        break;
      case 'agent_thought_chunk':
        this.thoughtChars += update.content.type === 'text' ? update.content.text.length : 0;
        break;
      default:
        break;
    }
  }
}
