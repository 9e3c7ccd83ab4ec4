import type * as acp from '@agentclientprotocol/sdk';
import type { PermissionCheckView } from '../protocol/sessionView';
import type { ProviderFailure } from './providerErrors';
import type { AgentQuirks, Entry, HeldPrompt, ModelState, NoticeAction, NoticeLevel, NoticeSuggestions, QuestionAsked } from './sessionState';

/**
 * Everything that can happen to a session, as past-tense facts. All impurity (ids, times, what
 * the agent said) enters here: the reducer never calls a clock or an id generator.
 */
export type SessionAction =
  /** The agent's `initialize` answer is known: its quirks apply from now on. */
  | { readonly type: 'agentConnected'; readonly quirks: AgentQuirks }
  | { readonly type: 'sessionStarting' }
  /** session/new, load or resume failed: the chat is no longer "Starting…" (it shows why in a notice). */
  | { readonly type: 'sessionStartFailed' }
  | {
      readonly type: 'sessionStarted';
      readonly sessionId: string;
      readonly modes?: acp.SessionModeState | null;
      readonly models?: ModelState;
      readonly configOptions?: readonly acp.SessionConfigOption[] | null;
    }
  | { readonly type: 'replayStarted' }
  | { readonly type: 'replayEnded' }
  | { readonly type: 'promptSubmitted'; readonly turnId: number; readonly id: string; readonly at: number; readonly blocks: readonly acp.ContentBlock[] }
  | { readonly type: 'updateReceived'; readonly id: string; readonly at: number; readonly update: acp.SessionUpdate }
  /** Several updates that arrived together (one read from the pipe), reduced in one pass. */
  | { readonly type: 'updatesReceived'; readonly updates: readonly { readonly id: string; readonly at: number; readonly update: acp.SessionUpdate }[] }
  | {
      readonly type: 'permissionRequested';
      /** Entry id used when the tool call was never announced. */
      readonly id: string;
      readonly at: number;
      readonly requestId: string;
      readonly toolCall: acp.ToolCallUpdate;
      readonly options: readonly acp.PermissionOption[];
      readonly check?: PermissionCheckView;
    }
  | {
      readonly type: 'permissionResolved';
      readonly requestId: string;
      readonly at: number;
      readonly outcome: PermissionOutcome;
      /** `user`, `rule: <description>`, or why it was cancelled (`turn cancelled`, `agent exited`, …). */
      readonly answeredBy: string;
      readonly remembered?: string;
    }
  | { readonly type: 'cancelRequested'; readonly at: number }
  | {
      readonly type: 'turnEnded';
      readonly turnId: number;
      readonly id: string;
      readonly at: number;
      readonly stopReason: acp.StopReason;
      /** The prompt response's `usage` and `_meta`, as the agent sent them (usage.ts reads both). */
      readonly usage?: unknown;
      readonly meta?: unknown;
    }
  /**
   * Calls the agent left open that the client saw finish (tool entry ids): an allowed edit whose
   * file now holds the proposed text (app/editOutcomes.ts). They end `completed`.
   */
  | { readonly type: 'toolsConfirmed'; readonly entryIds: readonly string[]; readonly at: number }
  /** The agent holds this prompt (a session opened whose last prompt got no reply); see SessionState.held. */
  | { readonly type: 'promptHeld'; readonly held: HeldPrompt }
  | {
      readonly type: 'turnFailed';
      readonly turnId: number;
      readonly id: string;
      readonly noticeId: string;
      readonly at: number;
      readonly error: string;
      /** The notice's title (localized by whoever dispatches). */
      readonly title: string;
      /** The model provider's failure behind the error, when the error says so (providerErrors.ts). */
      readonly provider?: ProviderFailure;
    }
  | {
      readonly type: 'agentExited';
      readonly id: string;
      readonly noticeId: string;
      readonly at: number;
      readonly message: string;
      readonly stderrTail: string;
      /** We stopped it (Restart Agent, settings change): said neutrally, without the crash actions. */
      readonly expected?: boolean;
      /** No notice: the exit ended the chat's start, whose own card says why (one card per failure). */
      readonly silent?: boolean;
    }
  | {
      readonly type: 'noticeAdded';
      readonly id: string;
      readonly at: number;
      readonly level: NoticeLevel;
      readonly title: string;
      readonly detail?: string;
      readonly log?: string;
      readonly actions?: readonly NoticeAction[];
      readonly forkFrom?: string;
      readonly suggestions?: NoticeSuggestions;
    }
  | { readonly type: 'modeChanged'; readonly modeId: string }
  | { readonly type: 'modelChanged'; readonly modelId: string }
  | { readonly type: 'configOptionsChanged'; readonly configOptions: readonly acp.SessionConfigOption[] }
  /** A fork starts from (part of) another chat's transcript, shown as it was. */
  | { readonly type: 'transcriptCopied'; readonly entries: readonly Entry[] }
  /** The agent asked a clarifying question or for a masked value (see questionSlice). */
  | { readonly type: 'questionAsked'; readonly id: string; readonly at: number; readonly requestId: string; readonly question: QuestionAsked; readonly replayed: boolean }
  | {
      readonly type: 'questionSettled';
      readonly requestId: string;
      readonly at: number;
      readonly status: 'answered' | 'cancelled' | 'withdrawn';
      readonly answers?: Readonly<Record<string, string | null>>;
      /** A secret: whether a value went to the agent (never the value). */
      readonly provided?: boolean;
      readonly reason?: string;
    }
  /** One clarify answer locked early (`clarify.lock`), before the rest are submitted. */
  | { readonly type: 'clarifyLocked'; readonly requestId: string; readonly questionId: string; readonly answer: string | null }
  /**
   * A rewrite is being submitted: the transcript is cut before the user entry `fromEntryId`, and a
   * new turn starts with the edited message (TUI Gateway truncating `prompt.submit`).
   */
  | { readonly type: 'rewriteStarted'; readonly fromEntryId: string; readonly turnId: number; readonly id: string; readonly at: number; readonly blocks: readonly acp.ContentBlock[] }
  /** The agent accepted the rewrite: the surviving user turns' fresh row ids (`survivor_user_row_ids`), in order. */
  | { readonly type: 'historyRewritten'; readonly survivorRowIds: readonly (number | null)[] }
  /** The agent's durable row ids for the user turns, in order (after a load / resume). */
  | { readonly type: 'userRowsBound'; readonly rowIds: readonly (number | null)[] };

export type PermissionOutcome =
  | { readonly kind: 'selected'; readonly optionId: string }
  | { readonly kind: 'cancelled' }
  /** The agent stopped waiting (timed out, or the turn ended) before anyone answered. */
  | { readonly kind: 'expired' };

/** The ACP updates an action carries (one, a batch, or none), in wire order. */
export function sessionUpdatesOf(action: SessionAction): readonly acp.SessionUpdate[] {
  if (action.type === 'updateReceived') {
    return [action.update];
  }
  if (action.type === 'updatesReceived') {
    return action.updates.map((u) => u.update);
  }
  return [];
}
