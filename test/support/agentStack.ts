import type * as acp from '@agentclientprotocol/sdk';
import { AcpClient, type RequestTimeouts } from '../../src/acp/acpConnection';
import { AgentProcess, type AgentCommand } from '../../src/wire/agentProcess';
import type { ClientPorts, FileSystemPort, TerminalPort } from '../../src/agentPort/clientPorts';
import { TrafficLog } from '../../src/wire/trafficLog';
import { quirksFor } from '../../src/session/agentQuirks';
import { SessionController } from '../../src/session/sessionController';
import { defaultQuirks } from '../../src/session/sessionState';
import { replayAgentPath, scriptedAgentPath } from './paths';
import { tempDir } from './tempDirs';

/** A real agent process, the real client core and one session controller wired as the extension wires them. */
export interface AgentStack {
  readonly proc: AgentProcess;
  readonly client: AcpClient;
  readonly log: TrafficLog;
  readonly controller: SessionController;
  readonly cwd: string;
  /** Every permission request the agent sent, in order. */
  readonly permissionRequests: acp.RequestPermissionRequest[];
  /** Extra sessions' controllers by session id (permission requests route to them). */
  readonly controllers: Map<string, SessionController>;
  dispose(): Promise<void>;
}

export interface StackOptions {
  readonly env?: Record<string, string>;
  readonly cwd?: string;
  readonly fs?: FileSystemPort;
  readonly terminal?: TerminalPort;
  readonly timeouts?: Partial<RequestTimeouts>;
  /** Clock for the controller (golden tests use a fake one). */
  readonly now?: () => number;
  readonly capabilities?: ConstructorParameters<typeof AcpClient>[1]['capabilities'];
}

/** A temporary workspace folder, removed when the test process exits. */
export function tempWorkspace(prefix = 'hermes-ws-'): string {
  return tempDir(prefix);
}

export function scriptedAgentCommand(cwd: string, env: Record<string, string> = {}): AgentCommand {
  return { command: process.execPath, args: [scriptedAgentPath], cwd, env };
}

export function replayAgentCommand(cwd: string, fixture: string, extraArgs: readonly string[] = []): AgentCommand {
  return { command: process.execPath, args: [replayAgentPath, fixture, '--lab', cwd, ...extraArgs], cwd };
}

/** Spawns an agent, initializes, and builds a controller whose permission requests route to it. */
export async function startStack(command: AgentCommand, options: StackOptions = {}): Promise<AgentStack> {
  const proc = await AgentProcess.start(command, { killGraceMs: 1000 });
  const log = new TrafficLog();
  proc.onStderrLine((line) => log.append({ dir: 'stderr', kind: 'text', size: line.length, text: line }));
  let ids = 0;
  const permissionRequests: acp.RequestPermissionRequest[] = [];
  const holder: { controller?: SessionController } = {};
  const controllers = new Map<string, SessionController>();
  const ports: ClientPorts = {
    permission: {
      requestPermission: (params, signal) => {
        permissionRequests.push(params);
        const c = controllers.get(params.sessionId) ?? holder.controller;
        return c === undefined ? Promise.resolve({ outcome: { outcome: 'cancelled' } }) : c.requestPermission(params, signal);
      },
    },
    ...(options.fs !== undefined ? { fs: options.fs } : {}),
    ...(options.terminal !== undefined ? { terminal: options.terminal } : {}),
  };
  const client = new AcpClient(proc, {
    clientInfo: { name: 'hermes-acp-tests', version: '0.0.0' },
    ports,
    log,
    ...(options.timeouts !== undefined ? { timeouts: options.timeouts } : {}),
    ...(options.capabilities !== undefined ? { capabilities: options.capabilities } : {}),
  });
  try {
    await client.initialize();
  } catch (e) {
    await proc.dispose();
    throw e;
  }
  const controller = new SessionController({
    connection: client,
    cwd: command.cwd,
    quirks: quirksFor(client.agent?.agentInfo) ?? defaultQuirks,
    now: options.now ?? Date.now,
    newId: () => `e${++ids}`,
  });
  holder.controller = controller;
  client.closed.then((exit) => controller.agentExited(exit.message, exit.stderrTail), () => undefined);
  return {
    proc,
    client,
    log,
    controller,
    cwd: command.cwd,
    permissionRequests,
    controllers,
    dispose: async () => {
      for (const c of controllers.values()) {
        c.dispose();
      }
      controller.dispose();
      client.dispose();
      await proc.dispose();
    },
  };
}

/** Resolves when `predicate` holds for the controller's state (checked on every change), or rejects after `ms`. */
export function waitForState(controller: SessionController, predicate: () => boolean, ms = 5000): Promise<void> {
  if (predicate()) {
    return Promise.resolve();
  }
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`condition not met within ${ms} ms`));
    }, ms);
    const sub = controller.onDidChange(() => {
      if (predicate()) {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  });
}

export function textOf(blocks: readonly { type: string; text?: string }[]): string {
  return blocks.map((b) => (b.type === 'text' ? (b.text ?? '') : '')).join('');
}
