import type { AgentConnection } from '../agentPort/agentConnection';
import { isAuthRequired } from '../acp/authMethods';
import type { SessionController } from '../session/sessionController';
import type { SessionState } from '../session/sessionState';
import type { RunOptions } from './args';
import { chooseSession, resumeFailure, type SessionOpening } from './sessionChoice';
import { agentKey, titleFromPrompt, type SessionRecord, type SessionRecords } from './sessionRecords';

/** The identity of the run's agent across runs: its command (ACP), else the transport's address. */
export function runAgentKey(options: Pick<RunOptions, 'agent' | 'transport' | 'registryAgent'>): string {
  if (options.registryAgent !== undefined) {
    // By its registry id: an update installs another command, the sessions stay this agent's.
    return `registry:${options.registryAgent.id}`;
  }
  const t = options.transport;
  if (t === undefined) {
    return agentKey(options.agent);
  }
  return t.kind === 'api-server' ? agentKey({ transport: t.kind, address: t.baseUrl }) : agentKey({ transport: t.kind, address: t.url ?? t.hermesRoot ?? '' });
}

/**
 * A run's part in sessions across runs: which session it opens (`--continue`, `--resume`, else a
 * new one), and the record it leaves for later runs (`--name`, title, last use).
 */
export class RunSessions {
  readonly key: string;
  private opening: SessionOpening = { kind: 'new' };

  constructor(
    private readonly options: RunOptions,
    private readonly records: SessionRecords,
    private readonly now: () => number,
  ) {
    this.key = runAgentKey(options);
  }

  /** Decides the opening; an error message (naming the id or name) when the asked session cannot be resumed. */
  async choose(connection: AgentConnection, agentLabel: string): Promise<string | undefined> {
    const choice = await chooseSession({ request: this.options.session, records: this.records, agentKey: this.key, agentLabel, cwd: this.options.cwd, connection });
    if ('error' in choice) {
      return choice.error;
    }
    this.opening = choice;
    return undefined;
  }

  get resuming(): boolean {
    return this.opening.kind === 'resume';
  }

  /**
   * `session/new`, or `session/resume` / `session/load` of the chosen session. A load's replayed
   * history goes into the controller's state before the turn begins, so it is never printed as new
   * events. Rejects with an error naming the session when the agent refuses it.
   */
  async open(controller: SessionController): Promise<void> {
    const o = this.opening;
    if (o.kind === 'new') {
      await controller.start();
      return;
    }
    try {
      await controller.load(o.sessionId, o.how);
    } catch (e) {
      if (isAuthRequired(e)) {
        throw e; // signed in and retried by the runner, as for session/new
      }
      throw new ResumeError(resumeFailure(o.sessionId, o.record, o.how, e), e);
    }
  }

  /** Writes the run's record (never throws: a record that cannot be written is a warning). */
  save(sessionId: string, state: SessionState | undefined, agent: string, mask: (text: string) => string): string | undefined {
    if (sessionId === '') {
      return undefined;
    }
    const earlier = this.opening.kind === 'resume' ? (this.opening.record ?? this.records.find(this.key, this.options.cwd, sessionId)) : undefined;
    const at = new Date(this.now()).toISOString();
    const name = this.options.sessionName ?? earlier?.name;
    const title = state?.title !== undefined && state.title !== '' ? state.title : (earlier?.title ?? titleFromPrompt(this.options.query));
    const record: SessionRecord = {
      version: 1,
      agentKey: this.key,
      agent,
      cwd: this.options.cwd,
      sessionId,
      ...(name !== undefined ? { name } : {}),
      title: mask(title),
      createdAt: earlier?.createdAt ?? at,
      lastUsedAt: at,
    };
    try {
      this.records.save(record);
      return undefined;
    } catch (e) {
      return `hermes-acp-run: warning: could not record session ${sessionId} for --continue/--resume: ${e instanceof Error ? e.message : String(e)}`;
    }
  }
}

/** `session/resume` or `session/load` of the asked session failed; the message names it. */
export class ResumeError extends Error {
  constructor(message: string, cause: unknown) {
    super(message, { cause });
    this.name = 'ResumeError';
  }

  static is(e: unknown): e is ResumeError {
    return e instanceof ResumeError;
  }
}
