import type * as acp from '@agentclientprotocol/sdk';
import type { SessionAction } from '../../src/session/sessionActions';
import { reduceSession } from '../../src/session/sessionReducer';
import { defaultQuirks, initialSessionState, type AgentQuirks, type SessionState } from '../../src/session/sessionState';

/** Builders in the spirit of vscode-pull-request-github's src/test/builders: state only what matters. */
let counter = 0;
export function nextId(): string {
  return `e${++counter}`;
}

export function textChunk(text: string, kind: 'agent_message_chunk' | 'agent_thought_chunk' | 'user_message_chunk' = 'agent_message_chunk', messageId?: string): acp.SessionUpdate {
  return { sessionUpdate: kind, content: { type: 'text', text }, ...(messageId !== undefined ? { messageId } : {}) };
}

export function toolCall(toolCallId: string, fields: Partial<acp.ToolCall> = {}): acp.SessionUpdate {
  return { sessionUpdate: 'tool_call', toolCallId, title: fields.title ?? `tool ${toolCallId}`, ...fields };
}

export function toolUpdate(toolCallId: string, fields: Partial<acp.ToolCallUpdate> = {}): acp.SessionUpdate {
  return { sessionUpdate: 'tool_call_update', ...fields, toolCallId };
}

export function plan(...entries: [string, acp.PlanEntryStatus][]): acp.SessionUpdate {
  return { sessionUpdate: 'plan', entries: entries.map(([content, status]) => ({ content, status, priority: 'medium' })) };
}

export function textBlock(text: string): acp.ContentBlock {
  return { type: 'text', text };
}

/** A tiny driver: folds actions with a fake clock (1 ms per step) and counter ids. */
export class SessionHarness {
  state: SessionState;
  now = 1000;
  turn = 0;

  constructor(quirks: AgentQuirks = defaultQuirks) {
    this.state = reduceSession(initialSessionState(quirks), { type: 'sessionStarted', sessionId: 's1' });
  }

  apply(action: SessionAction): SessionState {
    this.state = reduceSession(this.state, action);
    return this.state;
  }

  tick(ms = 1): number {
    this.now += ms;
    return this.now;
  }

  update(update: acp.SessionUpdate): SessionState {
    return this.apply({ type: 'updateReceived', id: nextId(), at: this.tick(), update });
  }

  prompt(text: string): number {
    this.turn++;
    this.apply({ type: 'promptSubmitted', turnId: this.turn, id: nextId(), at: this.tick(), blocks: [textBlock(text)] });
    return this.turn;
  }

  end(stopReason: acp.StopReason = 'end_turn', usage?: unknown, turnId = this.turn): SessionState {
    return this.apply({ type: 'turnEnded', turnId, id: nextId(), at: this.tick(), stopReason, ...(usage !== undefined ? { usage } : {}) });
  }
}
