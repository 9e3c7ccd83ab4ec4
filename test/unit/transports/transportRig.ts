/**
 * Clients for the transport tests: a real adapter (talking to a fake server process started by the
 * test) feeding a real SessionController, with the permission port routed to that controller and a
 * scripted question port — the way the chat layer wires them.
 */
import type * as acp from '@agentclientprotocol/sdk';
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as path from 'node:path';
import { createInterface } from 'node:readline';
import { TrafficLog } from '../../../src/wire/trafficLog';
import type { AgentConnection } from '../../../src/agentPort/agentConnection';
import { SessionController, type PendingPermission } from '../../../src/session/sessionController';
import { defaultQuirks, type Entry, type ToolEntry } from '../../../src/session/sessionState';
import type { QuestionPort, TransportPorts } from '../../../src/agentPort/questionPort';
import { until } from '../../support/wait';

export const repoRoot = path.resolve(__dirname, '../../../..');
export const fakeTuiGatewayJs = path.join(repoRoot, 'out', 'test', 'agents', 'fakeTuiGateway.js');
export const fakeApiServerJs = path.join(repoRoot, 'out', 'test', 'agents', 'fakeApiServer.js');

/** A fake server process; `ready` resolves with what its READY line said. */
export class FakeProcess {
  readonly child: ChildProcessWithoutNullStreams;
  readonly ready: Promise<{ port: number }>;
  stderr = '';

  constructor(script: string, args: readonly string[], env: Readonly<Record<string, string>> = {}) {
    this.child = spawn(process.execPath, [script, ...args], { env: { ...process.env, ...env }, stdio: 'pipe' });
    this.child.stderr.setEncoding('utf8').on('data', (s: string) => (this.stderr += s));
    this.child.stdin.on('error', () => undefined);
    this.ready = new Promise((resolve, reject) => {
      createInterface({ input: this.child.stdout }).on('line', (line) => {
        const m = /^FAKE_[A-Z_]+_READY (.*)$/.exec(line);
        if (m?.[1] !== undefined) {
          resolve(JSON.parse(m[1]) as { port: number });
        }
      });
      this.child.once('exit', (code) => reject(new Error(`fake server exited (${String(code)}): ${this.stderr}`)));
    });
  }

  async stop(): Promise<void> {
    if (this.child.exitCode !== null || this.child.signalCode !== null) {
      return;
    }
    const gone = new Promise((resolve) => this.child.once('exit', resolve));
    this.child.stdin.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), 2000);
    await gone;
    clearTimeout(timer);
  }
}

/** Question answers decided by the test; every question asked is recorded. */
export class ScriptedQuestions {
  readonly asked: { kind: string; request: unknown; signal: AbortSignal }[] = [];
  port: QuestionPort = {};

  record<T>(kind: string, request: unknown, signal: AbortSignal, answer: () => Promise<T>): Promise<T> {
    this.asked.push({ kind, request, signal });
    return answer();
  }
}

let ids = 0;

export interface Client<C extends AgentConnection> {
  readonly connection: C;
  readonly controller: SessionController;
  readonly log: TrafficLog;
  readonly questions: ScriptedQuestions;
  readonly permissions: PendingPermission[];
}

/** The ports a client's adapter is built with; the controller is bound once it exists. */
export function clientPorts(): { ports: TransportPorts; questions: ScriptedQuestions; bind: (c: SessionController) => void } {
  let controller: SessionController | undefined;
  const questions = new ScriptedQuestions();
  const ports: TransportPorts = {
    permission: {
      requestPermission: (params: acp.RequestPermissionRequest, signal: AbortSignal) =>
        controller?.requestPermission(params, signal) ?? Promise.resolve({ outcome: { outcome: 'cancelled' } }),
    },
    get questions(): QuestionPort {
      return questions.port;
    },
  };
  return { ports, questions, bind: (c) => (controller = c) };
}

export function makeClient<C extends AgentConnection>(connection: C, log: TrafficLog, wiring: ReturnType<typeof clientPorts>): Client<C> {
  const controller = new SessionController({ connection, cwd: repoRoot, quirks: defaultQuirks, now: Date.now, newId: () => `e${++ids}` });
  wiring.bind(controller);
  const permissions: PendingPermission[] = [];
  controller.onPermissionRequested((p) => permissions.push(p));
  return { connection, controller, log, questions: wiring.questions, permissions };
}

export function newLog(): TrafficLog {
  return new TrafficLog();
}

/** All assistant text of the transcript, in order. */
export function assistantText(entries: readonly Entry[]): string {
  return entries
    .flatMap((e) => (e.kind === 'assistant' ? e.parts.flatMap((p) => (p.kind === 'text' ? [p.text] : [])) : []))
    .join('');
}

export function userTexts(entries: readonly Entry[]): string[] {
  return entries.flatMap((e) => (e.kind === 'user' ? [e.blocks.map((b) => (b.type === 'text' ? b.text : '')).join('')] : []));
}

export function tools(entries: readonly Entry[]): ToolEntry[] {
  return entries.filter((e): e is ToolEntry => e.kind === 'tool');
}

export function waitForText(client: Client<AgentConnection>, needle: string, ms = 10_000): Promise<true> {
  return until(`assistant text containing ${JSON.stringify(needle)}`, () => assistantText(client.controller.state.entries).includes(needle) || undefined, ms);
}
