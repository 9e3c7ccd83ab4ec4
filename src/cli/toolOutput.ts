import type * as acp from '@agentclientprotocol/sdk';
import type { ToolEntry } from '../session/sessionState';

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
