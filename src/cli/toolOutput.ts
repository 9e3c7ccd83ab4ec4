import type * as acp from '@agentclientprotocol/sdk';
import type { ToolEntry } from '../session/sessionState';
import type { ToolResultStatus } from './events';

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
  if (typeof e.rawOutput === 'string') {
    return e.rawOutput;
  }
  try {
    return JSON.stringify(e.rawOutput) ?? '';
  } catch {
    return '[raw output that cannot be written as JSON]';
  }
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

/** Why the runner did not let a call run: a rejected option (`denied`), or no answer that allows it. */
export interface Denial {
  readonly text: string;
  readonly rejected: boolean;
}

/**
 * The agent's own `completed`/`failed` wins; else a call the runner did not allow failed with the
 * answer as its output; else the local end: `cancelled`, `interrupted`, or `ended` — the turn
 * ended normally without a result for it (Hermes' patch/write_file, #50723), not an error.
 */
export function outcomeOf(e: ToolEntry, agentFinished: boolean, denial: Denial | undefined): { readonly status: ToolResultStatus; readonly output: string } {
  // A rejected permission is the runner's choice ("Denied" in the chat), whatever the agent then reports.
  const rejected = denial?.rejected === true && e.status !== 'completed';
  if (agentFinished && (e.status === 'completed' || e.status === 'failed')) {
    const output = toolOutput(e);
    return { status: rejected ? 'denied' : e.status, output: output !== '' ? output : (denial?.text ?? '') };
  }
  if (denial !== undefined) {
    return { status: rejected ? 'denied' : 'failed', output: denial.text };
  }
  if (e.status === 'completed' && e.confirmed === 'disk') {
    const files = e.content.flatMap((c) => (c.type === 'diff' ? [c.path] : []));
    return { status: 'completed', output: `applied: ${files.join(', ')} now holds the proposed change (the agent reported no result)` };
  }
  switch (e.status) {
    case 'cancelled':
      return { status: 'cancelled', output: 'cancelled' };
    case 'interrupted':
      return { status: 'interrupted', output: 'the agent exited before the call finished' };
    case 'completed':
    case 'failed':
      return { status: e.status, output: toolOutput(e) };
    default:
      return { status: 'ended', output: 'ended without a result' };
  }
}
