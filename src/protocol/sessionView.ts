/**
 * The JSON view model the chat webview renders. The host owns it (derived from the session
 * state by src/session/viewProjection.ts); the webview never computes domain state itself.
 * Types and constants only: imported by the host and by the webview bundle.
 */

export type PhaseView = 'new' | 'starting' | 'idle' | 'running' | 'cancelling' | 'exited';

export type ToolKindView = 'read' | 'edit' | 'delete' | 'move' | 'search' | 'execute' | 'think' | 'fetch' | 'switch_mode' | 'other';

/** ACP's statuses and the client's: `denied` is a permission the user (or a rule) rejected — a choice, not an error. */
export type ToolStatusView = 'pending' | 'in_progress' | 'completed' | 'failed' | 'cancelled' | 'ended' | 'interrupted' | 'denied';

/** A content block shown to the user (images only as data the host vetted; links are plain data). */
export type BlockView =
  | { readonly type: 'text'; readonly text: string }
  | { readonly type: 'image'; readonly mimeType: string; readonly data?: string; readonly uri?: string }
  | { readonly type: 'audio'; readonly mimeType: string }
  | { readonly type: 'resource_link'; readonly uri: string; readonly name: string; readonly title?: string }
  | { readonly type: 'resource'; readonly uri: string; readonly text?: string };

export type PartView =
  | { readonly kind: 'text'; readonly text: string }
  | { readonly kind: 'thought'; readonly text: string; readonly startedAt: number; readonly endedAt?: number }
  | { readonly kind: 'block'; readonly block: BlockView };

export interface LocationView {
  readonly path: string;
  readonly line?: number;
  /** Workspace-relative path (or the path) with the line, for display. */
  readonly label: string;
}

export type ToolContentView =
  | {
      readonly type: 'text';
      /** The text, or its head and tail when it was too long to send whole. */
      readonly text: string;
      /** Characters in the full text; larger than text.length when truncated. */
      readonly fullLength: number;
      readonly markdown: boolean;
    }
  | { readonly type: 'block'; readonly block: BlockView }
  | {
      readonly type: 'diff';
      readonly path: string;
      readonly label: string;
      readonly isNew: boolean;
      readonly added: number;
      readonly removed: number;
      /** Hermes V4A patches put several comma-joined paths in one diff: shown as a raw patch. */
      readonly multiFile: boolean;
    }
  | {
      readonly type: 'terminal';
      readonly terminalId: string;
      /** The tail of the output (ANSI colour codes kept; the webview renders them). */
      readonly output: string;
      readonly fullLength: number;
      readonly exitCode?: number | null;
      readonly signal?: string | null;
      readonly running: boolean;
    };

export type PermissionStatusView = 'pending' | 'selected' | 'cancelled' | 'expired';

export interface PermissionOptionView {
  readonly optionId: string;
  readonly name: string;
  readonly kind: 'allow_once' | 'allow_always' | 'reject_once' | 'reject_always';
}

/** What the client's permission policy checked (also written to the traffic log). */
export interface PermissionCheckView {
  /** One line per target: `run ls -la`, `write src/a.ts`, `read /etc/hosts (outside the workspace)`. */
  readonly targets: readonly string[];
  /** The rule that decided, or why the user is asked. */
  readonly decision: string;
  /** The argv of the request's only command, when an "always" answer may remember it (exact or a prefix the user picks). */
  readonly argv?: readonly string[];
}

export interface PermissionView {
  readonly requestId: string;
  readonly status: PermissionStatusView;
  readonly options: readonly PermissionOptionView[];
  /** Host time (ms) when the request arrived; see {@link SessionHeaderView.hostTime}. */
  readonly requestedAt: number;
  readonly answeredAt?: number;
  readonly optionId?: string;
  readonly answeredBy?: string;
  /** When the agent gives up on its own (Hermes: 60 s), host time; the card counts down to it. */
  readonly expiresAt?: number;
  readonly check?: PermissionCheckView;
  /** What an "always" answer left in the client's memory (or why nothing). */
  readonly remembered?: string;
}

export type EntryView =
  | {
      readonly kind: 'user';
      readonly id: string;
      readonly blocks: readonly BlockView[];
      readonly origin: 'local' | 'replay' | 'agent';
      readonly excluded: boolean;
      /** The agent sent this message together with a prompt it held (a cancelled or failed one): its text. */
      readonly mergedWith?: { readonly reason: 'cancelled' | 'failed'; readonly text: string };
    }
  | { readonly kind: 'assistant'; readonly id: string; readonly parts: readonly PartView[] }
  | {
      readonly kind: 'tool';
      readonly id: string;
      readonly toolCallId: string;
      readonly title: string;
      readonly toolKind: ToolKindView;
      readonly status: ToolStatusView;
      readonly locations: readonly LocationView[];
      readonly content: readonly ToolContentView[];
      /** Pretty-printed JSON, truncated; shown on demand. */
      readonly rawInput?: string;
      readonly rawOutput?: string;
      readonly permission?: PermissionView;
      /** The agent never closed the call; the client saw it done (an allowed edit the file shows applied). */
      readonly confirmed?: 'disk';
      /** A progress marker without a result (API Server `hermes.tool.progress`): emoji and label. */
      readonly progress?: ToolProgressView;
      readonly startedAt: number;
      readonly endedAt?: number;
    }
  | QuestionEntryView
  | { readonly kind: 'plan'; readonly id: string; readonly entries: readonly PlanItemView[] }
  | {
      readonly kind: 'notice';
      readonly id: string;
      readonly level: 'info' | 'warning' | 'error';
      readonly title: string;
      /** Prose: what happened and what to do. */
      readonly detail?: string;
      /** What the agent wrote (its last stderr lines), shown as a log. */
      readonly log?: string;
      readonly actions: readonly NoticeActionView[];
      /** A user entry id: the notice offers "Start fresh from here" (a fork from before that message). */
      readonly forkFrom?: string;
      /** Values offered instead of what the agent refused (a model its provider cannot serve). */
      readonly suggestions?: SuggestionsView;
    }
  | {
      readonly kind: 'turnEnd';
      readonly id: string;
      readonly turnId: number;
      readonly outcome: 'end_turn' | 'max_tokens' | 'max_turn_requests' | 'refusal' | 'cancelled' | 'error' | 'interrupted';
      readonly durationMs: number;
      readonly usage?: TokenUsageView;
      readonly error?: string;
      /** The model provider failed the turn (the runner's classification, session/providerErrors.ts). */
      readonly provider?: ProviderFailureView;
      /** The footer offers Retry: the turn failed and its prompt can be sent again. */
      readonly retry?: boolean;
      /**
       * Where Retry sends it: this session, or — when the agent holds the failed prompt and would
       * send it twice — once, in a new session forked from before the first prompt it holds.
       */
      readonly retryIn?: 'session' | 'newSession';
      /** "Start fresh": a new session from before this user entry (the first prompt the agent holds). */
      readonly startFresh?: string;
      /** Files this turn changed that are still pending review (the Changes view). */
      readonly changes?: { readonly files: number; readonly added: number; readonly removed: number };
    };

export interface ToolProgressView {
  readonly tool: string;
  readonly emoji: string;
  readonly label: string;
  readonly state: 'running' | 'completed';
}

export interface SuggestionsView {
  readonly kind: 'model';
  readonly model: string;
  readonly provider: string;
  readonly values: readonly string[];
}

export interface ClarifyQuestionView {
  readonly id: string;
  readonly text: string;
  readonly choices: readonly string[];
  readonly multiSelect: boolean;
}

/** A clarifying question or a masked-value prompt. A secret's value is never part of any view. */
export interface QuestionEntryView {
  readonly kind: 'question';
  readonly id: string;
  readonly requestId: string;
  readonly status: 'pending' | 'answered' | 'cancelled' | 'withdrawn';
  readonly replayed: boolean;
  readonly reason?: string;
  readonly question:
    | {
        readonly kind: 'clarify';
        readonly questions: readonly ClarifyQuestionView[];
        /** Answers already locked (`clarify.lock`); `null` = skipped. */
        readonly locked: Readonly<Record<string, string | null>>;
        readonly answers?: Readonly<Record<string, string | null>>;
      }
    | {
        readonly kind: 'secret';
        readonly secretKind: 'sudo' | 'secret' | 'vault.unlock' | 'vault.code' | 'vault.saveLogin';
        readonly prompt: string;
        readonly envVar?: string;
        /** Answered: whether a value was given (the value is not kept). */
        readonly provided?: boolean;
      };
}

/** What the connection's transport lets the UI offer (ARCHITECTURE.md "Transports"); absent = ACP defaults. */
export interface OffersView {
  /** "Edit and resend" on a user message (native history rewrite). */
  readonly rewrite: boolean;
  readonly fork: boolean;
  readonly modes: boolean;
  readonly attach: boolean;
}

/** A failure of the model provider behind the agent: its class, HTTP status, and whether it passes. */
export interface ProviderFailureView {
  readonly kind: 'rateLimit' | 'overloaded' | 'server' | 'timeout' | 'billing' | 'auth' | 'other';
  readonly httpStatus?: number;
  /** Rate limits, overload, 5xx, timeouts: try again later. */
  readonly transient: boolean;
}

/** What a notice offers the user to do next. */
export type NoticeActionView =
  | 'showTraffic'
  | 'restartAgent'
  | 'setupProvider'
  | 'newSession'
  | 'checkInstallation'
  | 'useDemoAgent'
  | 'openSettings'
  /** The settings scope this window reads agent commands from when it is a remote window. */
  | 'openRemoteSettings'
  /** Asks for the agent's executable and writes it where this window reads it. */
  | 'setupAgent'
  /** Moves the chat to its agent's new definition (the settings changed) and restores the session there. */
  | 'reconnectAgent'
  /** A handed-off chat's link back to the chat it came from. */
  | 'openHandoffSource';

export interface PlanItemView {
  readonly content: string;
  readonly priority: 'high' | 'medium' | 'low';
  readonly status: 'pending' | 'in_progress' | 'completed';
}

export interface TokenUsageView {
  readonly inputTokens: number;
  readonly outputTokens: number;
  readonly totalTokens: number;
  readonly thoughtTokens?: number;
  readonly cachedReadTokens?: number;
}

export interface SelectView {
  readonly current: string;
  readonly options: readonly { readonly id: string; readonly name: string; readonly description?: string }[];
}

export type ConfigOptionView =
  | { readonly type: 'select'; readonly id: string; readonly name: string; readonly category?: string; readonly select: SelectView }
  | { readonly type: 'boolean'; readonly id: string; readonly name: string; readonly category?: string; readonly value: boolean };

export interface CommandView {
  readonly name: string;
  readonly description: string;
  readonly hint?: string;
}

/** A badge beside the agent's name (host-made text): the Demo agent, or a worktree session's branch. */
export interface BadgeView {
  readonly kind: 'demo' | 'worktree';
  readonly label: string;
  /** Its tooltip: what the demo is, or the worktree's folder. */
  readonly title: string;
}

/** Everything above the transcript and around the composer. Small; sent whole with each patch that changes it. */
export interface SessionHeaderView {
  /** Host clock (ms) when this view was produced; lets the webview correct for clock skew. */
  readonly hostTime: number;
  readonly sessionId?: string;
  readonly agentName: string;
  readonly badge?: BadgeView;
  /** A line under an empty transcript's invitation (the Demo agent's: how to reach the real thing). */
  readonly emptyHint?: string;
  readonly title?: string;
  readonly phase: PhaseView;
  readonly turnStartedAt?: number;
  readonly usage?: { readonly used: number; readonly size: number; readonly cost?: { readonly amount: number; readonly currency: string } };
  readonly plan: readonly PlanItemView[];
  readonly modes?: SelectView;
  readonly models?: SelectView;
  readonly configOptions: readonly ConfigOptionView[];
  readonly commands: readonly CommandView[];
  readonly pendingPermissions: number;
  /** The transcript can no longer be continued (agent could not restore it). */
  readonly readOnly: boolean;
  readonly acceptsImages: boolean;
  /** A notice for the composer area (e.g. "agent restarting…"). */
  readonly status?: string;
  /** A restart the user asked for is under way: shown as starting again, not as an exit. */
  readonly restarting?: boolean;
  /** The agent holds a prompt and will send it together with the next message (said before sending). */
  readonly held?: { readonly reason: 'cancelled' | 'failed'; readonly preview: string; readonly startFresh?: string };
  /** Context the next prompt will carry (a fork's transcript, "the user reverted these hunks"), removable. */
  readonly contextNotes?: readonly ContextNoteView[];
  /** What the transport offers beyond plain prompts (absent: an ACP agent's defaults). */
  readonly offers?: OffersView;
  /** The agent asked to sign in (`auth_required`): the "Sign in" card with its methods. */
  readonly signIn?: SignInView;
  /** The MCP servers the session was set up with, and those left out (with why). */
  readonly mcp?: McpServersView;
}

export interface SignInMethodView {
  readonly id: string;
  readonly name: string;
  readonly description?: string;
  /** `agent` (the agent signs in when asked), `env_var` (a secret the user enters), `terminal`. */
  readonly type: string;
}

export interface SignInView {
  readonly agentName: string;
  readonly methods: readonly SignInMethodView[];
  /** The method being tried (its button is busy). */
  readonly busy?: string;
  /** Why the last attempt failed (a wrong secret, a failed `authenticate`). */
  readonly error?: string;
  /** What to do next (after a terminal method: finish there, then try again). */
  readonly note?: string;
}

export interface McpServersView {
  readonly passed: readonly { readonly name: string; readonly transport: string }[];
  readonly skipped: readonly { readonly name: string; readonly reason: string }[];
}

export interface ContextNoteView {
  readonly key: string;
  readonly label: string;
  readonly text: string;
}

/**
 * An entry of a long session that a snapshot does not carry (the webview asks for it when it
 * scrolls near: `entries/get`): what it is, and how many lines of text it holds (a height hint).
 */
export interface EntryOutline {
  readonly id: string;
  readonly kind: EntryView['kind'];
  readonly lines: number;
}

export interface SessionView {
  readonly header: SessionHeaderView;
  /** The entries sent whole: the last ones of the transcript (all of them in a short session). */
  readonly entries: readonly EntryView[];
  /** The transcript's earlier entries, before `entries`, as outlines (a long session). */
  readonly earlier?: readonly EntryOutline[];
}
