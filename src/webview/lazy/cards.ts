import type { FindInChat } from '../render/findInChat';
import type { readPastedImages } from '../render/pastedImages';
import type { pendingPrompt } from '../render/permissionKeys';
import type { PermissionPrompt } from '../render/permission';
import type { TerminalItem } from '../render/terminalItem';
import type { HeldPromptLine, mergedNote } from '../render/heldPrompt';
import type { McpSummary } from '../render/mcpSummary';
import type { checkDetails, offersRememberChoice, RememberChoice } from '../render/permissionCheck';
import type { MentionMenu } from '../render/mentionMenu';
import type { NoticeView } from '../render/notice';
import type { PlanDock, PlanView } from '../render/plan';
import type { QuestionView } from '../render/question';
import type { RewriteEditor } from '../render/rewriteEditor';
import type { SignInCard } from '../render/signInCard';
import type { SlashMenu } from '../render/slashMenu';
import type { TurnEndView } from '../render/turnEnd';

/**
 * What the first paint of a chat does not show (the sign-in card, clarify/secret questions,
 * "Edit and resend", the MCP summary, the composer's `/` and `@` menus, notices, turn footers,
 * plans, permission prompts, terminal output and the find bar)
 * lives in a script of their own, `dist/webview/cards.js` (scripts/build.mjs, entry
 * src/webview/cards/entry.ts), fetched the first time one is needed, so the first paint of a chat
 * does not carry them (issue 20: initial bundle ≤ 150 KB). The script leaves its classes in one
 * object on the page's global scope; only nonce'd scripts run (the CSP), so only our own bundles
 * can put anything there.
 */
export interface Cards {
  readonly SignInCard: typeof SignInCard;
  readonly McpSummary: typeof McpSummary;
  readonly QuestionView: typeof QuestionView;
  readonly RewriteEditor: typeof RewriteEditor;
  readonly SlashMenu: typeof SlashMenu;
  readonly MentionMenu: typeof MentionMenu;
  readonly NoticeView: typeof NoticeView;
  readonly TurnEndView: typeof TurnEndView;
  readonly PlanView: typeof PlanView;
  readonly PlanDock: typeof PlanDock;
  readonly FindInChat: typeof FindInChat;
  readonly PermissionPrompt: typeof PermissionPrompt;
  readonly TerminalItem: typeof TerminalItem;
  readonly HeldPromptLine: typeof HeldPromptLine;
  readonly mergedNote: typeof mergedNote;
  readonly checkDetails: typeof checkDetails;
  readonly RememberChoice: typeof RememberChoice;
  readonly offersRememberChoice: typeof offersRememberChoice;
  readonly readPastedImages: typeof readPastedImages;
  readonly pendingPrompt: typeof pendingPrompt;
}

/** A rejection's reason as an Error (a script loader may reject with anything). */
export function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}

/** Runs the script `file` (next to the bundle); `undefined` when it has run synchronously (tests). */
export type ChunkLoader = (file: string) => Promise<void> | undefined;

export const cardsFile = 'cards';
const cardsKey = '__hermesCards';
const scope = globalThis as unknown as Record<string, Cards | undefined>;

let loader: ChunkLoader | undefined;
let pending: Promise<Cards> | undefined;

/** Where the chunk comes from (the page's nonce'd script loader; tests run the entry module). */
export function setCardsLoader(next: ChunkLoader | undefined): void {
  loader = next;
  pending = undefined;
  scope[cardsKey] = undefined;
}

/** Called by the chunk's entry. */
export function publishCards(cards: Cards): void {
  scope[cardsKey] = cards;
}

/** The card classes if the chunk has run (it is fetched when the page is idle), without fetching it. */
export function cardsIfLoaded(): Cards | undefined {
  return scope[cardsKey];
}

/**
 * The card classes: now when the chunk has run, else a promise of them. The promise rejects with
 * an error that says which script failed; the next call tries again (a transient resource error
 * must not leave the card broken for the rest of the session).
 */
export function loadCards(): Cards | Promise<Cards> {
  const ready = scope[cardsKey];
  if (ready !== undefined) {
    return ready;
  }
  if (pending !== undefined) {
    return pending;
  }
  const published = (): Cards => {
    const cards = scope[cardsKey];
    if (cards === undefined) {
      throw new Error(`${cardsFile}.js ran but left no cards`);
    }
    return cards;
  };
  let run: Promise<void> | undefined;
  try {
    if (loader === undefined) {
      throw new Error(`${cardsFile}.js cannot be loaded: the page has no script loader`);
    }
    run = loader(cardsFile);
    if (run === undefined) {
      return published();
    }
  } catch (error) {
    run = Promise.reject(asError(error));
  }
  const attempt = run.then(published);
  pending = attempt;
  void attempt.then(
    () => undefined,
    () => {
      if (pending === attempt) {
        pending = undefined;
      }
    },
  );
  return attempt;
}
