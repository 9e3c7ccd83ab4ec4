/**
 * The limits and pacing of the streaming Markdown view (markdownView.ts): how large a text is
 * lexed at once, how often a streamed tail is refreshed, how blocks are grouped.
 */

/** Past these sizes (or a slow lex), the rest of a message is shown as plain text. */
export const maxSourceChars = 1_000_000;
export const maxLexMs = 250;
/** Unrendered text past this is lexed in pieces of this size (see renderTail). */
export const pieceChars = 32_768;
/**
 * Finished blocks a streaming task renders: batches of `finishedCharsPerBatch` source characters
 * (at least one block), more batches while it placed under `finishedCharsPerTask` and the next
 * batch, at the rate of those before it, would end within `finishedMsPerTask`; the rest follows
 * in the next task. A refresh at 1,000 chunks/s brings ~4 KB: one task places it on an idle
 * machine (10–15 ms on a 2-core VM), so one frame follows, not one per batch (a second frame cost
 * as much as the first: the screen is painted again); on a loaded one, where 4 KB took 71–75 ms
 * of CPU, the task stops after the batch that would cross the budget, so none holds the page (or,
 * in code-server, the workbench) for long.
 */
export const finishedCharsPerBatch = 2_048;
export const finishedCharsPerTask = 8_192;
export const finishedMsPerTask = 30;
/**
 * Pacing of the tail while text streams: patches only append to the source, and the tail is
 * rendered on a timer, at most once per refresh interval. A refresh costs little script (the
 * tail is one block) but a frame or two (style, layout, paint, compositing, the scroll that keeps
 * the view at the bottom: ~1–2 ms on a fast machine, 10–20 ms in software-rendered Chromium on a
 * loaded 2-core VM). The interval is `minRefreshMs` (10 refreshes a second) while text arrives at
 * up to 400 characters a second — what fast models write — and grows with the rate beyond
 * (`refreshMsPerChar` per character a second: 4 refreshes a second at 1,000, 1 at 4,000 and
 * more): text that arrives faster than anyone reads is shown in larger steps, and a stream at
 * any rate costs a bounded number of frames.
 */
export const minRefreshMs = 100;
export const maxRefreshMs = 1_000;
export const refreshMsPerChar = 0.25;
/**
 * A tail larger than `smallTailChars` also waits until it grew by a quarter (or `maxTailWaitMs`
 * passed), so a huge last block (a long table) costs a bounded multiple of its size, not
 * size × refreshes.
 */
export const smallTailChars = 2_000;
export const maxTailWaitMs = 1_000;
/**
 * Top-level blocks per group element. A message's blocks sit in groups of this many, so appending
 * to a long message relayouts one group and the list of groups, not every block (layout cost
 * grew with the message length otherwise).
 */
export const groupSize = 20;

/**
 * Several chats side by side share one renderer (in VS Code, one thread with the workbench): eight
 * streaming at once, each refreshing 10 times a second, left the screen seconds behind the agents
 * (issue 43). A chat without the keyboard refreshes `unfocusedRefreshScale` times less often, at
 * most every `maxUnfocusedRefreshMs`; the one the user types in keeps its pace. A turn's end shows
 * everything whatever the pace: at once in the chat with the keyboard, a budgeted task at a time
 * in the others (`MarkdownView.flush`).
 */
export const unfocusedRefreshScale = 4;
export const maxUnfocusedRefreshMs = 2_000;

let focused = true;

/** Whether this page has the keyboard (the app follows the window's focus and blur). */
export function setPageFocused(value: boolean): void {
  focused = value;
}

/** Whether this page has the keyboard (as last told; true until told otherwise). */
export function isPageFocused(): boolean {
  return focused;
}

/** The refresh interval for text arriving at the rate that gave `refreshMs`, on this page now. */
export function pagedRefreshMs(refreshMs: number): number {
  return focused ? refreshMs : Math.min(Math.max(refreshMs, maxUnfocusedRefreshMs), refreshMs * unfocusedRefreshScale);
}

let followingEnd = true;

/**
 * Whether this page's transcript follows the reply (shows the conversation's end; the transcript
 * tells whenever "Jump to latest" shows or hides). A turn's end in a chat without the keyboard is
 * then rendered from the end back (`MarkdownView.flush`): what is on screen first.
 */
export function setFollowingEnd(value: boolean): void {
  followingEnd = value;
}

export function isFollowingEnd(): boolean {
  return followingEnd;
}

/** Held text below this at a turn's end is rendered in order: one task or two place it anyway. */
export const endFirstChars = 16_384;
/**
 * Blocks rendered from the end back after the first task wait for the page to be idle, this long
 * at most: with several chats ending together, each one's end (on screen) goes before the blocks
 * above it (off screen) of another.
 */
export const idleFillMs = 1_000;
