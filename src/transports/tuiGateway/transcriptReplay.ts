import type * as acp from '@agentclientprotocol/sdk';
import { toolKind } from './eventMapper';
import type { SessionSnapshot, TranscriptRow } from './wire';

/**
 * A resumed or attached session's transcript as the `session/update`s an ACP agent replays on
 * `session/load`, so the session layer's replay merge applies unchanged. The in-flight turn (a
 * session another client is running) follows the history: its prompt and what streamed so far.
 */
export function snapshotUpdates(snapshot: SessionSnapshot): acp.SessionUpdate[] {
  const out: acp.SessionUpdate[] = [];
  let messageIndex = 0;
  for (const row of snapshot.messages) {
    out.push(...rowUpdates(row, `replay-${messageIndex++}`));
  }
  const inflight = snapshot.inflight;
  if (inflight !== undefined && (inflight.streaming || inflight.user !== '' || inflight.assistant !== '')) {
    if (inflight.user !== '') {
      out.push({ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: inflight.user } });
    }
    if (inflight.assistant !== '') {
      out.push({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: inflight.assistant } });
    }
  }
  return out;
}

function rowUpdates(row: TranscriptRow, messageId: string): acp.SessionUpdate[] {
  switch (row.role) {
    case 'user':
      // Display-only rows (process completions, hidden scaffolding) are not the user's words.
      return row.displayKind === undefined && row.text !== '' ? [{ sessionUpdate: 'user_message_chunk', content: { type: 'text', text: row.text } }] : [];
    case 'assistant': {
      const out: acp.SessionUpdate[] = [];
      if (row.reasoning !== undefined) {
        out.push({ sessionUpdate: 'agent_thought_chunk', messageId, content: { type: 'text', text: row.reasoning } });
      }
      if (row.text !== '') {
        out.push({ sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text: row.text } });
      }
      return out;
    }
    case 'tool': {
      const id = row.toolCallId ?? messageId;
      const name = row.name ?? '';
      return [
        {
          sessionUpdate: 'tool_call',
          toolCallId: id,
          title: row.context ?? (name !== '' ? name : id),
          ...(name !== '' ? { name } : {}),
          kind: toolKind(name),
          status: 'completed',
          ...(row.args !== undefined ? { rawInput: row.args } : {}),
          ...(row.text !== '' ? { content: [{ type: 'content', content: { type: 'text', text: row.text } }] } : {}),
        },
      ];
    }
    default:
      return [];
  }
}
