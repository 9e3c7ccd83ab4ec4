/**
 * The attach race the CI run of 2026-12-02 hit once in `tuiGatewayAttach.test.ts`: `ws` emits every
 * frame of one socket read synchronously, so the frame after a `session.activate` answer (the
 * turn's next delta, or its `message.complete`) reaches the connection before the code awaiting
 * the answer has adopted the session. Those events were dropped, and the attached chat never saw
 * the end of the turn. Here a scripted channel delivers the answer and the next events in one
 * synchronous batch, every time, so the race is not left to timing.
 */
import * as assert from 'node:assert/strict';
import type * as acp from '@agentclientprotocol/sdk';
import type { LineChannel } from '../../../src/transports/jsonRpc/lineChannel';
import { TuiGatewayConnection } from '../../../src/transports/tuiGateway/tuiGatewayConnection';
import { clientPorts, newLog } from './transportRig';

type Frame = Record<string, unknown>;

/** A gateway peer on the frame level: answers by method, and may send events right behind an answer. */
class BatchingChannel implements LineChannel {
  readonly description = 'scripted gateway channel';
  readonly closed = new Promise<Error>(() => undefined);
  private sink: ((frame: string, size: number) => void) | undefined;

  constructor(private readonly answer: (method: string, params: Frame) => { result: unknown; after?: readonly Frame[] }) {}

  start(sink: (frame: string, size: number) => void): void {
    this.sink = sink;
    this.deliver([{ jsonrpc: '2.0', method: 'event', params: { type: 'gateway.ready', payload: {} } }]);
  }

  send(frame: string): boolean {
    const msg = JSON.parse(frame) as { id?: number; method?: string; params?: Frame };
    if (msg.id !== undefined && msg.method !== undefined) {
      const { result, after = [] } = this.answer(msg.method, msg.params ?? {});
      // One read: the answer and whatever the gateway wrote behind it, delivered back to back.
      queueMicrotask(() => this.deliver([{ jsonrpc: '2.0', id: msg.id, result }, ...after]));
    }
    return true;
  }

  close(): Promise<void> {
    return Promise.resolve();
  }

  private deliver(frames: readonly Frame[]): void {
    for (const f of frames) {
      const text = JSON.stringify(f);
      this.sink?.(text, Buffer.byteLength(text));
    }
  }
}

function event(type: string, payload: Frame): Frame {
  return { jsonrpc: '2.0', method: 'event', params: { type, session_id: 'rt-live', payload } };
}

const runningSnapshot = {
  session_id: 'rt-live',
  stored_session_id: 'st-live',
  message_count: 0,
  messages: [],
  info: { model: 'm', provider: 'p', title: 'Live', running: true },
  running: true,
  inflight: { user: 'count', assistant: 'tick 1 ', streaming: true },
  open_requests: [],
};

function textOf(updates: readonly acp.SessionUpdate[]): string {
  return updates.map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : '')).join('');
}

suite('transports / TUI Gateway: events right behind an attach answer', () => {
  test('the delta and message.complete that arrive in the same read as the session.activate answer are shown after the snapshot', async () => {
    const channel = new BatchingChannel((method) =>
      method === 'session.activate'
        ? { result: runningSnapshot, after: [event('message.delta', { text: 'tick 2 ' }), event('message.complete', { text: 'tick 1 tick 2 ', status: 'complete' })] }
        : method === 'session.active_list'
          ? { result: { sessions: [{ id: 'rt-live', session_key: 'st-live', title: 'Live', status: 'working' }] } }
          : { result: {} },
    );
    const connection = new TuiGatewayConnection(channel, { log: newLog(), ports: clientPorts().ports });
    await connection.handshake();
    await connection.listLiveSessions();
    const seen: acp.SessionUpdate[] = [];
    connection.subscribeSession('rt-live', (n) => seen.push(n.update));
    await connection.loadSession({ sessionId: 'rt-live' });
    // The replayed prompt, the reply so far, then the live delta; the completion adds nothing twice.
    assert.equal(textOf(seen), 'tick 1 tick 2 ');
    assert.ok(seen.some((u) => u.sessionUpdate === 'user_message_chunk'), 'the in-flight prompt is replayed');
  });

  test('events of a session this client never opened are not shown anywhere', async () => {
    const channel = new BatchingChannel((method) =>
      method === 'session.create'
        ? { result: { session_id: 'rt-mine', messages: [], info: { running: false } }, after: [event('message.delta', { text: 'not yours' })] }
        : { result: {} },
    );
    const connection = new TuiGatewayConnection(channel, { log: newLog(), ports: clientPorts().ports });
    await connection.handshake();
    const mine: acp.SessionUpdate[] = [];
    connection.subscribeSession('rt-mine', (n) => mine.push(n.update));
    await connection.newSession({ cwd: '/w', mcpServers: [] });
    assert.equal(textOf(mine), '');
  });
});
