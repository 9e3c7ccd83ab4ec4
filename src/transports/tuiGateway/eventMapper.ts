import type * as acp from '@agentclientprotocol/sdk';
import { isObject, type JsonObject } from '../../util/json';
import type { GatewayEvent } from './wire';

/**
 * Translates one session's TUI Gateway events into ACP `session/update`s (the one code path above
 * the port). Per-turn facts needed for the translation — whether text or reasoning streamed, which
 * tool calls are open — live here; turn ownership lives with the connection.
 *
 * Event shapes: `tui_gateway/contracts/events.py` (see wire.ts for the revision).
 */
export class GatewayEventMapper {
  private streamedText = false;
  private streamedThought = false;
  private readonly openTools = new Map<string, string>();

  /** `message.start`: a new turn; nothing streamed yet. */
  turnStarted(): void {
    this.streamedText = false;
    this.streamedThought = false;
  }

  /** Text of this turn is already shown (an attach replayed the in-flight reply). */
  textStreamed(): void {
    this.streamedText = true;
  }

  /** The most recent open tool call with this tool name (an approval names its tool, not the call). */
  openToolNamed(name: string | undefined): string | undefined {
    let found: string | undefined;
    for (const [id, toolName] of this.openTools) {
      if (name === undefined || toolName === name) {
        found = id;
      }
    }
    return found;
  }

  /** Updates for a streaming event; [] for events with nothing to show. */
  map(event: GatewayEvent): acp.SessionUpdate[] {
    const p = event.payload;
    switch (event.type) {
      case 'message.delta':
        return this.text(str(p.text));
      case 'message.interim':
        // Interim commentary beside tool calls; already_streamed means its deltas came before.
        return p.already_streamed === true ? [] : this.text(str(p.text));
      case 'reasoning.delta':
      case 'thinking.delta':
        return this.thought(str(p.text));
      case 'reasoning.available':
        // A whole reasoning block from a non-streaming provider; skip it when the deltas came.
        return this.streamedThought ? [] : this.thought(str(p.text));
      case 'tool.start':
        return this.toolStart(p);
      case 'tool.complete':
        return this.toolComplete(p);
      case 'todo.updated':
        return plan(p.todos);
      case 'session.title':
        return typeof p.title === 'string' ? [{ sessionUpdate: 'session_info_update', title: p.title }] : [];
      case 'session.usage':
        return usage(p.usage);
      case 'notice':
        return typeof p.message === 'string' ? [{ sessionUpdate: 'notice', severity: 'info', title: p.message }] : [];
      case 'error':
        return typeof p.message === 'string' ? [{ sessionUpdate: 'notice', severity: 'error', title: 'Hermes reported an error', description: p.message }] : [];
      default:
        return [];
    }
  }

  /** `message.complete`: the final text when nothing streamed (non-streaming providers), and usage. */
  complete(p: JsonObject): acp.SessionUpdate[] {
    const out: acp.SessionUpdate[] = [];
    const text = typeof p.text === 'string' ? p.text : '';
    if (!this.streamedText && text !== '' && p.status !== 'error') {
      out.push(...this.text(text));
    }
    out.push(...usage(p.usage));
    return out;
  }

  private text(text: string): acp.SessionUpdate[] {
    if (text === '') {
      return [];
    }
    this.streamedText = true;
    return [{ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text } }];
  }

  private thought(text: string): acp.SessionUpdate[] {
    if (text === '') {
      return [];
    }
    this.streamedThought = true;
    return [{ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text } }];
  }

  private toolStart(p: JsonObject): acp.SessionUpdate[] {
    if (typeof p.tool_id !== 'string') {
      return [];
    }
    const name = str(p.name);
    this.openTools.set(p.tool_id, name);
    const title = firstNonEmpty(str(p.context), str(p.preview), name, p.tool_id);
    return [
      {
        sessionUpdate: 'tool_call',
        toolCallId: p.tool_id,
        title,
        ...(name !== '' ? { name } : {}),
        kind: toolKind(name),
        status: 'in_progress',
        ...(isObject(p.args) ? { rawInput: p.args } : {}),
      },
    ];
  }

  private toolComplete(p: JsonObject): acp.SessionUpdate[] {
    if (typeof p.tool_id !== 'string') {
      return [];
    }
    this.openTools.delete(p.tool_id);
    const content: acp.ToolCallContent[] = [];
    // v0.19.0's `tool.complete` has only the `result` object (a terminal's `output` / `error`).
    const result = isObject(p.result) ? p.result : {};
    const summary = firstNonEmpty(str(p.result_text), str(p.summary), str(result.error), str(result.output));
    if (summary !== '') {
      content.push({ type: 'content', content: { type: 'text', text: summary } });
    }
    if (typeof p.inline_diff === 'string' && p.inline_diff !== '') {
      content.push({ type: 'content', content: { type: 'text', text: `\`\`\`diff\n${p.inline_diff}\n\`\`\`` } });
    }
    return [
      {
        sessionUpdate: 'tool_call_update',
        toolCallId: p.tool_id,
        status: failed(p.result) ? 'failed' : 'completed',
        // v0.19.0 sends a call's arguments only here (`tool.start` has a preview): the call's input.
        ...(isObject(p.args) ? { rawInput: p.args } : {}),
        ...(content.length > 0 ? { content } : {}),
        ...(p.result !== undefined && p.result !== null ? { rawOutput: p.result } : {}),
      },
    ];
  }
}

function str(v: unknown): string {
  return typeof v === 'string' ? v : '';
}

function firstNonEmpty(...values: string[]): string {
  return values.find((v) => v.trim() !== '') ?? '';
}

/** Hermes tool results report failure in the result itself (`error`, `success: false`, a refused approval's `status: "blocked"`). */
function failed(result: unknown): boolean {
  if (!isObject(result)) {
    return false;
  }
  return result.status === 'blocked' || (result.error !== undefined && result.error !== null && result.error !== '' && result.error !== false) || result.success === false || result.ok === false;
}

/** Hermes' tool names (tools/*.py) onto ACP tool kinds; anything else is `other`. */
export function toolKind(name: string): acp.ToolKind {
  if (/^(terminal|process|execute_code|shell)/.test(name)) {
    return 'execute';
  }
  if (/^(read_file|file_read|view)/.test(name)) {
    return 'read';
  }
  if (/^(write_file|patch|edit|apply_patch)/.test(name)) {
    return 'edit';
  }
  if (/search_files|grep|glob|find/.test(name)) {
    return 'search';
  }
  if (/^(web_|browser_|fetch)/.test(name)) {
    return 'fetch';
  }
  return 'other';
}

function usage(raw: unknown): acp.SessionUpdate[] {
  if (!isObject(raw) || typeof raw.context_used !== 'number' || typeof raw.context_max !== 'number' || raw.context_max <= 0) {
    return [];
  }
  return [{ sessionUpdate: 'usage_update', used: raw.context_used, size: raw.context_max }];
}

function plan(raw: unknown): acp.SessionUpdate[] {
  if (!Array.isArray(raw)) {
    return [];
  }
  const entries = raw.flatMap((t): acp.PlanEntry[] => {
    if (!isObject(t)) {
      return [];
    }
    const content = firstNonEmpty(str(t.content), str(t.text), str(t.title));
    const s = str(t.status);
    const status: acp.PlanEntryStatus = s === 'completed' || s === 'done' ? 'completed' : s === 'in_progress' || s === 'active' ? 'in_progress' : 'pending';
    return content === '' ? [] : [{ content, status, priority: 'medium' }];
  });
  return [{ sessionUpdate: 'plan', entries }];
}
