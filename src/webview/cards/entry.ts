// Entry of dist/webview/cards.js: what the first paint of a chat does not show, loaded on first use (src/webview/lazy/cards.ts).
// Its imports of the webview's shared modules (dom, strings, text) resolve to the bundle's own
// instances (scripts/build.mjs, src/webview/lazy/shared.ts): one window, one string table, one id counter.
import { publishCards, type Cards } from '../lazy/cards';
import { FindInChat } from '../render/findInChat';
import { readPastedImages } from '../render/pastedImages';
import { pendingPrompt } from '../render/permissionKeys';
import { HeldPromptLine, mergedNote } from '../render/heldPrompt';
import { McpSummary } from '../render/mcpSummary';
import { checkDetails, offersRememberChoice, RememberChoice } from '../render/permissionCheck';
import { MentionMenu } from '../render/mentionMenu';
import { NoticeView } from '../render/notice';
import { PermissionPrompt } from '../render/permission';
import { TerminalItem } from '../render/terminalItem';
import { PlanDock, PlanView } from '../render/plan';
import { QuestionView } from '../render/question';
import { RewriteEditor } from '../render/rewriteEditor';
import { SignInCard } from '../render/signInCard';
import { SlashMenu } from '../render/slashMenu';
import { TurnEndView } from '../render/turnEnd';

export const cards: Cards = { SignInCard, McpSummary, QuestionView, RewriteEditor, SlashMenu, MentionMenu, NoticeView, TurnEndView, PlanView, PlanDock, FindInChat, PermissionPrompt, TerminalItem, HeldPromptLine, mergedNote, checkDetails, RememberChoice, offersRememberChoice, readPastedImages, pendingPrompt };
publishCards(cards);
// ICU's number data: Chromium loads it on a page's first toLocaleString() (~30 ms in one task).
// This chunk is fetched when the page is idle after starting (or by the first card that needs it),
// so that first call is made here, not in the frame that first shows a shortened tool output
// ("Output shortened (50,000 characters)": the longest task of opening a big session, P8).
(0).toLocaleString();
