import type { Writable } from 'node:stream';
import type * as acp from '@agentclientprotocol/sdk';
import { isObject } from '../util/json';
import { decodeLine } from '../wire/lineReader';
import type { TrafficLog } from '../wire/trafficLog';
import type { UpdateDispatcher } from './updateDispatch';

export interface AgentWireOptions {
  readonly log: TrafficLog;
  readonly updates: UpdateDispatcher;
  readonly stdin: Writable;
  /** Hands a message on to the SDK side of the connection. */
  readonly forward: (msg: acp.AnyMessage) => void;
  /** The agent exited: nothing more is written. */
  readonly isExited: () => boolean;
}

/**
 * The wire between the SDK and the agent's stdio: every line in either direction goes to the
 * traffic log with its kind, method, id and size. Incoming lines that are not JSON-RPC, and
 * responses to ids we never sent, are logged and dropped; `session/update` goes straight to the
 * {@link UpdateDispatcher}; the rest is forwarded to the SDK. Outgoing messages are written with
 * backpressure, or logged as not sent once the agent's input is closed.
 */
export class AgentWire {
  private readonly log: TrafficLog;
  private readonly pendingIds = new Set<string | number>();
  /** Agent → client requests not yet answered on the wire. */
  private readonly unanswered = new Set<string | number>();

  constructor(private readonly options: AgentWireOptions) {
    this.log = options.log;
  }

  /** Agent → client requests not yet answered on the wire. */
  get unansweredCount(): number {
    return this.unanswered.size;
  }

  /** One line from the agent's stdout. */
  onLine(bytes: Uint8Array): void {
    const { text, invalidUtf8 } = decodeLine(bytes);
    let msg: unknown;
    try {
      msg = JSON.parse(text);
    } catch (e) {
      this.log.append({ dir: 'in', kind: 'invalid', size: bytes.length, text, note: `not JSON: ${(e as Error).message}` });
      return;
    }
    const utf8Note = invalidUtf8 ? 'invalid UTF-8 replaced' : undefined;
    if (!isObject(msg)) {
      this.log.append({ dir: 'in', kind: 'invalid', size: bytes.length, text, note: 'not a JSON-RPC object' });
      return;
    }
    const method = msg.method;
    const id = msg.id;
    const hasId = typeof id === 'string' || typeof id === 'number';
    if (typeof method === 'string') {
      if (!hasId) {
        if (method === 'session/update') {
          this.options.updates.dispatch(msg.params, text, bytes.length, utf8Note);
          return;
        }
        this.log.append({ dir: 'in', kind: 'notification', method, size: bytes.length, text, ...(utf8Note !== undefined ? { note: utf8Note } : {}) });
      } else {
        this.unanswered.add(id);
        this.log.append({ dir: 'in', kind: 'request', method, id, size: bytes.length, text, ...(utf8Note !== undefined ? { note: utf8Note } : {}) });
      }
      this.options.forward(msg as acp.AnyMessage);
      return;
    }
    if (hasId && ('result' in msg || 'error' in msg)) {
      const kind = 'error' in msg ? 'error' : 'response';
      if (!this.pendingIds.delete(id)) {
        this.log.append({ dir: 'in', kind: 'ignored', id, size: bytes.length, text, note: 'response to an unknown request id' });
        return;
      }
      this.log.append({ dir: 'in', kind, id, size: bytes.length, text, ...(utf8Note !== undefined ? { note: utf8Note } : {}) });
      this.options.forward(msg as acp.AnyMessage);
      return;
    }
    this.log.append({ dir: 'in', kind: 'invalid', size: bytes.length, text, note: 'not a JSON-RPC request, response or notification' });
  }

  /** A message from the SDK to the agent; resolves when the agent has read it (or died). */
  write(msg: acp.AnyMessage): Promise<void> | undefined {
    const line = JSON.stringify(msg);
    const rec = msg as Partial<Record<'id' | 'method', unknown>>;
    const id = rec.id;
    const method = typeof rec.method === 'string' ? rec.method : undefined;
    const hasId = typeof id === 'string' || typeof id === 'number';
    if (method !== undefined && hasId) {
      this.pendingIds.add(id);
    }
    if (method === undefined && hasId) {
      this.unanswered.delete(id);
    }
    const kind = method === undefined ? ('error' in msg ? 'error' : 'response') : hasId ? 'request' : 'notification';
    const stdin = this.options.stdin;
    const writable = !this.options.isExited() && !stdin.destroyed && !stdin.writableEnded;
    this.log.append({
      dir: 'out',
      kind,
      size: Buffer.byteLength(line) + 1,
      text: line,
      ...(method !== undefined ? { method } : {}),
      ...(hasId ? { id } : {}),
      ...(writable ? {} : { note: "not sent: the agent's input is closed" }),
    });
    if (!writable) {
      return undefined;
    }
    if (stdin.write(`${line}\n`)) {
      return undefined;
    }
    // Backpressure: wait for the agent to read, unless it dies first.
    return new Promise<void>((resolve) => {
      const done = (): void => {
        stdin.off('drain', done);
        stdin.off('close', done);
        resolve();
      };
      stdin.once('drain', done);
      stdin.once('close', done);
    });
  }
}
