/**
 * `session/load` against a real agent, on the project's own client core (src/acp): start the
 * agent, `initialize`, and when it advertises `loadSession`, load the given session and count what
 * it replays. The runner does one `session/new` only, so the rig checks loading with this.
 *   node dist/realAgents/loadSession.js --session ID --cwd DIR [--traffic-log FILE] [--timeout SEC] -- AGENT ARGS…
 * Prints one JSON line (LoadResult) on stdout; exit 0 when it could say something, 1 on a bug.
 */
import { writeFileSync } from 'node:fs';
import type * as acp from '@agentclientprotocol/sdk';
import { AcpClient } from '../../src/acp/acpConnection';
import { AgentProcess } from '../../src/wire/agentProcess';
import { TrafficLog } from '../../src/wire/trafficLog';

export interface LoadResult {
  readonly advertised: boolean;
  readonly ok: boolean;
  readonly error?: string;
  /** `sessionUpdate` kind → count of notifications replayed before the response. */
  readonly replayed: Record<string, number>;
  /** The replayed user and agent text, shortened. */
  readonly text: string;
  readonly ms: number;
}

function option(args: readonly string[], name: string): string | undefined {
  const i = args.indexOf(name);
  return i >= 0 ? args[i + 1] : undefined;
}

function errorText(e: unknown): string {
  if (e instanceof Error) {
    return e.message;
  }
  return typeof e === 'object' && e !== null ? JSON.stringify(e) : String(e);
}

async function main(): Promise<LoadResult> {
  const args = process.argv.slice(2);
  const dash = args.indexOf('--');
  const sessionId = option(args, '--session');
  const cwd = option(args, '--cwd');
  const command = dash >= 0 ? args[dash + 1] : undefined;
  if (sessionId === undefined || cwd === undefined || command === undefined) {
    throw new Error('usage: loadSession.js --session ID --cwd DIR [--traffic-log FILE] [--timeout SEC] -- AGENT ARGS…');
  }
  const timeoutMs = Number(option(args, '--timeout') ?? '180') * 1000;
  const trafficFile = option(args, '--traffic-log');
  const started = Date.now();
  const log = new TrafficLog();
  const proc = await AgentProcess.start({ command, args: args.slice(dash + 2), cwd }, { killGraceMs: 3000 });
  proc.onStderrLine((line) => log.append({ dir: 'stderr', kind: 'text', size: Buffer.byteLength(line), text: line }));
  const client = new AcpClient(proc, {
    clientInfo: { name: 'hermes-acp-rig', version: '0.0.0' },
    ports: { permission: { requestPermission: () => Promise.resolve({ outcome: { outcome: 'cancelled' } }) } },
    log,
    timeouts: { initialize: timeoutMs, session: timeoutMs },
  });
  const replayed: Record<string, number> = {};
  const texts: string[] = [];
  const finish = async (result: Omit<LoadResult, 'ms' | 'replayed' | 'text'>): Promise<LoadResult> => {
    client.dispose();
    await proc.dispose().catch(() => undefined);
    if (trafficFile !== undefined) {
      writeFileSync(trafficFile, `${log.toJsonl()}\n`);
    }
    return { ...result, replayed, text: texts.join('').slice(0, 300), ms: Date.now() - started };
  };
  let init: acp.InitializeResponse;
  try {
    init = await client.initialize();
  } catch (e) {
    return finish({ advertised: false, ok: false, error: `initialize: ${errorText(e)}` });
  }
  if (init.agentCapabilities?.loadSession !== true) {
    return finish({ advertised: false, ok: false, error: 'loadSession not advertised' });
  }
  client.subscribeSession(sessionId, (n) => {
    const kind = n.update.sessionUpdate;
    replayed[kind] = (replayed[kind] ?? 0) + 1;
    if ((kind === 'user_message_chunk' || kind === 'agent_message_chunk') && n.update.content.type === 'text') {
      texts.push(`${kind === 'user_message_chunk' ? '[user] ' : ''}${n.update.content.text}`);
    }
  });
  try {
    await client.loadSession({ sessionId, cwd, mcpServers: [] });
  } catch (e) {
    return finish({ advertised: true, ok: false, error: errorText(e) });
  }
  return finish({ advertised: true, ok: true });
}

main().then(
  (result) => {
    console.log(JSON.stringify(result));
    process.exit(0);
  },
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
