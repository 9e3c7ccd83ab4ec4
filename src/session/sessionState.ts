import type * as acp from '@agentclientprotocol/sdk';
import type { NoticeActionView } from '../protocol/sessionView';
import type { PermissionCheckView, ProviderFailureView } from '../protocol/sessionView';
import type { ClarifyQuestion, SecretKind } from '../agentPort/questionPort';
import type { UsageSource } from './agentProfiles';

/**
 * The conversation model: plain, immutable JSON owned by the host. Every change produces a new
 * state with structural sharing — untouched entries keep their identity, which is what makes the
 * index patches of {@link diffEntries} cheap and correct.
 */

/** ACP's four tool statuses plus the client-local ones (ACP v1 has no `cancelled` tool status). */
export type ToolStatus =
  | acp.ToolCallStatus
  /** Marked locally when the user cancelled the turn (ACP: client SHOULD mark non-finished calls cancelled). */
  | 'cancelled'
  /** The turn ended while the call was still open — the agent never reported a result (Hermes #50723). */
  | 'ended'
  /** The agent process died while the call was open. */
  | 'interrupted';

export const finishedToolStatuses: ReadonlySet<ToolStatus> = new Set(['completed', 'failed', 'cancelled', 'ended', 'interrupted']);

export type PermissionStatus = 'pending' | 'selected' | 'cancelled' | 'expired';

/** A `session/request_permission` attached to its tool call. */
export interface PermissionState {
  /** Local id, unique per session (the JSON-RPC id is not ours to rely on). */
  readonly requestId: string;
  readonly options: readonly acp.PermissionOption[];
  readonly status: PermissionStatus;
  readonly requestedAt: number;
  readonly answeredAt?: number;
  /** The optionId answered (when `selected`). */
  readonly optionId?: string;
  /** Who answered: `user`, or the rule that answered (`rule: …`), or why it was cancelled. */
  readonly answeredBy?: string;
  /** What the client's policy checked before asking (or answering). */
  readonly check?: PermissionCheckView;
  /** What an "always" answer left in the client's memory (or why nothing). */
  readonly remembered?: string;
  /** The request's own `toolCall.toolCallId` when it differs from the call's (Hermes' `edit-approval-N`). */
  readonly toolCallId?: string;
}

export interface UserEntry {
  readonly kind: 'user';
  readonly id: string;
  readonly blocks: readonly acp.ContentBlock[];
  readonly at: number;
  /** The turn this prompt started (absent for replayed or agent-announced user messages). */
  readonly turnId?: number;
  /** `refusal`: "the user prompt and everything after it won't be included in the next prompt". */
  readonly excluded?: boolean;
  readonly origin: 'local' | 'replay' | 'agent';
  /** The agent's durable row id for this user turn (TUI Gateway), the preferred rewrite target. */
  readonly rowId?: number;
  /**
   * The agent sent this message together with a prompt it held (Hermes puts a cancelled or failed
   * prompt in front of the next message): shown as "sent together with…", never as the user's text.
   */
  readonly mergedWith?: HeldPrompt;
}

/** A prompt the agent keeps and puts in front of the next message (Hermes: a cancelled or failed one). */
export interface HeldPrompt {
  readonly reason: 'cancelled' | 'failed';
  /** The text the agent holds (for a replayed merge: what the agent's history shows). */
  readonly text: string;
  /** The user entry of the first prompt held: a fresh start forks before it. */
  readonly entryId?: string;
}

export type AssistantPart =
  | {
      readonly kind: 'text' | 'thought';
      readonly text: string;
      readonly at: number;
      /** When a thought ended because something else followed it in another entry (a tool call, a new message). */
      readonly endedAt?: number;
    }
  | { readonly kind: 'block'; readonly block: acp.ContentBlock; readonly at: number };

export interface AssistantEntry {
  readonly kind: 'assistant';
  readonly id: string;
  readonly messageId?: string;
  readonly parts: readonly AssistantPart[];
  readonly at: number;
  readonly turnId?: number;
}

/** Zed's `_meta` terminal convention (agent-side terminals the client never created). */
export interface MetaTerminal {
  readonly terminalId: string;
  readonly output: string;
  readonly exitCode?: number | null;
  readonly signal?: string | null;
  readonly cwd?: string;
}

export interface ToolEntry {
  readonly kind: 'tool';
  readonly id: string;
  readonly toolCallId: string;
  readonly title: string;
  readonly name?: string;
  readonly toolKind: acp.ToolKind;
  readonly status: ToolStatus;
  readonly content: readonly acp.ToolCallContent[];
  readonly locations: readonly acp.ToolCallLocation[];
  readonly rawInput?: unknown;
  readonly rawOutput?: unknown;
  readonly permission?: PermissionState;
  /**
   * Other ids the agent used for this same call: a permission request's own id that was matched
   * to the call it guards (slices/guardedCall.ts). Updates under them land here.
   */
  readonly aliasIds?: readonly string[];
  /** Created by a permission request that matched no call (yet): a call announced next may claim it. */
  readonly permissionOnly?: true;
  readonly metaTerminals?: readonly MetaTerminal[];
  /** A progress marker without a result (API Server `hermes.tool.progress`): shown as emoji + label. */
  readonly progress?: ToolProgress;
  readonly at: number;
  readonly endedAt?: number;
  readonly turnId?: number;
  /**
   * The agent never closed the call, and the client saw its result itself: an allowed edit whose
   * file now holds the proposed text (`disk`). Set with `status: 'completed'`.
   */
  readonly confirmed?: 'disk';
}

/**
 * `hermes.tool.progress`: `running` with the tool's emoji and label, then `completed` — a lifecycle
 * marker, not success (a failed tool reports it too), so the call ends as `ended`, never `completed`.
 */
export interface ToolProgress {
  readonly tool: string;
  readonly emoji: string;
  readonly label: string;
  readonly state: 'running' | 'completed';
}

export type QuestionStatus = 'pending' | 'answered' | 'cancelled' | 'withdrawn';

/** What was asked. A secret's value is never part of it: it goes to the agent and nowhere else. */
export type QuestionAsked =
  | { readonly kind: 'clarify'; readonly questions: readonly ClarifyQuestion[]; readonly locked: Readonly<Record<string, string | null>> }
  | { readonly kind: 'secret'; readonly secretKind: SecretKind; readonly prompt: string; readonly envVar?: string };

/** A question the agent asked that ACP has no request for (clarify, sudo / secret / vault). */
export interface QuestionEntry {
  readonly kind: 'question';
  readonly id: string;
  /** Local id, unique per session. */
  readonly requestId: string;
  readonly question: QuestionAsked;
  readonly status: QuestionStatus;
  /** Clarify answers by question id (`null`: skipped). Never set for a secret. */
  readonly answers?: Readonly<Record<string, string | null>>;
  /** For a secret: whether a value was given (true) or declined; the value itself is not kept. */
  readonly provided?: boolean;
  /** Why it was withdrawn or cancelled (answered elsewhere, timed out, turn cancelled, …). */
  readonly reason?: string;
  readonly replayed: boolean;
  readonly at: number;
  readonly answeredAt?: number;
  readonly turnId?: number;
}

export interface PlanSnapshotEntry {
  readonly kind: 'plan';
  readonly id: string;
  readonly entries: readonly acp.PlanEntry[];
  readonly at: number;
  readonly turnId?: number;
}

export type NoticeLevel = 'info' | 'warning' | 'error';

/** What a notice offers the user to do next (the protocol's list: the webview renders each as a button). */
export type NoticeAction = NoticeActionView;

export interface NoticeEntry {
  readonly kind: 'notice';
  readonly id: string;
  readonly level: NoticeLevel;
  readonly title: string;
  /** What happened and what to do, in words (wraps; never cut off). */
  readonly detail?: string;
  /** What the agent wrote (its last stderr lines): shown apart from the prose, as a scrollable log. */
  readonly log?: string;
  readonly actions?: readonly NoticeAction[];
  /** Offers "Start fresh from here": a fork from before this user message (the prompt the agent still holds). */
  readonly forkFrom?: string;
  /** Values the user can pick instead (a refused model: the provider's suggestions). */
  readonly suggestions?: NoticeSuggestions;
  readonly at: number;
}

/** A model/provider pairing the agent refused, with what it suggests instead (at most five). */
export interface NoticeSuggestions {
  readonly kind: 'model';
  readonly model: string;
  readonly provider: string;
  readonly values: readonly string[];
}

export interface TokenUsage {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly thoughtTokens?: number;
  readonly cachedReadTokens?: number;
  readonly cachedWriteTokens?: number;
}

export type TurnOutcome = acp.StopReason | 'error' | 'interrupted';

/** The footer of a finished turn. */
export interface TurnEndEntry {
  readonly kind: 'turnEnd';
  readonly id: string;
  readonly turnId: number;
  readonly outcome: TurnOutcome;
  readonly durationMs: number;
  /** Tokens of this turn (already converted from cumulative where the agent reports cumulative usage). */
  readonly usage?: TokenUsage;
  readonly error?: string;
  /** The model provider failed the turn: `outcome` is `error`, `error` is the provider's message. */
  readonly provider?: ProviderFailureView;
  /** `error` is what the agent sent as its reply (Hermes' failure report), moved here from the transcript. */
  readonly errorWasReply?: true;
  /**
   * The agent holds the failed prompt (Hermes): the user entry of the first prompt it holds, which a
   * retry or a fresh start forks before, so the prompt is never sent twice.
   */
  readonly heldFrom?: string;
  readonly at: number;
}

export type Entry = UserEntry | AssistantEntry | ToolEntry | PlanSnapshotEntry | NoticeEntry | TurnEndEntry | QuestionEntry;

export type SessionPhase =
  | 'new' // no ACP session yet
  | 'starting' // session/new, load or resume in flight
  | 'idle'
  | 'running'
  | 'cancelling'
  | 'exited'; // the agent process ended; the transcript stays readable

export interface TurnState {
  readonly id: number;
  readonly startedAt: number;
  readonly cancelRequested: boolean;
  /** The token counts the agent put in chunks' `_meta.usage` this turn, summed (Qwen: one per model call). */
  readonly chunkUsage?: TokenUsage;
}

export interface ModelInfo {
  readonly modelId: string;
  readonly name: string;
  readonly description?: string;
}

/** The legacy `models` field of session responses (Hermes, Gemini, Qwen). */
export interface ModelState {
  readonly currentModelId: string;
  readonly availableModels: readonly ModelInfo[];
}

export interface UsageGauge {
  readonly used: number;
  readonly size: number;
  readonly cost?: { readonly amount: number; readonly currency: string };
}

/** Per-agent behaviours that ACP leaves open (see agentQuirks.ts). */
export interface AgentQuirks {
  /** `PromptResponse.usage` is cumulative for the session (Hermes) rather than per turn. */
  readonly cumulativePromptUsage: boolean;
  /** The next prompt after a cancel is merged with the cancelled one by the agent (Hermes). */
  readonly mergesCancelledPrompt: boolean;
  /** The next prompt after a turn the model provider failed is merged with the failed one (Hermes). */
  readonly mergesFailedPrompt?: boolean;
  /** `session/resume` replays history although the spec says it must not (Hermes). */
  readonly replaysOnResume: boolean;
  /** The agent denies a permission request after this many ms (Hermes: 60 s). */
  readonly permissionTimeoutMs?: number;
  /** Where the agent reports a turn's tokens, in order (its profile, agentProfiles.ts); absent: every place. */
  readonly usageSources?: readonly UsageSource[];
}

export interface SessionState {
  readonly sessionId?: string;
  readonly phase: SessionPhase;
  readonly turn?: TurnState;
  readonly entries: readonly Entry[];
  /** The live plan (the last `plan` update); snapshots live in entries. */
  readonly plan: readonly acp.PlanEntry[];
  /** The turn that last updated the plan (absent for a replayed one). */
  readonly planTurnId?: number;
  readonly usage?: UsageGauge;
  /** The last cumulative usage the agent reported, for turn deltas. */
  readonly cumulativeUsage?: TokenUsage;
  readonly title?: string;
  readonly updatedAt?: string;
  readonly modes?: acp.SessionModeState;
  readonly models?: ModelState;
  readonly configOptions: readonly acp.SessionConfigOption[];
  readonly commands: readonly acp.AvailableCommand[];
  readonly quirks: AgentQuirks;
  /** History being replayed by session/load or resume, merged into entries when the replay ends. */
  readonly replay?: { readonly entries: readonly Entry[]; readonly plan: readonly acp.PlanEntry[] };
  /**
   * The prompt the agent holds and will send in front of the next message (a cancelled or failed
   * prompt, agents with `mergesCancelledPrompt` / `mergesFailedPrompt`).
   */
  readonly held?: HeldPrompt;
}

export const defaultQuirks: AgentQuirks = {
  cumulativePromptUsage: false,
  mergesCancelledPrompt: false,
  replaysOnResume: false,
};

export function initialSessionState(quirks: AgentQuirks = defaultQuirks): SessionState {
  return { phase: 'new', entries: [], plan: [], configOptions: [], commands: [], quirks };
}
