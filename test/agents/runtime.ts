/** Process-wide state of the scripted agent, shared by the method handlers and the scenarios. */
import type { ClientCapabilities } from '@agentclientprotocol/sdk';
import type { Knobs } from './knobs';
import type { SerialStdout } from './rawStdout';
import type { SessionStore, StoredSession } from './sessionStore';
import type { Turn } from './turn';

/** A session opened in this process (by new, load, resume or fork). */
export interface LiveSession {
  readonly stored: StoredSession;
  /** The running prompt turn, if any. */
  turn: Turn | undefined;
  /** Commands approved with `allow_session` (Hermes: "allow this pattern for the rest of this ACP session"). */
  readonly sessionAllowedCommands: Set<string>;
}

export interface AgentRuntime {
  readonly knobs: Knobs;
  readonly store: SessionStore;
  readonly stdout: SerialStdout;
  /** What the client advertised in `initialize` (omitted = unsupported, ACP initialization). */
  clientCapabilities: ClientCapabilities;
  readonly live: Map<string, LiveSession>;
  /** Commands approved with `allow_always` (Hermes writes them to its permanent allowlist). */
  readonly alwaysAllowedCommands: Set<string>;
  /** Hermes numbers its synthetic permission tool calls per process: `edit-approval-1`, `perm-check-1`, … */
  readonly counters: { editApproval: number; permCheck: number; authFailures: number };
  /** `authenticate` succeeded (SCRIPTED_AGENT_AUTH). */
  signedIn: boolean;
}

/** Flushes stdout, then ends the process; used by every deliberate exit so earlier frames arrive. */
export async function exitAfterFlush(runtime: AgentRuntime, code: number): Promise<never> {
  await runtime.stdout.drain();
  process.exit(code);
}
