import type { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { Disposable } from '../util/disposable';
import { Emitter } from '../util/emitter';
import { isObject } from '../util/json';
import type { ClientPorts } from './clientPorts';
import { AgentProtocolError, AgentTimeoutError, ClientRequestError, RpcCode, type AgentExitedError } from './errors';
import { decodeLine, LineReader } from './lineReader';
import { SlicedFeed } from './slicedFeed';
import type { TrafficLog } from './trafficLog';
import { zLoadSessionResponse, zNewSessionResponse, zResumeSessionResponse, zSetSessionConfigOptionResponse } from './sdkSchema';
import { UpdateDispatcher, type UpdateProblem } from './updateDispatch';
import { checkSetupResponse, type SetupSchema } from './updateValidation';

/** The process side of a connection: AgentProcess satisfies it; tests may pass plain streams. */
export interface AgentTransport {
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves (never rejects) when the agent is gone. */
  readonly exited: Promise<AgentExitedError>;
  markStdoutActivity?(): void;
}

/** Per-method answer deadlines. ACP itself has none, and the SDK adds none (`@agentclientprotocol/sdk` 2.4: a request waits until answered or the connection closes). */
export interface RequestTimeouts {
  /** Hermes needs ~12 s when no provider is configured (provider auto-detection); be generous. */
  readonly initialize: number;
  /** session/new, load, resume, fork: Hermes builds an agent per session (2–3 s); load replays history. */
  readonly session: number;
  /** A whole prompt turn. Long, but finite: a wedged agent must not hold the chat forever. */
  readonly prompt: number;
  /** Everything else (list, set_mode, close, …). */
  readonly other: number;
}

export const defaultTimeouts: RequestTimeouts = {
  initialize: 60_000,
  session: 120_000,
  prompt: 60 * 60_000,
  other: 30_000,
};

export interface AcpClientOptions {
  readonly clientInfo: acp.Implementation;
  readonly ports: ClientPorts;
  readonly log: TrafficLog;
  readonly timeouts?: Partial<RequestTimeouts>;
  /** Longest accepted stdout line; longer lines are skipped and logged (the SDK would close the connection). */
  readonly maxLineBytes?: number;
  /** Extra client capabilities beyond fs/terminal, which follow the ports. */
  readonly capabilities?: Omit<acp.ClientCapabilities, 'fs' | 'terminal'>;
}

export interface CallOptions {
  readonly timeoutMs?: number;
  readonly signal?: AbortSignal;
}

/** Unstable / removed methods Hermes still serves, called through the SDK's untyped overload. */
export interface ForkSessionRequest {
  readonly sessionId: string;
  readonly cwd: string;
  readonly mcpServers: acp.McpServer[];
  readonly _meta?: Record<string, unknown>;
}
export interface ForkSessionResponse {
  readonly sessionId: string;
  readonly modes?: acp.SessionModeState | null;
  readonly configOptions?: acp.SessionConfigOption[] | null;
  readonly models?: unknown;
  readonly _meta?: Record<string, unknown> | null;
}

/**
 * An ACP v1 client connection over an agent's stdio, built on the SDK's app API.
 *
 * - Framing is ours (see {@link LineReader}): malformed, oversized and non-UTF-8 lines are logged
 *   and skipped; nothing on the wire can close the connection except the agent exiting.
 * - `session/update` takes a fast path straight to {@link onSessionUpdate} (synchronously, in wire
 *   order); requests, responses and other notifications go through the SDK.
 * - Every outgoing request races the agent's exit and a timeout, so nothing waits forever.
 */
export class AcpClient implements Disposable {
  private readonly conn: acp.ClientConnection;
  private readonly log: TrafficLog;
  private readonly timeouts: RequestTimeouts;
  private toSdk!: ReadableStreamDefaultController<acp.AnyMessage>;
  private readonly pendingIds = new Set<string | number>();
  /** Agent → client requests not yet answered on the wire. */
  private readonly unanswered = new Set<string | number>();
  private closing = false;
  private exitError: AgentExitedError | undefined;
  private readonly exitRejection: Promise<never>;
  private readonly updates: UpdateDispatcher;
  private readonly onDidCloseEmitter = new Emitter<AgentExitedError>();
  /** Every valid `session/update`, whatever its session (for observers such as the traffic view). */
  readonly onAnyUpdate: UpdateDispatcher['onAnyUpdate'];
  /** The agent exited (or was stopped); all pending requests have been rejected. */
  readonly onDidClose = this.onDidCloseEmitter.event;
  /** Resolves with the exit reason once the connection is closed. */
  readonly closed: Promise<AgentExitedError>;
  private initializeResponse: acp.InitializeResponse | undefined;

  constructor(
    private readonly transport: AgentTransport,
    private readonly options: AcpClientOptions,
  ) {
    this.log = options.log;
    this.timeouts = { ...defaultTimeouts, ...options.timeouts };
    this.updates = new UpdateDispatcher(this.log);
    this.onAnyUpdate = this.updates.onAnyUpdate;
    const readable = new ReadableStream<acp.AnyMessage>({
      start: (controller) => {
        this.toSdk = controller;
      },
    });
    const writable = new WritableStream<acp.AnyMessage>({
      write: (msg) => this.writeToAgent(msg),
    });
    this.conn = this.buildApp().connect({ readable, writable });

    const reader = new LineReader(
      {
        line: (bytes) => this.onLine(bytes),
        oversized: (total, prefix) =>
          this.log.append({
            dir: 'in',
            kind: 'oversized',
            size: total,
            text: decodeLine(prefix).text,
            note: `line of ${total} bytes exceeds the ${this.maxLineBytes} byte limit; skipped`,
          }),
      },
      this.maxLineBytes,
    );
    const feed = new SlicedFeed(transport.stdout, reader);
    const stdoutEnded = new Promise<void>((resolve) => {
      transport.stdout.on('data', (chunk: Uint8Array) => {
        transport.markStdoutActivity?.();
        feed.push(chunk);
      });
      transport.stdout.once('end', () => {
        void feed.drained().then(() => {
          reader.end();
          resolve();
        });
      });
      transport.stdout.once('error', () => resolve());
    });

    this.closed = transport.exited.then(async (exit) => {
      // Deliver what the agent wrote before it died, then fail everything still waiting.
      await Promise.race([stdoutEnded, delay(250)]);
      this.exitError = exit;
      this.log.note(`agent exited: ${exit.message}${exit.stderrTail !== '' ? `\n${exit.stderrTail}` : ''}`);
      this.conn.close(exit);
      try {
        this.toSdk.close();
      } catch {
        // already closed
      }
      this.onDidCloseEmitter.fire(exit);
      return exit;
    });
    this.exitRejection = this.closed.then((e) => Promise.reject(e));
    this.exitRejection.catch(() => undefined);
  }

  private get maxLineBytes(): number {
    return this.options.maxLineBytes ?? 64 * 1024 * 1024;
  }

  /** The agent's answer to `initialize` (after {@link initialize} resolved). */
  get agent(): acp.InitializeResponse | undefined {
    return this.initializeResponse;
  }

  get isClosed(): boolean {
    return this.exitError !== undefined;
  }

  /** What we advertise: only what the ports given to us implement. */
  get clientCapabilities(): acp.ClientCapabilities {
    const { ports } = this.options;
    return {
      ...this.options.capabilities,
      fs: { readTextFile: ports.fs !== undefined, writeTextFile: ports.fs !== undefined },
      terminal: ports.terminal !== undefined,
    };
  }

  /** `initialize` with protocol version 1; rejects with {@link AgentProtocolError} on a version we do not speak. */
  async initialize(options: CallOptions = {}): Promise<acp.InitializeResponse> {
    const res = await this.call(
      acp.methods.agent.initialize,
      { protocolVersion: acp.PROTOCOL_VERSION, clientCapabilities: this.clientCapabilities, clientInfo: this.options.clientInfo },
      { timeoutMs: this.timeouts.initialize, ...options },
    );
    if (res.protocolVersion !== acp.PROTOCOL_VERSION) {
      // ACP initialization: a client that does not support the returned version SHOULD close the connection.
      throw new AgentProtocolError(
        `The agent speaks ACP version ${String(res.protocolVersion)}; this extension speaks version ${acp.PROTOCOL_VERSION}.`,
      );
    }
    this.initializeResponse = res;
    return res;
  }

  authenticate(methodId: string): Promise<acp.AuthenticateResponse> {
    return this.call(acp.methods.agent.authenticate, { methodId });
  }

  newSession(params: acp.NewSessionRequest): Promise<acp.NewSessionResponse> {
    return this.call(acp.methods.agent.session.new, params, { timeoutMs: this.timeouts.session }).then((r) => this.checked(r, zNewSessionResponse));
  }

  /** The agent replays history as `session/update`s before answering: subscribe to the session first. */
  loadSession(params: acp.LoadSessionRequest): Promise<acp.LoadSessionResponse> {
    return this.call(acp.methods.agent.session.load, params, { timeoutMs: this.timeouts.session }).then((r) => this.checked(r, zLoadSessionResponse));
  }

  resumeSession(params: acp.ResumeSessionRequest): Promise<acp.ResumeSessionResponse> {
    return this.call(acp.methods.agent.session.resume, params, { timeoutMs: this.timeouts.session }).then((r) => this.checked(r, zResumeSessionResponse));
  }

  listSessions(params: acp.ListSessionsRequest): Promise<acp.ListSessionsResponse> {
    return this.call(acp.methods.agent.session.list, params);
  }

  closeSession(sessionId: string): Promise<acp.CloseSessionResponse> {
    return this.call(acp.methods.agent.session.close, { sessionId });
  }

  /** `session/fork` is unstable in ACP v1; Hermes and Claude serve it. */
  forkSession(params: ForkSessionRequest): Promise<ForkSessionResponse> {
    return this.callUntyped<ForkSessionResponse>('session/fork', params, { timeoutMs: this.timeouts.session }).then((r) => this.checked(r, zNewSessionResponse));
  }

  prompt(params: acp.PromptRequest, options: CallOptions = {}): Promise<acp.PromptResponse> {
    // No $/cancel_request for prompts: a turn is cancelled with session/cancel (ACP prompt-turn).
    return this.call(acp.methods.agent.session.prompt, params, { timeoutMs: this.timeouts.prompt, ...options }, false);
  }

  /** `session/cancel` (a notification). Callers must only send it while a prompt is in flight. */
  async cancel(sessionId: string): Promise<void> {
    if (this.exitError !== undefined) {
      return;
    }
    await this.conn.agent.notify(acp.methods.agent.session.cancel, { sessionId });
  }

  setMode(sessionId: string, modeId: string): Promise<acp.SetSessionModeResponse> {
    return this.call(acp.methods.agent.session.setMode, { sessionId, modeId });
  }

  setConfigOption(params: acp.SetSessionConfigOptionRequest): Promise<acp.SetSessionConfigOptionResponse> {
    return this.call(acp.methods.agent.session.setConfigOption, params).then((r) => this.checked(r, zSetSessionConfigOptionResponse));
  }

  /** Legacy `session/set_model` (removed from ACP, still served by Hermes with `provider:model` ids). */
  setModel(sessionId: string, modelId: string): Promise<unknown> {
    return this.callUntyped('session/set_model', { sessionId, modelId });
  }

  /** A session setup answer with its `modes`/`configOptions` checked against the SDK's schema (it checks no responses itself). */
  private checked<T>(response: T, schema: SetupSchema): T {
    const { value, note } = checkSetupResponse(response, schema);
    if (note !== undefined) {
      this.log.note(note);
    }
    return value;
  }

  /** Any other request, typed by the caller. */
  callUntyped<T>(method: string, params: unknown, options: CallOptions = {}): Promise<T> {
    return this.guard(
      method,
      (signal) => this.conn.agent.request<T>(method, params, signal !== undefined ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {}),
      options,
      true,
    );
  }

  /**
   * Routes `session/update`s of one session to a listener, synchronously and in wire order.
   * Updates that arrived before anyone listened (e.g. right after `session/new`, before its
   * response was processed) are delivered first.
   */
  subscribeSession(sessionId: string, listener: (n: acp.SessionNotification) => void, onProblem?: (p: UpdateProblem) => void): Disposable {
    return this.updates.subscribe(sessionId, listener, onProblem);
  }

  /**
   * Ends the conversation politely: answers the agent is still owed (a permission settled a moment
   * ago is written by the SDK a task later) get up to `graceMs` to reach the wire, then stdin closes.
   */
  async close(graceMs = 250): Promise<void> {
    if (this.closing) {
      return;
    }
    this.closing = true;
    const deadline = Date.now() + graceMs;
    while (this.unanswered.size > 0 && this.exitError === undefined && Date.now() < deadline) {
      await new Promise<void>((resolve) => setTimeout(resolve, 5));
    }
    this.dispose();
  }

  /** Closes stdin at once; the process itself is the caller's to dispose. */
  dispose(): void {
    this.closing = true;
    this.updates.dispose();
    this.transport.stdin.end();
  }

  private call<M extends keyof acp.AgentRequestResponsesByMethod  >(
    method: M,
    params: acp.AgentRequestParamsByMethod[M],
    options: CallOptions = {},
    cancellable = true,
  ): Promise<acp.AgentRequestResponsesByMethod[M]> {
    return this.guard(
      method,
      (signal) =>
        this.conn.agent.request(method, params, signal !== undefined ? { cancellationSignal: signal, stopWaitingOnCancel: true } : {}),
      options,
      cancellable,
    );
  }

  /** Races a request against the agent's exit, a timeout and the caller's signal. */
  private async guard<T>(
    method: string,
    send: (signal: AbortSignal | undefined) => Promise<T>,
    options: CallOptions,
    cancellable: boolean,
  ): Promise<T> {
    if (this.exitError !== undefined) {
      throw this.exitError;
    }
    const timeoutMs = options.timeoutMs ?? this.timeouts.other;
    const abort = cancellable ? new AbortController() : undefined;
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        const err = new AgentTimeoutError(method, timeoutMs);
        this.log.note(err.message);
        // Settle first: aborting makes the SDK reject the request too (and send $/cancel_request).
        reject(err);
        abort?.abort(err);
      }, timeoutMs);
    });
    const onCallerAbort = (): void => abort?.abort(options.signal?.reason);
    options.signal?.addEventListener('abort', onCallerAbort, { once: true });
    try {
      return await Promise.race([send(abort?.signal), this.exitRejection, timeout]);
    } finally {
      clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerAbort);
    }
  }

  private buildApp(): acp.ClientApp {
    const { ports } = this.options;
    const app = acp
      .client({ name: this.options.clientInfo.name })
      .onRequest(acp.methods.client.session.requestPermission, ({ params, signal }) => ports.permission.requestPermission(params, signal));
    const fs = ports.fs;
    if (fs !== undefined) {
      app
        .onRequest(acp.methods.client.fs.readTextFile, ({ params, signal }) => wireErrors(fs.readTextFile(params, signal)))
        .onRequest(acp.methods.client.fs.writeTextFile, ({ params, signal }) => wireErrors(fs.writeTextFile(params, signal)));
    }
    const t = ports.terminal;
    if (t !== undefined) {
      app
        .onRequest(acp.methods.client.terminal.create, ({ params, signal }) => wireErrors(t.createTerminal(params, signal)))
        .onRequest(acp.methods.client.terminal.output, ({ params, signal }) => wireErrors(t.terminalOutput(params, signal)))
        .onRequest(acp.methods.client.terminal.waitForExit, ({ params, signal }) => wireErrors(t.waitForTerminalExit(params, signal)))
        .onRequest(acp.methods.client.terminal.kill, ({ params, signal }) => wireErrors(t.killTerminal(params, signal)))
        .onRequest(acp.methods.client.terminal.release, ({ params, signal }) => wireErrors(t.releaseTerminal(params, signal)));
    }
    // Unhandled agent requests get -32601 from the SDK (that includes non-`_` extension methods such as
    // Qwen's craft/drainMidTurnQueue); unhandled notifications are ignored. Both are in the traffic log.
    return app;
  }

  private onLine(bytes: Uint8Array): void {
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
          this.updates.dispatch(msg.params, text, bytes.length, utf8Note);
          return;
        }
        this.log.append({ dir: 'in', kind: 'notification', method, size: bytes.length, text, ...(utf8Note !== undefined ? { note: utf8Note } : {}) });
      } else {
        this.unanswered.add(id);
        this.log.append({ dir: 'in', kind: 'request', method, id, size: bytes.length, text, ...(utf8Note !== undefined ? { note: utf8Note } : {}) });
      }
      this.forward(msg as acp.AnyMessage);
      return;
    }
    if (hasId && ('result' in msg || 'error' in msg)) {
      const kind = 'error' in msg ? 'error' : 'response';
      if (!this.pendingIds.delete(id)) {
        this.log.append({ dir: 'in', kind: 'ignored', id, size: bytes.length, text, note: 'response to an unknown request id' });
        return;
      }
      this.log.append({ dir: 'in', kind, id, size: bytes.length, text, ...(utf8Note !== undefined ? { note: utf8Note } : {}) });
      this.forward(msg as acp.AnyMessage);
      return;
    }
    this.log.append({ dir: 'in', kind: 'invalid', size: bytes.length, text, note: 'not a JSON-RPC request, response or notification' });
  }

  private forward(msg: acp.AnyMessage): void {
    try {
      this.toSdk.enqueue(msg);
    } catch {
      // the SDK side is closed (agent exited); the message is in the traffic log
    }
  }

  private writeToAgent(msg: acp.AnyMessage): Promise<void> | undefined {
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
    const stdin = this.transport.stdin;
    const writable = this.exitError === undefined && !stdin.destroyed && !stdin.writableEnded;
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

/**
 * Ports throw {@link ClientRequestError}; the SDK only sends the code of its own RequestError and
 * answers anything else `-32603`. A file that vanished between the boundary check and the read (Node's
 * `ENOENT`, VS Code's `FileNotFound`) is ACP's "resource not found", `-32002`, not an internal error.
 */
async function wireErrors<T>(p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (ClientRequestError.is(e)) {
      throw new acp.RequestError(e.code, e.message, e.data);
    }
    const code = isObject(e) || e instanceof Error ? (e as { code?: unknown }).code : undefined;
    if (code === 'ENOENT' || code === 'ENOTDIR' || code === 'FileNotFound') {
      throw new acp.RequestError(RpcCode.resourceNotFound, e instanceof Error ? e.message : 'Resource not found');
    }
    throw e;
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
