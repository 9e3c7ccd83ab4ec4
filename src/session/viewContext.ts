import type { BadgeView, McpServersView, OffersView, SignInView } from '../protocol/sessionView';

/** What the view needs beyond the session state; supplied by the surface layer. */
export interface ViewContext {
  readonly agentName: string;
  /** Beside the agent's name: Demo, or a worktree session's branch. */
  readonly badge?: BadgeView;
  readonly emptyHint?: string;
  readonly readOnly: boolean;
  readonly acceptsImages: boolean;
  readonly pendingPermissions: number;
  readonly status?: string;
  /** A restart the user asked for is under way (ChatSession.restarting). */
  readonly restarting?: boolean;
  /** Context the next prompt will carry, shown (and removable) above the composer. */
  readonly contextNotes?: readonly { readonly key: string; readonly label: string; readonly text: string }[];
  readonly signIn?: SignInView;
  readonly mcp?: McpServersView;
  readonly now: number;
  /** What the connection's transport offers (rewrite, fork, …); absent for ACP defaults. */
  readonly offers?: OffersView;
  /** Workspace-relative form of an absolute path, for labels. */
  relativePath(path: string): string;
  /** What a turn changed in files that is still pending review (for the footer's restore buttons). */
  turnChanges?(turnId: number): { readonly files: number; readonly added: number; readonly removed: number } | undefined;
  /** Live output of a client-created terminal (terminal/create), if we own it. */
  terminal?(terminalId: string): { readonly output: string; readonly exitCode?: number | null; readonly signal?: string | null; readonly running: boolean } | undefined;
}
