import type * as acp from '@agentclientprotocol/sdk';
import { isObject, type JsonObject } from '../../util/json';
import { toolKind } from '../tuiGateway/eventMapper';
import { parseTokenCounts, type TokenCounts } from './chatStream';
import type { SseEvent } from './sse';

/** A run's terminal event. */
export interface RunEnd {
  /** `completed`, `failed`, `cancelled`, `interrupted`. */
  readonly status: string;
  readonly error?: string;
  /** `run.completed.usage {input_tokens, output_tokens, total_tokens}`. */
  readonly usage?: TokenCounts;
}

export interface ApprovalAsk {
  readonly requestId: string | undefined;
  readonly command: string;
  readonly description: string;
  readonly choices: readonly string[];
}

/**
 * Translates a `/v1/runs/{id}/events` stream (`gateway/platforms/api_server_runs.py` at
 * 005b4b7607e9): `data: {event, run_id, timestamp, …}` frames. `message.delta` is text,
 * `reasoning.available` a thought, `tool.started` / `tool.completed` a tool call (these carry an
 * `error` flag, so here completion is a real outcome), `approval.request` a question for the
 * permission port, `run.<status>` the end. Tool events carry no call id: ids are minted per run and
 * a completion closes the oldest open call of the same tool.
 */
export class RunStreamTranslator {
  private toolCount = 0;
  private readonly open: { id: string; tool: string }[] = [];
  private streamed = false;
  private endValue: RunEnd | undefined;

  constructor(
    private readonly runId: string,
    private readonly emit: (update: acp.SessionUpdate) => void,
    private readonly onApproval: (ask: ApprovalAsk) => void,
    private readonly onApprovalSettled: (requestId: string | undefined) => void,
  ) {}

  get end(): RunEnd | undefined {
    return this.endValue;
  }

  /** The ids minted for this run's tool calls, in order. */
  get toolCallIds(): readonly string[] {
    return Array.from({ length: this.toolCount }, (_, i) => `${this.runId}-tool-${i + 1}`);
  }

  /** The id of the open tool call an approval most likely belongs to. */
  get lastOpenTool(): string | undefined {
    return this.open.at(-1)?.id;
  }

  onEvent(e: SseEvent): void {
    let ev: JsonObject;
    try {
      const v = JSON.parse(e.data) as unknown;
      if (!isObject(v) || typeof v.event !== 'string') {
        return;
      }
      ev = v;
    } catch {
      return;
    }
    const s = (k: string): string => (typeof ev[k] === 'string' ? ev[k] : '');
    const name = s('event');
    switch (name) {
      case 'message.delta':
        if (s('delta') !== '') {
          this.streamed = true;
          this.emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: s('delta') } });
        }
        return;
      case 'reasoning.available':
        if (s('text') !== '') {
          this.emit({ sessionUpdate: 'agent_thought_chunk', content: { type: 'text', text: s('text') } });
        }
        return;
      case 'tool.started': {
        const id = `${this.runId}-tool-${++this.toolCount}`;
        this.open.push({ id, tool: s('tool') });
        this.emit({ sessionUpdate: 'tool_call', toolCallId: id, title: s('preview') || s('tool') || id, name: s('tool'), kind: toolKind(s('tool')), status: 'in_progress' });
        return;
      }
      case 'tool.completed': {
        const i = this.open.findIndex((t) => t.tool === s('tool'));
        const call = i >= 0 ? this.open.splice(i, 1)[0] : undefined;
        if (call !== undefined) {
          this.emit({ sessionUpdate: 'tool_call_update', toolCallId: call.id, status: ev.error === true ? 'failed' : 'completed', rawOutput: { duration: ev.duration, error: ev.error === true } });
        }
        return;
      }
      case 'approval.request':
        this.onApproval({
          requestId: s('request_id') || undefined,
          command: s('command'),
          description: s('description'),
          choices: Array.isArray(ev.choices) ? ev.choices.filter((c): c is string => typeof c === 'string') : [],
        });
        return;
      case 'approval.responded':
        this.onApprovalSettled(s('request_id') || undefined);
        return;
      default:
        if (name.startsWith('run.') && name !== 'run.steered') {
          const status = name.slice('run.'.length);
          if (status === 'completed' && !this.streamed && s('output') !== '') {
            this.emit({ sessionUpdate: 'agent_message_chunk', content: { type: 'text', text: s('output') } });
          }
          const usage = parseTokenCounts(ev.usage);
          this.endValue = { status, ...(s('error') !== '' ? { error: s('error') } : {}), ...(usage !== undefined ? { usage } : {}) };
        }
    }
  }
}
