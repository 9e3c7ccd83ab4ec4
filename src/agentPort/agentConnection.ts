import type * as acp from '@agentclientprotocol/sdk';
import type { Disposable } from '../util/disposable';

/**
 * The port the session layer calls, whatever the protocol: `src/acp`'s AcpClient implements it, and
 * so do the TUI Gateway and API Server adapters (`src/transports`, as a `Transport`: transport.ts); tests
 * may provide their own. ARCHITECTURE.md "The agent port".
 */
export interface AgentConnection {
  /** The agent's `initialize` answer (capabilities, info), once connected. */
  readonly agent: acp.InitializeResponse | undefined;
  /** True once the agent process has gone. */
  readonly isClosed: boolean;
  newSession(params: acp.NewSessionRequest): Promise<acp.NewSessionResponse>;
  loadSession(params: acp.LoadSessionRequest): Promise<acp.LoadSessionResponse>;
  resumeSession(params: acp.ResumeSessionRequest): Promise<acp.ResumeSessionResponse>;
  forkSession(params: { sessionId: string; cwd: string; mcpServers: acp.McpServer[]; _meta?: Record<string, unknown> }): Promise<{
    readonly sessionId: string;
    readonly modes?: acp.SessionModeState | null;
    readonly configOptions?: acp.SessionConfigOption[] | null;
    readonly models?: unknown;
  }>;
  listSessions(params: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse>;
  closeSession(sessionId: string): Promise<unknown>;
  prompt(params: acp.PromptRequest): Promise<acp.PromptResponse>;
  cancel(sessionId: string): Promise<void>;
  setMode(sessionId: string, modeId: string): Promise<unknown>;
  setModel(sessionId: string, modelId: string): Promise<unknown>;
  setConfigOption(params: acp.SetSessionConfigOptionRequest): Promise<acp.SetSessionConfigOptionResponse>;
  /**
   * Delivers the session's updates synchronously and in wire order, including ones that arrived
   * early; `onProblem` hears of updates that were not valid ACP (rejected, or with parts left out).
   */
  subscribeSession(sessionId: string, listener: (n: acp.SessionNotification) => void, onProblem?: (p: UpdateProblem) => void): Disposable;
}

/**
 * A `session/update` the connection could not use as sent (`src/acp/updateDispatch.ts` reports them):
 * `rejected` (not valid ACP: dropped whole) or `salvaged` (the SDK's schema left items out, e.g. a
 * config option with `options: null`). The session layer shows it as a notice; the message itself
 * is in the traffic log.
 */
export interface UpdateProblem {
  readonly kind: 'rejected' | 'salvaged';
  /** The `sessionUpdate` variant, when the message named one. */
  readonly updateKind: string | undefined;
  /** What was wrong, for people (paths and the schema's words). */
  readonly reason: string;
}
