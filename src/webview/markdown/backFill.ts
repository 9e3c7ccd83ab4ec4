import type { Token } from 'marked';
import { doc } from '../dom';
import { renderBlocks } from './renderBlocks';
import type { MarkdownScheduler } from './scheduler';
import { placeWithinBudget } from './taskBudget';
import { idleFillMs } from './viewLimits';

interface Reserved {
  readonly token: Token;
  readonly raw: string;
  /** Where the block goes: an empty comment, replaced by the block once rendered. */
  readonly slot: Comment;
}

/**
 * Finished blocks rendered from the end back. A chat that follows its reply held up to 80 KB of a
 * burst until the turn's end (a chat without the keyboard refreshes rarely; the one with it stops
 * placing whenever a key waits) and then rendered it in order: the end — the part on screen — came
 * last, up to 0.85 s after the agent's last chunk with a few chats ending together (P9). Here each
 * block first gets its place (an empty comment, in order, nothing to lay out); the caller shows the
 * open tail at once, and the blocks are rendered last first into their places: the first task's
 * share now, the rest when the page is idle (so other chats' ends go first). The order on the page
 * is the text's whatever the order of rendering; text appended meanwhile goes after the places.
 */
export class BackFill {
  readonly #scheduler: MarkdownScheduler;
  /** Blocks not rendered yet, last first (the next to render first). */
  #left: Reserved[] = [];
  #timer: number | undefined;
  /** Every block in one task unless a key waits (the chat with the keyboard), or a budget a task. */
  #all = false;

  constructor(scheduler: MarkdownScheduler) {
    this.#scheduler = scheduler;
  }

  /** Whether blocks are still to be rendered. */
  get busy(): boolean {
    return this.#left.length > 0;
  }

  /** Gives each of `tokens` (rendered ones only) its place, in order, through `place`. */
  reserve(tokens: readonly Token[], place: (node: Node) => void): void {
    const reserved = tokens.map((token): Reserved => {
      const slot = doc().createComment('');
      place(slot);
      return { token, raw: token.raw, slot };
    });
    // Later in the text than any reserved before: rendered before them.
    this.#left = [...reserved.reverse(), ...this.#left];
  }

  /**
   * Renders the reserved blocks from the last back, starting now: `all` of them in this task unless
   * a key comes to wait (the chat with the keyboard), else within the task budget; the rest in the
   * next tasks.
   */
  start(all = this.#all): void {
    this.#all = all;
    if (this.#timer !== undefined || this.#left.length === 0) {
      return;
    }
    this.#left = placeWithinBudget(this.#left, (batch) => this.#fill(batch.slice().reverse()), this.#scheduler, all);
    if (this.#left.length > 0) {
      // Off screen, they wait for the page to be idle: the ends of other chats go first.
      this.#timer = this.#scheduler.whenIdle(() => {
        this.#timer = undefined;
        this.start();
      }, idleFillMs);
    }
  }

  /** Renders the rest now, all of it unless a key waits (the chat has the keyboard now). */
  hurry(): void {
    this.#cancel();
    this.start(true);
  }

  dispose(): void {
    this.#cancel();
    this.#left = [];
  }

  /** Renders `batch` (in text order) into its places. */
  #fill(batch: readonly Reserved[]): void {
    for (const { node, ordinal } of renderBlocks(batch.map((r) => r.token))) {
      batch[ordinal]?.slot.before(node);
    }
    for (const { slot } of batch) {
      slot.remove();
    }
  }

  #cancel(): void {
    if (this.#timer !== undefined) {
      this.#scheduler.cancelIdle(this.#timer);
      this.#timer = undefined;
    }
  }
}
