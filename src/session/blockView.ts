import type * as acp from '@agentclientprotocol/sdk';
import type { BlockView } from '../protocol/sessionView';

/** Tool text longer than this is sent as head + tail; the full text opens in an editor. */
export const maxToolTextChars = 16_000;
const headChars = 4_000;

export function blockView(b: acp.ContentBlock): BlockView {
  switch (b.type) {
    case 'text':
      return { type: 'text', text: b.text };
    case 'image':
      return { type: 'image', mimeType: b.mimeType, data: b.data, ...(typeof b.uri === 'string' ? { uri: b.uri } : {}) };
    case 'audio':
      return { type: 'audio', mimeType: b.mimeType };
    case 'resource_link':
      return { type: 'resource_link', uri: b.uri, name: b.name, ...(typeof b.title === 'string' ? { title: b.title } : {}) };
    case 'resource':
      return { type: 'resource', uri: b.resource.uri, ...('text' in b.resource ? { text: clipMiddle(b.resource.text) } : {}) };
  }
}

export function clipMiddle(text: string, max = maxToolTextChars): string {
  if (text.length <= max) {
    return text;
  }
  const tail = max - headChars;
  return `${text.slice(0, headChars)}\n… ${text.length - max} characters not shown …\n${text.slice(text.length - tail)}`;
}
