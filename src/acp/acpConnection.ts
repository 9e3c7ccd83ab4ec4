import type { Readable, Writable } from 'node:stream';
import * as acp from '@agentclientprotocol/sdk';
import type { Disposable } from '../util/disposable';
import { Emitter } from '../util/emitter';
import { AgentWire } from './agentWire';
import { buildClientApp } from './clientHandlers';
import type { AgentConnection } from '../agentPort/agentConnection';
import type { ClientPorts } from '../agentPort/clientPorts';
import { AgentProtocolError, type AgentExitedError } from '../agentPort/agentErrors';
import { decodeLine, LineReader } from '../wire/lineReader';
import { defaultTimeouts, guardRequest, type CallOptions, type RequestTimeouts } from './requestGuard';
import { SlicedFeed } from './slicedFeed';
import type { TrafficLog } from '../wire/trafficLog';
import { zLoadSessionResponse, zNewSessionResponse, zResumeSessionResponse, zSetSessionConfigOptionResponse } from './sdkSchema';
import { UpdateDispatcher, type UpdateProblem } from './updateDispatch';
import { checkSetupResponse, type SetupSchema } from './updateValidation';

export { defaultTimeouts, type CallOptions, type RequestTimeouts } from './requestGuard';

/** The process side of a connection: AgentProcess satisfies it; tests may pass plain streams. */
export interface AgentTransport {
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves (never rejects) when the agent is gone. */
  readonly exited: Promise<AgentExitedError>;
  markStdoutActivity?(): void;
}

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
export class AcpClient implements AgentConnection, Disposable {
  private readonly conn: acp.ClientConnection;
  private readonly log: TrafficLog;
  private readonly timeouts: RequestTimeouts;
  private toSdk!: ReadableStreamDefaultController<acp.AnyMessage>;
  private readonly wire: AgentWire;
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
    this.wire = new AgentWire({ log: this.log, updates: this.updates, stdin: transport.stdin, forward: (msg) => this.forward(msg), isExited: () => this.exitError !== undefined });
    const readable = new ReadableStream<acp.AnyMessage>({
      start: (controller) => {
        this.toSdk = controller;
      },
    });
    const writable = new WritableStream<acp.AnyMessage>({
      write: (msg) => this.wire.write(msg),
    });
    this.conn = buildClientApp(options.clientInfo.name, options.ports).connect({ readable, writable });

    const reader = new LineReader(
      {
        line: (bytes) => this.wire.onLine(bytes),
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
    while (this.wire.unansweredCount > 0 && this.exitError === undefined && Date.now() < deadline) {
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
  private guard<T>(method: string, send: (signal: AbortSignal | undefined) => Promise<T>, options: CallOptions, cancellable: boolean): Promise<T> {
    return guardRequest(method, send, options, cancellable, {
      exitError: this.exitError,
      exitRejection: this.exitRejection,
      defaultTimeoutMs: this.timeouts.other,
      log: this.log,
    });
  }

  private forward(msg: acp.AnyMessage): void {
    try {
      this.toSdk.enqueue(msg);
    } catch {
      // the SDK side is closed (agent exited); the message is in the traffic log
    }
  }
}

function delay(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}
