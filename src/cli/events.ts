/**
 * The runner's output events (`--format stream-json`: one JSON object per stdout line) and the
 * sinks that write them. Every event carries `timestamp`, Unix epoch milliseconds.
 */

export interface AgentIdentity {
  readonly name: string;
  readonly title?: string;
  readonly version: string | null;
}

export interface SystemInitEvent {
  readonly type: 'system';
  readonly subtype: 'init';
  readonly timestamp: number;
  readonly session_id: string;
  readonly model?: string;
  readonly agent: AgentIdentity;
  readonly cwd: string;
}

/** A streamed fragment of the assistant's reply (`agent_message_chunk` text). */
export interface TextEvent {
  readonly type: 'text';
  readonly timestamp: number;
  readonly text: string;
}

export interface ToolUseEvent {
  readonly type: 'tool_use';
  readonly timestamp: number;
  readonly tool_call_id: string;
  /** The ACP `name` when the agent sent one, else the title. */
  readonly name: string;
  readonly title: string;
  /** ACP tool kind (`read`, `edit`, `execute`, …). */
  readonly kind: string;
  readonly input?: unknown;
}

/** How the runner answered a `session/request_permission`. */
export interface PermissionEvent {
  readonly type: 'permission';
  readonly timestamp: number;
  readonly tool_call_id: string;
  readonly name: string;
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

export interface ToolResultEvent {
  readonly type: 'tool_result';
  readonly timestamp: number;
  readonly tool_call_id: string;
  readonly name: string;
  /** `completed` / `failed` as the agent reported; `ended` (no result by turn end), `cancelled`, `interrupted` (agent exited). */
  readonly status: string;
  /** Text content of the call (else its raw output), at most {@link maxToolOutputChars} characters. */
  readonly output: string;
  readonly output_truncated?: true;
  /** From the call's first appearance to its completion. */
  readonly duration_ms: number;
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

export interface ResultEvent {
  readonly type: 'result';
  readonly timestamp: number;
  readonly session_id: string | null;
  readonly exit_code: number;
  readonly stop_reason: string | null;
  /** The final assistant message of the turn (not the fragments). */
  readonly text: string;
  /** `null` when the agent reported no usage. */
  readonly tokens: Tokens | null;
  /** Wall-clock time of the whole run (agent start included). */
  readonly duration_ms: number;
  /** From `session/prompt` to its answer; `null` when no prompt was sent. */
  readonly turn_duration_ms: number | null;
  readonly error?: string;
}

export type CliEvent = SystemInitEvent | TextEvent | ToolUseEvent | PermissionEvent | ToolResultEvent | ResultEvent;

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
      case 'tool_result':
        this.diagnostic(`[tool] ${event.name}: ${event.status} in ${event.duration_ms} ms`);
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
