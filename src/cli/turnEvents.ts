import type * as acp from '@agentclientprotocol/sdk';
import { findPermissionTool } from '../session/sessionReducer';
import { sessionUpdatesOf } from '../session/sessionActions';
import type { SessionChange } from '../session/sessionController';
import type { Entry, SessionState, ToolEntry, TokenUsage } from '../session/sessionState';
import { maxToolOutputChars, type EventBody, type Tokens } from './events';

interface TrackedTool {
  readonly startedAt: number;
  readonly name: string;
  done: boolean;
}

/**
 * Turns the session controller's state changes during one turn into runner events: `text` for
 * every streamed assistant fragment, `tool_use` when a tool call first appears (announced or
 * only asked about), `permission` for every answered permission request, `tool_result` when the
 * agent reports a call completed or failed. {@link finish} closes what the agent never finished.
 */
export class TurnEvents {
  private readonly tools = new Map<string, TrackedTool>();
  private turnId: number | undefined;
  private finished = false;

  constructor(
    private readonly emit: (event: EventBody) => void,
    private readonly now: () => number,
    private readonly ruleFor: (toolCallId: string) => string | undefined,
  ) {}

  /** Starts translating changes: call right after the prompt was submitted. */
  begin(turnId: number | undefined): void {
    this.turnId = turnId;
  }

  onChange(change: SessionChange): void {
    if (this.turnId === undefined || this.finished) {
      return;
    }
    const { prev, next, action } = change;
    for (const u of sessionUpdatesOf(action)) {
      if (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' && u.content.text !== '') {
        this.emit({ type: 'text', text: u.content.text });
      }
    }
    if (prev.entries !== next.entries) {
      // Entries are only replaced or appended, and untouched ones keep their identity.
      const agentReported = action.type === 'updateReceived' || action.type === 'updatesReceived';
      for (let i = 0; i < next.entries.length; i++) {
        const e = next.entries[i];
        if (e?.kind === 'tool' && e !== prev.entries[i]) {
          this.onTool(e, agentReported);
        }
      }
    }
    if (action.type === 'permissionResolved') {
      const tool = findPermissionTool(next, action.requestId);
      if (tool !== undefined) {
        this.onTool(tool, false);
        const outcome = action.outcome;
        const option = outcome.kind === 'selected' ? tool.permission?.options.find((o) => o.optionId === outcome.optionId) : undefined;
        this.emit({
          type: 'permission',
          tool_call_id: tool.toolCallId,
          name: toolName(tool),
          outcome: outcome.kind,
          ...(outcome.kind === 'selected' ? { optionId: outcome.optionId } : {}),
          ...(option !== undefined ? { option_kind: option.kind } : {}),
          rule: this.ruleFor(tool.toolCallId) ?? action.answeredBy.replace(/^rule: /, ''),
          ...(tool.permission?.check !== undefined ? { targets: tool.permission.check.targets } : {}),
        });
      }
    }
  }

  /**
   * The turn is over: every call without a result gets one (`is_error: true`), in order of
   * appearance. Hermes leaves some calls open for good (ended without a result).
   */
  finish(state: SessionState): void {
    if (this.finished) {
      return;
    }
    for (const e of state.entries) {
      if (e.kind === 'tool') {
        this.onTool(e, false);
        this.result(e, true);
      }
    }
    this.finished = true;
  }

  private onTool(e: ToolEntry, agentReported: boolean): void {
    if (this.turnId !== undefined && e.turnId !== undefined && e.turnId !== this.turnId) {
      return;
    }
    if (!this.tools.has(e.toolCallId)) {
      this.tools.set(e.toolCallId, { startedAt: this.now(), name: toolName(e), done: false });
      this.emit({
        type: 'tool_use',
        tool_call_id: e.toolCallId,
        name: toolName(e),
        title: e.title,
        kind: e.toolKind,
        ...(e.rawInput !== undefined ? { input: e.rawInput } : {}),
      });
    }
    // Only the agent's own completed/failed counts; a local mark (a rejected permission fails
    // the card at once) waits for the agent's report or the end of the turn.
    if (agentReported && (e.status === 'completed' || e.status === 'failed')) {
      this.result(e, false);
    }
  }

  private result(e: ToolEntry, atTurnEnd: boolean): void {
    const tracked = this.tools.get(e.toolCallId);
    if (tracked === undefined || tracked.done) {
      return;
    }
    tracked.done = true;
    const reported = !atTurnEnd || e.status === 'completed' || e.status === 'failed';
    const status = reported ? e.status : e.status === 'pending' || e.status === 'in_progress' ? 'ended' : e.status;
    const capped = capText(reported ? toolOutput(e) : unfinishedOutput(status), maxToolOutputChars);
    this.emit({
      type: 'tool_result',
      tool_call_id: e.toolCallId,
      name: tracked.name,
      status,
      output: capped.text,
      ...(capped.truncated ? { output_truncated: true as const } : {}),
      duration_ms: Math.max(0, this.now() - tracked.startedAt),
      is_error: status !== 'completed',
    });
  }
}

export function toolName(e: ToolEntry): string {
  return e.name !== undefined && e.name !== '' ? e.name : e.title;
}

function unfinishedOutput(status: string): string {
  switch (status) {
    case 'cancelled':
      return 'cancelled';
    case 'interrupted':
      return 'the agent exited before the call finished';
    default:
      return 'ended without a result';
  }
}

/** What the call produced, as text: its content, else its raw output. */
export function toolOutput(e: ToolEntry): string {
  const parts: string[] = [];
  for (const c of e.content) {
    if (c.type === 'content') {
      parts.push(blockText(c.content));
    } else if (c.type === 'diff') {
      parts.push(`[diff ${c.path}]`);
    } else {
      const term = e.metaTerminals?.find((t) => t.terminalId === c.terminalId);
      parts.push(term !== undefined ? term.output : `[terminal ${c.terminalId}]`);
    }
  }
  for (const t of e.metaTerminals ?? []) {
    if (!e.content.some((c) => c.type === 'terminal' && c.terminalId === t.terminalId)) {
      parts.push(t.output);
    }
  }
  const text = parts.filter((p) => p !== '').join('\n');
  if (text !== '' || e.rawOutput === undefined) {
    return text;
  }
  return typeof e.rawOutput === 'string' ? e.rawOutput : (JSON.stringify(e.rawOutput) ?? '');
}

function blockText(b: acp.ContentBlock): string {
  switch (b.type) {
    case 'text':
      return b.text;
    case 'resource_link':
      return `[${b.uri}]`;
    case 'resource':
      return 'text' in b.resource ? b.resource.text : `[${b.resource.uri}]`;
    case 'image':
    case 'audio':
      return `[${b.type}]`;
  }
}

export function capText(text: string, max: number): { readonly text: string; readonly truncated: boolean } {
  if (text.length <= max) {
    return { text, truncated: false };
  }
  let end = max;
  const code = text.charCodeAt(end - 1);
  if (code >= 0xd800 && code <= 0xdbff) {
    end--; // never split a surrogate pair
  }
  return { text: text.slice(0, end), truncated: true };
}

/** The text of the turn's last assistant message (thoughts excluded). */
export function finalAnswer(entries: readonly Entry[], turnId: number | undefined): string {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e === undefined) {
      continue;
    }
    if (e.kind === 'user' && e.origin === 'local') {
      break;
    }
    if (e.kind === 'assistant' && (turnId === undefined || e.turnId === undefined || e.turnId === turnId)) {
      return e.parts.map((p) => (p.kind === 'text' ? p.text : '')).join('');
    }
  }
  return '';
}

/** The turn's tokens, from the footer the reducer wrote (already per turn). */
export function turnTokens(entries: readonly Entry[], turnId: number | undefined): Tokens | null {
  for (let i = entries.length - 1; i >= 0; i--) {
    const e = entries[i];
    if (e?.kind === 'turnEnd' && e.turnId === turnId) {
      return e.usage !== undefined ? tokensOf(e.usage) : null;
    }
  }
  return null;
}

export function tokensOf(u: TokenUsage): Tokens {
  return {
    input: u.inputTokens,
    output: u.outputTokens,
    total: u.totalTokens,
    cache_read: u.cachedReadTokens ?? 0,
    cache_write: u.cachedWriteTokens ?? 0,
  };
}
