/**
 * Runner runs over the non-ACP transports: the built runner (`dist/cli.js`) against the fake TUI
 * Gateway (started by the runner over stdio through a stand-in interpreter, or attached over
 * WebSocket) and the fake API Server (test/agents/fakeTuiGateway.md, fakeApiServer.md): the
 * replayed recordings of Hermes v0.19.0 by default, the documented newer gateway with `next`.
 */
import * as fs from 'node:fs';
import * as path from 'node:path';
import { FakeProcess, fakeApiServerJs, fakeTuiGatewayJs } from '../transports/transportRig';
import { runCli, type CliOptions, type CliRun } from './cliHarness';

export const gatewayToken = 'gw-token-5f1e2d';
export const apiKey = 'api-key-9c8b7a';

/** How a test reaches the agent: the flags after the common ones, the environment, and how to stop it. */
export interface TransportTarget {
  readonly flags: readonly string[];
  readonly env: Readonly<Record<string, string>>;
  /** The fake's frame or request record (JSON lines), when it keeps one. */
  readonly recordFile: string;
  stop(): Promise<void>;
}

/**
 * A stand-in for the Hermes install's Python: the runner starts `<python> -m tui_gateway.entry`
 * with the checkout on PYTHONPATH; this script says what it got (and its pid) on stderr and runs
 * the fake gateway on stdio in its place.
 */
export type Generation = 'v0.19' | 'next';

export function stdioGateway(dir: string, generation: Generation = 'v0.19', env: Readonly<Record<string, string>> = {}): TransportTarget {
  const root = path.join(dir, 'hermes-checkout');
  fs.mkdirSync(root, { recursive: true });
  const python = path.join(dir, 'python');
  fs.writeFileSync(
    python,
    `#!/bin/sh\necho "stand-in python pid $$: $* PYTHONPATH=$PYTHONPATH" >&2\nexec "${process.execPath}" "${fakeTuiGatewayJs}" --stdio --generation ${generation}\n`,
    { mode: 0o755 },
  );
  const recordFile = path.join(dir, 'gateway-frames.jsonl');
  return {
    flags: ['--transport', 'tui-gateway', '--python', python, '--hermes-root', root],
    env: { FAKE_GATEWAY_RECORD: recordFile, ...env },
    recordFile,
    stop: () => Promise.resolve(),
  };
}

/** The fake gateway on WebSocket (token required), attached with `--gateway-url` and HERMES_GATEWAY_TOKEN. */
export async function webSocketGateway(dir: string, env: Readonly<Record<string, string>> = {}, generation: Generation = 'v0.19'): Promise<TransportTarget> {
  const recordFile = path.join(dir, 'gateway-frames.jsonl');
  const fake = new FakeProcess(fakeTuiGatewayJs, ['--ws', '--token', gatewayToken, '--generation', generation], { FAKE_GATEWAY_RECORD: recordFile, ...env });
  const { port } = await fake.ready;
  return {
    flags: ['--transport', 'tui-gateway', '--gateway-url', `ws://127.0.0.1:${port}/api/ws`],
    env: { HERMES_GATEWAY_TOKEN: gatewayToken },
    recordFile,
    stop: () => fake.stop(),
  };
}

/** The fake API Server (key required), reached with `--base-url` and HERMES_API_KEY. */
export async function apiServer(dir: string, mode: 'chat' | 'runs' = 'chat'): Promise<TransportTarget> {
  const recordFile = path.join(dir, 'api-requests.jsonl');
  const fake = new FakeProcess(fakeApiServerJs, ['--key', apiKey], { FAKE_API_RECORD: recordFile });
  const { port } = await fake.ready;
  return {
    flags: ['--transport', 'api-server', '--base-url', `http://127.0.0.1:${port}`, ...(mode === 'runs' ? ['--api-mode', 'runs'] : [])],
    env: { HERMES_API_KEY: apiKey },
    recordFile,
    stop: () => fake.stop(),
  };
}

/** One stream-json run over `target`, writing the traffic log to `<dir>/traffic.jsonl`. */
export function runOver(target: TransportTarget, dir: string, query: string, extra: readonly string[] = [], options: CliOptions = {}): Promise<CliRun> {
  return runCli(['-q', query, '--format', 'stream-json', '--traffic-log', path.join(dir, 'traffic.jsonl'), ...target.flags, ...extra], {
    cwd: dir,
    ...options,
    env: { ...target.env, ...options.env },
  });
}

/** Everything the run wrote anywhere: stdout, stderr and the traffic log. */
export function allOutput(run: CliRun, dir: string): string {
  const traffic = path.join(dir, 'traffic.jsonl');
  return `${run.stdout}\n${run.stderr}\n${fs.existsSync(traffic) ? fs.readFileSync(traffic, 'utf8') : ''}`;
}

/** The fake's record, one parsed JSON line each ([] when it kept none). */
export function records(target: TransportTarget): Record<string, unknown>[] {
  if (!fs.existsSync(target.recordFile)) {
    return [];
  }
  return fs
    .readFileSync(target.recordFile, 'utf8')
    .split('\n')
    .filter((l) => l !== '')
    .map((l) => JSON.parse(l) as Record<string, unknown>);
}
