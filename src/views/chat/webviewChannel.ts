import type { EntryOp, HostMessage, WebviewCall, WebviewMessage } from '../../protocol/webviewProtocol';
import { PROTOCOL_VERSION } from '../../protocol/webviewProtocol';
import type { Entry, SessionState } from '../../session/sessionState';
import { ViewProjector, type ViewContext } from '../../session/viewProjection';
import { answerViewCall } from '../../session/viewCalls';
import { snapshotLimits } from '../../session/viewWindow';
import { chatPostTicker } from '../../util/sharedTicker';
import type { Disposable } from '../../util/disposable';
import type { ChatSession } from '../../app/chatSession';
import { describeMalformed, parseWebviewMessage } from './webviewMessages';

/** The part of `vscode.Webview` the channel uses (so the channel is testable without VS Code). */
export interface WebviewLike {
  postMessage(message: HostMessage): Thenable<boolean>;
  onDidReceiveMessage(listener: (raw: unknown) => void): Disposable;
}

/** Handles what the webview asks for (the surface's side of the protocol). */
export type WebviewMessageHandler = (
  message: Exclude<WebviewMessage, { type: 'webview/ready' | 'session/resync' }>,
  chat: ChatSession,
  reply: (message: HostMessage) => void,
) => void;

/** Coalescing window of the channel: a change is posted at most this long after it happened. */
export const patchWindowMs = 16;
/**
 * While text streams, a patch that only appends text waits until this long after the previous
 * post (the first one after a pause goes out within `patchWindowMs`). The webview paces what
 * reaches its DOM to a few refreshes a second anyway, and each message costs a task on both
 * sides (in code-server also on the workbench's thread, which relays it): 60 a second for
 * nothing visible was most of a stream's cost in the webview (issue 20).
 */
export const textPatchIntervalMs = 100;
/**
 * Faster text waits longer, up to `maxTextPatchIntervalMs`: `textPatchMsPerChar` per character a
 * second (250 ms at 4,000 characters a second, what a model streaming 1,000 tokens a second
 * writes). That is a quarter of the webview's own refresh interval at the same rate
 * (`refreshMsPerChar` in src/webview/markdown/viewLimits.ts: it shows such text once a second),
 * so no refresh waits long for its text, and a fast stream costs 4 messages a second instead of 10.
 */
export const textPatchMsPerChar = 0.0625;
export const maxTextPatchIntervalMs = 250;
/**
 * Host messages other than the session's held while the webview is not live (a prompt handed back
 * to the composer with its chips, request results); more are dropped, oldest kept.
 */
const maxHeldMessages = 64;

/**
 * How long text-only patches wait after the previous post, for text arriving at
 * `charsPerSecond`; `minMs` (the channel's `textIntervalMs`) at or below 1,600 characters a second.
 */
export function textPatchInterval(charsPerSecond: number, minMs = textPatchIntervalMs): number {
  return minMs <= 0 ? minMs : Math.min(Math.max(minMs, maxTextPatchIntervalMs), Math.max(minMs, charsPerSecond * textPatchMsPerChar));
}

export interface ChannelOptions {
  /** The view context for the bound chat (agent name, capabilities, path labels, …). */
  readonly context: (chat: ChatSession) => ViewContext;
  readonly onMessage: WebviewMessageHandler;
  /** Coalescing window: at most one patch per window (~one per frame); default `patchWindowMs`. */
  readonly flushMs?: number;
  /**
   * The least wait between text-only patches (default `textPatchIntervalMs`; faster text waits
   * longer, see `textPatchInterval`); 0 posts text-only patches like any other.
   */
  readonly textIntervalMs?: number;
  readonly log?: (message: string) => void;
}

/**
 * Typed, incremental host→webview sync for one webview:
 * - nothing is sent before the webview says `webview/ready` (a full snapshot answers it);
 * - session changes are coalesced and sent as one patch per window, never the whole transcript;
 * - a reported seq gap owes a snapshot, so correctness never depends on a patch arriving;
 * - a dropped message (`postMessage` resolved false: the webview is hidden) owes one too, sent once
 *   the webview is live again (`webview/ready`, or {@link resync} when it shows); until then nothing
 *   is sent, so a hidden chat costs nothing however long its transcript, and other messages wait.
 */
export class WebviewChannel implements Disposable {
  private chat: ChatSession | undefined;
  private chatSubscription: Disposable | undefined;
  private readonly receiveSubscription: Disposable;
  private ready = false;
  private clientId: string | undefined;
  private seq = 0;
  private posted: SessionState | undefined;
  private projector = new ViewProjector();
  /** A post is due (on the ticker every chat channel shares: `chatPostTicker`). */
  private armed = false;
  /** The chat the user looks at (its editor tab is active): its patches go first and its text is not held longer. */
  private active = true;
  private snapshotOwed = true;
  /** A post was dropped: the webview is hidden or gone, so nothing is sent until it is live again. */
  private stalled = false;
  /** Bumped when the webview is live again: a drop reported for an older post no longer stalls. */
  private liveEpoch = 0;
  /** Other host messages waiting for the webview to be live (bounded: see {@link hold}). */
  private early: HostMessage[] = [];
  /** Entry indices to re-send even though the entry object did not change. */
  private readonly forced = new Set<number>();
  private disposed = false;
  private lastPostAt = -Infinity;
  /** The timer holds back a text-only patch (any other change must not wait for it). */
  private holdingText = false;
  /** Patches and snapshots posted (for tests and benchmarks). */
  readonly stats = { patches: 0, snapshots: 0, ops: 0 };

  constructor(
    private readonly webview: WebviewLike,
    private readonly options: ChannelOptions,
  ) {
    this.receiveSubscription = webview.onDidReceiveMessage((raw) => this.receive(raw));
  }

  get boundChat(): ChatSession | undefined {
    return this.chat;
  }

  /** Shows another chat in this webview (a fresh snapshot follows). */
  bind(chat: ChatSession): void {
    if (this.chat === chat) {
      return;
    }
    this.chatSubscription?.dispose();
    this.chat = chat;
    this.projector = new ViewProjector();
    this.chatSubscription = chat.onDidChange(() => this.schedule());
    this.snapshotOwed = true;
    this.schedule();
  }

  /**
   * Something an entry shows changed outside the session state (a live terminal's output, the
   * files a turn changed): send again those of the entries whose view changed. Every chat is asked
   * when any turn's files change, so the others send nothing.
   */
  refreshEntries(predicate: (entry: Entry) => boolean): void {
    const chat = this.chat;
    if (chat === undefined) {
      return;
    }
    const ctx = this.options.context(chat);
    chat.controller.state.entries.forEach((e, index) => {
      if (predicate(e) && this.projector.reproject(e, ctx)) {
        this.forced.add(index);
      }
    });
    if (this.forced.size > 0) {
      this.schedule();
    }
  }

  /** The webview became visible again, or asked for it (it may have missed messages while hidden). */
  resync(): void {
    this.live();
    this.schedule();
    this.postEarly();
  }

  /** A view-state change of a chat that stayed on screen: a snapshot only if a post was dropped meanwhile. */
  resumeIfStalled(): void {
    if (this.stalled) {
      this.resync();
    }
  }

  /** The webview is live again: sending resumes with a snapshot, and older drops no longer stall. */
  private live(): void {
    this.stalled = false;
    this.liveEpoch++;
    this.snapshotOwed = true;
  }

  /** Any other host → webview message (composer inserts, request results); held until the webview is live. */
  post(message: HostMessage): void {
    if (this.ready && !this.stalled) {
      this.postWatched(message, true);
    } else {
      this.hold(message);
    }
  }

  /**
   * Posts `message` and watches for a drop. A drop stalls the channel (a snapshot owed); a message
   * that is not session state is `kept` to go again once the webview is live. A drop answered for a
   * post made before the webview was last live again does not stall it: the snapshot owed since
   * covers the session, and a kept message goes again now.
   */
  private postWatched(message: HostMessage, keep: boolean): void {
    const epoch = this.liveEpoch;
    const lost = (): void => {
      if (keep) {
        this.hold(message);
      }
      if (epoch === this.liveEpoch) {
        this.stall();
      } else if (keep) {
        this.postEarly();
      }
    };
    void this.webview.postMessage(message).then(
      (delivered) => {
        if (!delivered) {
          lost();
        }
      },
      (e: unknown) => {
        this.options.log?.(`a post to the chat webview failed (${e instanceof Error ? e.message : String(e)}); it is sent again once the chat shows`);
        lost();
      },
    );
  }

  private hold(message: HostMessage): void {
    if (this.early.length < maxHeldMessages) {
      this.early.push(message);
    }
  }

  private postEarly(): void {
    if (this.ready && !this.stalled) {
      for (const m of this.early.splice(0)) {
        this.postWatched(m, true);
      }
    }
  }

  /** Sends pending changes now (tests; and before the chat is torn down). */
  flush(): void {
    this.send(true);
  }

  private send(now: boolean): void {
    this.disarm();
    const chat = this.chat;
    if (!this.ready || this.stalled || chat === undefined || this.disposed) {
      return;
    }
    const state = chat.controller.state;
    const ctx = this.options.context(chat);
    this.projector.setPermissionTimeout(state.quirks.permissionTimeoutMs);
    let message: HostMessage;
    if (this.snapshotOwed || this.posted === undefined) {
      message = { type: 'session/snapshot', seq: ++this.seq, view: this.projector.snapshot(state, ctx, snapshotLimits) };
      this.snapshotOwed = false;
      this.stats.snapshots++;
    } else {
      const { ops, header } = this.projector.patch(this.posted, state, ctx);
      for (const index of this.forced) {
        const entry = state.entries[index];
        if (entry !== undefined && !ops.some((o) => o.op !== 'remove' && o.index === index)) {
          ops.push({ op: 'replace', index, entry: this.projector.entry(entry, ctx) });
        }
      }
      if (ops.length === 0 && header === undefined) {
        this.posted = state;
        return;
      }
      const wait = now || header !== undefined || !ops.every((o) => o.op === 'appendText') ? 0 : this.lastPostAt + this.textInterval(ops) - Date.now();
      if (wait > 0) {
        // Text only: keep diffing from what was posted, so the next patch carries all of it.
        this.arm(wait);
        this.holdingText = true;
        return;
      }
      message = { type: 'session/patch', seq: ++this.seq, ops, ...(header !== undefined ? { header } : {}) };
      this.stats.patches++;
      this.stats.ops += ops.length;
    }
    this.posted = state;
    this.forced.clear();
    this.lastPostAt = Date.now();
    this.postWatched(message, false);
  }

  /**
   * The webview did not take a message (hidden, or gone): it owes a snapshot, sent once it is live
   * again. Retrying now would serialize the whole transcript every window for a webview that
   * drops it (in VS Code, also across to the workbench's process).
   */
  private stall(): void {
    this.stalled = true;
    this.snapshotOwed = true;
    this.disarm();
  }

  /**
   * Whether this chat is the one the user looks at (its tab active). Other chats on screen are
   * posted after it within a window, and their streamed text is held up to ten times as long
   * (at most two seconds): eight chats streaming at once must not flood the one renderer they share
   * with the workbench (issue 43; P9's figures for ×4 and ×10, and a worse try: bench/README.md).
   */
  setActive(active: boolean): void {
    this.active = active;
  }

  /** The wait for text-only `ops`, from the rate their text arrived at since the last post. */
  private textInterval(ops: readonly EntryOp[]): number {
    let chars = 0;
    for (const op of ops) {
      chars += op.op === 'appendText' ? op.text.length : 0;
    }
    const elapsed = Math.max(1, Date.now() - this.lastPostAt);
    const wait = textPatchInterval((chars * 1000) / elapsed, this.options.textIntervalMs ?? textPatchIntervalMs);
    return this.active || wait <= 0 ? wait : Math.min(2_000, wait * 10);
  }

  dispose(): void {
    this.disposed = true;
    this.disarm();
    this.chatSubscription?.dispose();
    this.receiveSubscription.dispose();
  }

  private schedule(): void {
    if (this.holdingText && this.armed) {
      this.disarm(); // the new change may be more than text: look within the usual window
    }
    if (this.armed || this.disposed || !this.ready || this.stalled) {
      return;
    }
    this.arm(this.options.flushMs ?? patchWindowMs);
  }

  private arm(ms: number): void {
    this.holdingText = false;
    this.armed = true;
    chatPostTicker.schedule(this, ms, this.active ? 0 : 1, () => {
      this.armed = false;
      this.send(false);
    });
  }

  private disarm(): void {
    if (this.armed) {
      chatPostTicker.cancel(this);
      this.armed = false;
    }
  }

  private receive(raw: unknown): void {
    const message = parseWebviewMessage(raw);
    if (message === undefined) {
      this.options.log?.(`ignored a malformed webview message: ${describeMalformed(raw)}`);
      return;
    }
    switch (message.type) {
      case 'webview/ready':
        if (message.protocolVersion !== PROTOCOL_VERSION) {
          void this.webview.postMessage({ type: 'host/reload' });
          return;
        }
        this.clientId = message.clientId;
        this.ready = true;
        this.live();
        this.flush();
        this.postEarly();
        return;
      case 'session/resync':
        this.resync();
        return;
      case 'request/call':
        if (message.call.method !== 'mentions/search') {
          this.answer(message.id, message.call);
          return;
        }
        break;
      default:
        break;
    }
    if (this.chat !== undefined && this.clientId !== undefined) {
      this.options.onMessage(message, this.chat, (m) => this.post(m));
    }
  }

  /**
   * The transcript's own requests, answered from what was last posted (`seq`), so an answer fits
   * the webview's list once it has applied the patches before it (messages arrive in order).
   */
  private answer(id: number, call: Exclude<WebviewCall, { method: 'mentions/search' }>): void {
    const chat = this.chat;
    const state = this.posted;
    this.post(
      chat === undefined || state === undefined
        ? { type: 'request/result', id, ok: false, error: 'no session shown yet' }
        : { type: 'request/result', id, ok: true, value: answerViewCall(call, state, this.projector, this.options.context(chat), this.seq) },
    );
  }
}

/** Tool entries that embed the given client-created terminal (their cards show its live output). */
export function showsTerminal(terminalId: string): (entry: Entry) => boolean {
  return (entry) => entry.kind === 'tool' && entry.content.some((c) => c.type === 'terminal' && c.terminalId === terminalId);
}
