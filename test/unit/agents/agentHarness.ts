/**
 * Spawns the test agents as real processes and talks to them with the SDK's client side, or with
 * raw NDJSON. Every process goes into a {@link ProcessPool} that the suites empty in `teardown`.
 */
import * as acp from '@agentclientprotocol/sdk';
import type {
  ClientCapabilities,
  CreateTerminalRequest,
  RequestPermissionRequest,
  RequestPermissionResponse,
  SessionNotification,
  SessionUpdate,
  TerminalExitStatus,
} from '@agentclientprotocol/sdk';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { Readable, Writable } from 'node:stream';

/** Repository root, from out/test/unit/agents (where the compiled tests run). */
export const repoRoot = path.resolve(__dirname, '../../../..');
export const scriptedAgentJs = path.join(repoRoot, 'dist', 'agents', 'scriptedAgent.js');
export const replayAgentJs = path.join(repoRoot, 'out', 'test', 'agents', 'replayAgent.js');

export function fixturePath(...parts: string[]): string {
  return path.join(repoRoot, 'test', 'fixtures', ...parts);
}

export interface ExitInfo {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

export function withTimeout<T>(promise: Promise<T>, ms: number, what: string): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Error(`timed out after ${ms} ms: ${what}`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export class AgentProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly exited: Promise<ExitInfo>;
  stderr = '';
  private stderrListeners: (() => void)[] = [];

  constructor(script: string, args: readonly string[], env: Readonly<Record<string, string>>, cwd?: string) {
    this.child = spawn(process.execPath, [script, ...args], {
      env: { ...process.env, ...env },
      stdio: 'pipe',
      ...(cwd === undefined ? {} : { cwd }),
    });
    // A dead agent makes writes fail with EPIPE; the tests look at the exit instead.
    this.child.stdin.on('error', () => undefined);
    this.child.stderr.setEncoding('utf8').on('data', (s: string) => {
      this.stderr += s;
      for (const l of this.stderrListeners) {
        l();
      }
    });
    this.exited = new Promise<ExitInfo>((resolve) => {
      this.child.on('exit', (code, signal) => resolve({ code, signal }));
    });
  }

  get isRunning(): boolean {
    return this.child.exitCode === null && this.child.signalCode === null;
  }

  /** Resolves with the first match of `re` in stderr (already written or yet to come). */
  waitForStderr(re: RegExp, timeoutMs = 5000): Promise<RegExpMatchArray> {
    return withTimeout(
      new Promise<RegExpMatchArray>((resolve) => {
        const check = (): void => {
          const m = re.exec(this.stderr);
          if (m !== null) {
            this.stderrListeners = this.stderrListeners.filter((l) => l !== check);
            resolve(m);
          }
        };
        this.stderrListeners.push(check);
        check();
      }),
      timeoutMs,
      `stderr ${String(re)}; stderr so far:\n${this.stderr}`,
    );
  }

  async kill(): Promise<void> {
    if (this.isRunning) {
      this.child.kill('SIGKILL');
    }
    await this.exited;
  }
}

/** Owns spawned processes so `teardown` can kill every one of them. */
export class ProcessPool {
  private readonly procs: AgentProcess[] = [];

  spawn(script: string, args: readonly string[] = [], env: Readonly<Record<string, string>> = {}, cwd?: string): AgentProcess {
    const p = new AgentProcess(script, args, env, cwd);
    this.procs.push(p);
    return p;
  }

  async killAll(): Promise<void> {
    await Promise.all(this.procs.splice(0).map((p) => p.kill()));
  }
}

export interface PendingPermission {
  readonly params: RequestPermissionRequest;
  answer(response: RequestPermissionResponse): void;
}

export type ClientEvent = { readonly kind: 'update'; readonly params: SessionNotification } | { readonly kind: 'mark'; readonly label: string };

interface FakeTerminal {
  output: string;
  exit: TerminalExitStatus | undefined;
  done: Promise<TerminalExitStatus>;
}

/**
 * An SDK client connected to an agent process: records updates in arrival order, queues
 * permission requests for the test to answer, and offers in-memory `fs/*` and real `terminal/*`.
 */
export class TestClient {
  readonly connection: acp.ClientConnection;
  readonly events: ClientEvent[] = [];
  readonly files = new Map<string, string>();
  readonly fsCalls: { method: string; path: string }[] = [];
  readonly terminalCalls: { method: string; params: unknown }[] = [];
  /** When set, `fs/write_text_file` fails with this message. */
  failWrites: string | undefined;
  private readonly pendingPermissions: PendingPermission[] = [];
  private permissionWaiters: (() => void)[] = [];
  private updateWaiters: (() => void)[] = [];
  private readonly terminals = new Map<string, FakeTerminal>();

  constructor(readonly proc: AgentProcess) {
    const stream = acp.ndJsonStream(
      Writable.toWeb(proc.child.stdin),
      Readable.toWeb(proc.child.stdout),
    );
    this.connection = acp
      .client({ name: 'agent-tests' })
      .onNotification('session/update', ({ params }) => {
        this.events.push({ kind: 'update', params });
        for (const w of this.updateWaiters.splice(0)) {
          w();
        }
      })
      .onRequest(
        'session/request_permission',
        ({ params }) =>
          new Promise<RequestPermissionResponse>((resolve) => {
            this.pendingPermissions.push({ params, answer: resolve });
            for (const w of this.permissionWaiters.splice(0)) {
              w();
            }
          }),
      )
      .onRequest('fs/read_text_file', ({ params }) => {
        this.fsCalls.push({ method: 'fs/read_text_file', path: params.path });
        const content = this.files.get(params.path);
        if (content === undefined) {
          throw acp.RequestError.resourceNotFound(params.path);
        }
        const lines = content.split('\n');
        const from = (params.line ?? 1) - 1;
        return { content: lines.slice(from, params.limit == null ? undefined : from + params.limit).join('\n') };
      })
      .onRequest('fs/write_text_file', ({ params }) => {
        this.fsCalls.push({ method: 'fs/write_text_file', path: params.path });
        if (this.failWrites !== undefined) {
          throw new acp.RequestError(-32603, this.failWrites);
        }
        this.files.set(params.path, params.content);
        return {};
      })
      .onRequest('terminal/create', ({ params }) => ({ terminalId: this.createTerminal(params) }))
      .onRequest('terminal/output', ({ params }) => {
        const t = this.terminal('terminal/output', params);
        return { output: t.output, truncated: false, ...(t.exit === undefined ? {} : { exitStatus: t.exit }) };
      })
      .onRequest('terminal/wait_for_exit', async ({ params }) => this.terminal('terminal/wait_for_exit', params).done)
      .onRequest('terminal/kill', ({ params }) => {
        this.terminal('terminal/kill', params);
        return {};
      })
      .onRequest('terminal/release', ({ params }) => {
        this.terminal('terminal/release', params);
        this.terminals.delete(params.terminalId);
        return {};
      })
      .connect(stream);
    proc.child.on('exit', () => this.connection.close(new Error('agent exited')));
  }

  get agent(): acp.ClientContext {
    return this.connection.agent;
  }

  mark(label: string): void {
    this.events.push({ kind: 'mark', label });
  }

  async initialize(clientCapabilities: ClientCapabilities = {}): Promise<acp.InitializeResponse> {
    return this.agent.request('initialize', {
      protocolVersion: acp.PROTOCOL_VERSION,
      clientCapabilities,
      clientInfo: { name: 'agent-tests', version: '0.0.0' },
    });
  }

  /** Updates received so far, optionally for one session. */
  updates(sessionId?: string): SessionUpdate[] {
    return this.events.flatMap((e) =>
      e.kind === 'update' && (sessionId === undefined || e.params.sessionId === sessionId) ? [e.params.update] : [],
    );
  }

  /** Concatenated text of the agent message chunks of a session. */
  messageText(sessionId: string): string {
    return this.updates(sessionId)
      .map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
      .join('');
  }

  async waitForUpdate(predicate: (u: SessionUpdate) => boolean, timeoutMs = 5000): Promise<SessionUpdate> {
    return withTimeout(
      (async () => {
        for (;;) {
          const found = this.updates().find(predicate);
          if (found !== undefined) {
            return found;
          }
          await new Promise<void>((r) => this.updateWaiters.push(r));
        }
      })(),
      timeoutMs,
      'session/update',
    );
  }

  /** The next permission request not yet taken. */
  async nextPermission(timeoutMs = 5000): Promise<PendingPermission> {
    return withTimeout(
      (async () => {
        for (;;) {
          const p = this.pendingPermissions.shift();
          if (p !== undefined) {
            return p;
          }
          await new Promise<void>((r) => this.permissionWaiters.push(r));
        }
      })(),
      timeoutMs,
      'session/request_permission',
    );
  }

  private terminal(method: string, params: { terminalId: string }): FakeTerminal {
    this.terminalCalls.push({ method, params });
    const t = this.terminals.get(params.terminalId);
    if (t === undefined) {
      throw acp.RequestError.resourceNotFound(params.terminalId);
    }
    return t;
  }

  private createTerminal(params: CreateTerminalRequest): string {
    this.terminalCalls.push({ method: 'terminal/create', params });
    const id = `term-${this.terminals.size + 1}`;
    const child = spawn(params.command, params.args ?? [], { ...(params.cwd == null ? {} : { cwd: params.cwd }), stdio: 'pipe' });
    const t: FakeTerminal = {
      output: '',
      exit: undefined,
      done: new Promise<TerminalExitStatus>((resolve) => {
        child.on('exit', (code, signal) => {
          t.exit = { exitCode: code, signal };
          resolve(t.exit);
        });
      }),
    };
    child.stdout.setEncoding('utf8').on('data', (s: string) => (t.output += s));
    child.stderr.setEncoding('utf8').on('data', (s: string) => (t.output += s));
    this.terminals.set(id, t);
    return id;
  }
}

/** Raw NDJSON peer for agents whose exact bytes matter. */
export class RawPeer {
  readonly lines: string[] = [];
  private buffer = '';
  private waiters: (() => void)[] = [];

  constructor(readonly proc: AgentProcess) {
    proc.child.stdout.setEncoding('utf8').on('data', (s: string) => {
      this.buffer += s;
      let nl: number;
      while ((nl = this.buffer.indexOf('\n')) >= 0) {
        this.lines.push(this.buffer.slice(0, nl));
        this.buffer = this.buffer.slice(nl + 1);
      }
      for (const w of this.waiters.splice(0)) {
        w();
      }
    });
  }

  send(message: unknown): void {
    this.proc.child.stdin.write(`${JSON.stringify(message)}\n`);
  }

  /** Waits until a received line satisfies `predicate`; returns it. */
  async waitForLine(predicate: (line: string) => boolean, timeoutMs = 5000): Promise<string> {
    return withTimeout(
      (async () => {
        for (;;) {
          const found = this.lines.find(predicate);
          if (found !== undefined) {
            return found;
          }
          await new Promise<void>((r) => this.waiters.push(r));
        }
      })(),
      timeoutMs,
      'stdout line',
    );
  }
}
