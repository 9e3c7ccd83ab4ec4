/**
 * The runner's output events (`--format stream-json`: one JSON object per stdout line) and the
 * sinks that write them. Every event carries `timestamp`, Unix epoch milliseconds.
 */

export interface AgentIdentity {
  /** `agentInfo.name`, else the executable's name (wrappers such as `env` or `npx` skipped). */
  readonly name: string;
  readonly title?: string;
  readonly version: string | null;
}

/** Always the first record: after `session/new`, or just before `result` when the run failed earlier. */
export interface SystemInitEvent {
  readonly type: 'system';
  readonly subtype: 'init';
  readonly timestamp: number;
  /** `""` when no session was created. */
  readonly session_id: string;
  /** The session's model, `""` when the agent reports none. */
  readonly model: string;
  /** The session's mode after the runner chose one, `""` when the agent has no modes. */
  readonly mode: string;
  readonly agent: AgentIdentity;
  readonly cwd: string;
}

/** A streamed fragment of the assistant's reply (`agent_message_chunk` text). */
export interface TextEvent {
  readonly type: 'text';
  readonly timestamp: number;
  readonly text: string;
}

/** Written once per call, once its arguments are known (at the latest when it runs, is asked about, or ends). */
export interface ToolUseEvent {
  readonly type: 'tool_use';
  readonly timestamp: number;
  readonly tool_call_id: string;
  /** The tool's own name (agentProfiles.ts), else the ACP kind. */
  readonly name: string;
  /** The agent's sentence for the call. */
  readonly title: string;
  /** ACP tool kind (`read`, `edit`, `execute`, …). */
  readonly kind: string;
  /** The arguments, when any message about the call carried them. */
  readonly input?: unknown;
  readonly input_truncated?: true;
}

/** How the runner answered a `session/request_permission`. */
export interface PermissionEvent {
  readonly type: 'permission';
  readonly timestamp: number;
  readonly tool_call_id: string;
  /** The same name as the call's `tool_use`. */
  readonly name: string;
  /** The call's title when the answer was written. */
  readonly title: string;
  /** `selected` (an option was chosen), `cancelled` (answered without an option: not allowed), `expired` (nobody answered in time). */
  readonly outcome: 'selected' | 'cancelled' | 'expired';
  /** The chosen option (ACP `optionId`), when `selected`. */
  readonly optionId?: string;
  /** Its ACP kind (`allow_once`, `reject_once`, …). */
  readonly option_kind?: string;
  /** The rule (or default) that decided. */
  readonly rule: string;
  /** What the policy checked: one line per target (`run ls -la`, `write src/a.ts (sensitive: …)`). */
  readonly targets?: readonly string[];
}

/** What kind of question a non-ACP transport asked (TUI Gateway server requests). */
export type QuestionKind = 'clarify' | 'sudo' | 'secret' | 'vault.unlock' | 'vault.code' | 'vault.saveLogin' | 'connection';

/**
 * A question the agent asked that nobody can answer in a headless run (a clarifying question, a
 * sudo / secret / vault prompt, a connection card): the runner cancelled it and says so. Never
 * carries a secret's value (the runner never has one: it answers the cancel form).
 */
export interface QuestionEvent {
  readonly type: 'question';
  readonly timestamp: number;
  readonly request_id: string;
  readonly kind: QuestionKind;
  /** What the agent asked: each question's text, or the prompt. */
  readonly questions: readonly string[];
  /** The environment variable a `secret` would have filled. */
  readonly env_var?: string;
  readonly outcome: 'cancelled';
  /** Why, and what the agent was told. */
  readonly reason: string;
}

/**
 * A plan the agent sent (ACP `plan`: Claude's TodoWrite, Codex's update_plan, Hermes' todo), the
 * whole list every time it changes. Additive: consumers that select other types are unaffected.
 */
export interface PlanEvent {
  readonly type: 'plan';
  readonly timestamp: number;
  readonly entries: readonly PlanEventEntry[];
}

export interface PlanEventEntry {
  readonly content: string;
  readonly status: 'pending' | 'in_progress' | 'completed';
  readonly priority: 'high' | 'medium' | 'low';
}

export type ToolResultStatus = 'completed' | 'failed' | 'ended' | 'cancelled' | 'interrupted' | 'denied';

export interface ToolResultEvent {
  readonly type: 'tool_result';
  readonly timestamp: number;
  readonly tool_call_id: string;
  readonly name: string;
  /**
   * `completed` / `failed` as the agent reported — or `completed` for an edit the agent left open
   * whose file shows it applied (app/editOutcomes.ts); `denied` (a permission the runner rejected:
   * a choice, not an error — as the chat's "Denied"); `ended` (no result by a normal turn end),
   * `cancelled`, `interrupted` (the agent exited).
   */
  readonly status: ToolResultStatus;
  /** Text content of the call (else its raw output, else the denial), at most {@link maxToolOutputChars} characters. */
  readonly output: string;
  readonly output_truncated?: true;
  /** From the call's first appearance to its completion. */
  readonly duration_ms: number;
  /** The call failed: `failed`, `cancelled` or `interrupted`. */
  readonly is_error: boolean;
}

/** Tokens of this turn (converted from cumulative where the agent reports per-session totals). */
export interface Tokens {
  readonly input: number;
  readonly output: number;
  readonly total: number;
  readonly cache_read: number;
  readonly cache_write: number;
}

/** A process the agent started that was still running after the run tried to stop it. */
export interface LeftProcess {
  readonly pid: number;
  readonly command: string;
}

export interface ResultEvent {
  readonly type: 'result';
  readonly timestamp: number;
  /** `""` when no session was created. */
  readonly session_id: string;
  readonly exit_code: number;
  readonly stop_reason: string | null;
  /** The final assistant message of the turn (not the fragments). */
  readonly text: string;
  /** Always the five numbers; zeros when the agent reported none (see `tokens_reported`). */
  readonly tokens: Tokens;
  /** False only when the agent reported no token counts at all. */
  readonly tokens_reported: boolean;
  /** False when `--permissions deny` or a rules file could not hold: the agent edited or ran something without asking and offers no mode that asks. */
  readonly permissions_enforced: boolean;
  /** Processes the agent started that could not be stopped (Linux: found by the run's environment marker). */
  readonly left_running: readonly LeftProcess[];
  /** Wall-clock time of the whole run (agent start and stop included). */
  readonly duration_ms: number;
  /** From `session/prompt` to its answer; `null` when no prompt was sent. */
  readonly turn_duration_ms: number | null;
  /** Set exactly when `exit_code` is not 0. */
  readonly error?: string;
  /** `--worktree`: where the run worked; it stays, with the agent's changes uncommitted. */
  readonly worktree?: { readonly path: string; readonly branch: string; readonly base: string };
  /** `--checkpoints`: the checkpoint `--restore ID` puts back, and the paths the run changed. */
  readonly checkpoint?: { readonly id: string; readonly files: readonly string[] };
}

export type CliEvent = SystemInitEvent | TextEvent | ToolUseEvent | PermissionEvent | QuestionEvent | ToolResultEvent | PlanEvent | ResultEvent;

/** Distributes `Omit` over the union so each event keeps its own fields. */
export type EventBody<E extends CliEvent = CliEvent> = E extends CliEvent ? Omit<E, 'timestamp'> : never;

export const maxToolOutputChars = 5000;

/** The part of a Node writable stream the sinks use. */
export interface TextOutput {
  write(chunk: string, callback?: (error?: Error | null) => void): boolean;
}

export interface EventSink {
  emit(event: CliEvent): void;
  /** A diagnostic line for humans (always stderr). */
  diagnostic(line: string): void;
  /** Resolves once everything written so far has been handed to the OS. */
  flush(): Promise<void>;
}

abstract class BaseSink implements EventSink {
  /** After `result`, nothing more is written: it is always the last record. */
  private closed = false;

  constructor(
    protected readonly stdout: TextOutput,
    protected readonly stderr: TextOutput,
  ) {}

  emit(event: CliEvent): void {
    if (this.closed) {
      return;
    }
    if (event.type === 'result') {
      this.closed = true;
    }
    this.write(event);
  }

  diagnostic(line: string): void {
    this.stderr.write(`${line}\n`);
  }

  async flush(): Promise<void> {
    await Promise.all([drain(this.stdout), drain(this.stderr)]);
  }

  protected abstract write(event: CliEvent): void;
}

/** `--format stream-json`: one JSON object per line on stdout, nothing else. */
export class JsonlSink extends BaseSink {
  protected write(event: CliEvent): void {
    // JSON.stringify escapes every line break inside strings, so one event is always one line.
    this.stdout.write(`${JSON.stringify(event)}\n`);
  }
}

/** `--format text`: the final answer on stdout; tool progress and errors on stderr. */
export class TextSink extends BaseSink {
  protected write(event: CliEvent): void {
    switch (event.type) {
      case 'system':
      case 'text':
        return;
      case 'tool_use':
        this.diagnostic(`[tool] ${event.name}`);
        return;
      case 'permission':
        this.diagnostic(
          `[permission] ${event.name}: ${event.outcome === 'selected' ? (event.optionId ?? '') : event.outcome} (${event.rule})`,
        );
        return;
      case 'question':
        this.diagnostic(`[question] ${event.kind} ${event.outcome}: ${event.questions.join(' / ')} (${event.reason})`);
        return;
      case 'tool_result':
        this.diagnostic(`[tool] ${event.name}: ${event.status} in ${event.duration_ms} ms`);
        return;
      case 'plan':
        this.diagnostic(`[plan] ${event.entries.map((e) => `${e.status === 'completed' ? '[x]' : e.status === 'in_progress' ? '[~]' : '[ ]'} ${e.content}`).join(' | ')}`);
        return;
      case 'result':
        if (event.exit_code === 0) {
          if (event.text !== '') {
            this.stdout.write(event.text.endsWith('\n') ? event.text : `${event.text}\n`);
          }
          return;
        }
        if (event.text !== '') {
          this.diagnostic(event.text);
        }
        this.diagnostic(`hermes-acp-run: ${event.error ?? 'failed'} (exit ${event.exit_code})`);
        return;
    }
  }
}

function drain(out: TextOutput): Promise<void> {
  return new Promise<void>((resolve) => {
    const timer = setTimeout(resolve, 5000);
    try {
      out.write('', () => {
        clearTimeout(timer);
        resolve();
      });
    } catch {
      clearTimeout(timer);
      resolve();
    }
  });
}
