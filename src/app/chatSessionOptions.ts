import type { AgentHost } from '../host/agentHost';
import type { PermissionDecider } from '../session/sessionController';
import type { AgentQuirks } from '../session/sessionState';
import type { Localize } from '../util/l10n';
import type { ChatPermissionOptions } from './chatPermissions';
import type { SpawnConsent } from './connectAgent';
import type { FileText } from './editOutcomes';
import type { SessionSetupSource } from './sessionSetup';
import type { AgentSettingsScope } from './settingsScope';
import type { SignInPorts } from './signIn';

/** Where a worktree session works (issue 40): its branch, and its worktree's folder (absolute). */
export interface WorktreeLabel {
  readonly branch: string;
  readonly path: string;
}

/** What a {@link ChatSession} is made with (chatSession.ts). */
export interface ChatSessionOptions extends ChatPermissionOptions {
  readonly host: AgentHost;
  readonly cwd: string;
  /**
   * The folders this session's `fs/*` and terminal requests are bounded by, when they are not the
   * workspace folders: a worktree session's worktree alone (issue 40).
   */
  readonly roots?: readonly string[];
  /** A worktree session's branch and worktree folder (absolute), for its header and tab. */
  readonly worktree?: WorktreeLabel;
  readonly consent: SpawnConsent;
  /** Every notice and status line of the chat goes through it (`vscode.l10n.t` in the extension). */
  readonly t: Localize;
  readonly now?: () => number;
  /** Behaviours of this agent its `initialize` answer does not reveal (see quirksFor), e.g. the demo agent's. */
  readonly quirks?: Partial<AgentQuirks>;
  /** Where this window reads agent commands (named by the "not found" notice). */
  readonly settingsScope?: () => AgentSettingsScope;
  /** Ends this session's writes waiting for review, as rejected (cancel, exit, close). */
  readonly endReviews?: (sessionId: string, reason: string) => void;
  /**
   * Decides permission requests instead of the chat's own policy ({@link ChatPermissions}): the
   * runner's `--permissions`, where nobody is there to ask.
   */
  readonly decider?: PermissionDecider;
  /** Secrets and prompts for the sign-in card (env-var and terminal methods); agent-type methods need none. */
  readonly signIn?: SignInPorts;
  /** MCP servers and workspace folders for session setup. */
  readonly setup?: SessionSetupSource;
  /** A turn's deadline (SessionControllerDeps.promptDeadlineMs); tests shorten it. */
  readonly promptDeadlineMs?: number;
  /** Reads a file after a turn, to end the edits the agent left open that were applied (editOutcomes.ts). */
  readonly fileText?: FileText;
}
