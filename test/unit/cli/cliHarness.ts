/**
 * Runs the built runner (`node dist/cli.js …`) as a real process against real agent processes and
 * collects what it wrote.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { repoRoot, replayAgentPath, scriptedAgentPath } from '../../support/paths';
import { tempDir as tempFolder } from '../../support/tempDirs';
import { assertStreamOrder, assertValidEvent } from './streamContract';

export { isAlive } from '../../support/processes';

export const cliPath = path.join(repoRoot, 'dist', 'cli.js');
export const scriptedAgent: readonly string[] = [process.execPath, scriptedAgentPath];

export function replayAgent(fixture: string, lab: string, extra: readonly string[] = []): readonly string[] {
  return [process.execPath, replayAgentPath, path.join(repoRoot, 'test', 'fixtures', ...fixture.split('/')), '--lab', lab, ...extra];
}

/** A stream-json event as read back (loosely typed on purpose: the tests check the wire shape). */
export type Event = Record<string, unknown> & { readonly type: string; readonly timestamp: number };

export interface CliRun {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
  readonly startedAt: number;
  readonly endedAt: number;
}

export interface CliOptions {
  readonly cwd?: string;
  readonly env?: Record<string, string>;
  readonly stdin?: string;
  /** Called for every complete stdout line as it arrives. */
  readonly onLine?: (line: string, child: ChildProcessWithoutNullStreams) => void;
  /** Called for every stderr chunk as it arrives (with everything so far). */
  readonly onStderr?: (all: string, child: ChildProcessWithoutNullStreams) => void;
  readonly timeoutMs?: number;
}

const live = new Set<ChildProcessWithoutNullStreams>();

/** Runs keep their session records here unless a test gives its own XDG_STATE_HOME: never the user's. */
const defaultStateHome = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-cli-state-'));
process.on('exit', () => fs.rmSync(defaultStateHome, { recursive: true, force: true }));

/** Kills runner processes a failed test left behind. */
export function killLeftovers(): void {
  for (const c of live) {
    c.kill('SIGKILL');
  }
  live.clear();
}

export function runCli(args: readonly string[], options: CliOptions = {}): Promise<CliRun> {
  const startedAt = Date.now();
  const child = spawn(process.execPath, [cliPath, ...args], {
    cwd: options.cwd ?? os.tmpdir(),
    env: { ...process.env, XDG_STATE_HOME: defaultStateHome, ...options.env },
    stdio: 'pipe',
  });
  live.add(child);
  let stdout = '';
  let stderr = '';
  let partial = '';
  child.stdout.setEncoding('utf8').on('data', (s: string) => {
    stdout += s;
    const lines = (partial + s).split('\n');
    partial = lines.pop() ?? '';
    for (const line of lines) {
      options.onLine?.(line, child);
    }
  });
  child.stderr.setEncoding('utf8').on('data', (s: string) => {
    stderr += s;
    options.onStderr?.(stderr, child);
  });
  child.stdin.on('error', () => undefined);
  if (options.stdin !== undefined) {
    child.stdin.end(options.stdin);
  } else {
    child.stdin.end();
  }
  const timeoutMs = options.timeoutMs ?? 20_000;
  return new Promise<CliRun>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`hermes-acp-run did not exit within ${timeoutMs} ms\nstdout:\n${stdout}\nstderr:\n${stderr}`));
    }, timeoutMs);
    child.once('close', (code, signal) => {
      clearTimeout(timer);
      live.delete(child);
      resolve({ code, signal, stdout, stderr, startedAt, endedAt: Date.now() });
    });
  });
}

/**
 * Every stdout line parsed as JSON, each checked against the stream-json schema and the whole
 * stream against the order rules (streamContract.ts); throws with the line when one is not valid.
 */
export function events(run: CliRun): Event[] {
  const parsed = parseLines(run);
  parsed.forEach((e, i) => assertValidEvent(e, `stdout line ${i + 1}`));
  assertStreamOrder(parsed);
  return parsed;
}

function parseLines(run: CliRun): Event[] {
  const lines = run.stdout.split('\n');
  if (lines.pop() !== '') {
    throw new Error(`stdout does not end with a newline: ${JSON.stringify(run.stdout.slice(-200))}`);
  }
  return lines.map((line, i) => {
    let value: unknown;
    try {
      value = JSON.parse(line);
    } catch (e) {
      throw new Error(`stdout line ${i + 1} is not JSON (${(e as Error).message}): ${line}`, { cause: e });
    }
    if (typeof value !== 'object' || value === null || Array.isArray(value)) {
      throw new Error(`stdout line ${i + 1} is not a JSON object: ${line}`);
    }
    return value as Event;
  });
}

export function ofType(evs: readonly Event[], type: string): Event[] {
  return evs.filter((e) => e.type === type);
}

export function resultOf(evs: readonly Event[]): Event {
  const last = evs[evs.length - 1];
  if (last?.type !== 'result') {
    throw new Error(`the last event is not a result: ${JSON.stringify(last)}`);
  }
  if (evs.filter((e) => e.type === 'result').length !== 1) {
    throw new Error('more than one result event');
  }
  return last;
}

/** A temporary folder (a workspace, a state home), removed when the test process exits. */
export function tempDir(prefix = 'hermes-cli-'): string {
  return tempFolder(prefix);
}

/** The pid the scripted agent logged at start (`[scripted-agent] started, pid N`). */
export function scriptedAgentPid(stderr: string): number | undefined {
  const m = /\[scripted-agent\] started, pid (\d+)/.exec(stderr);
  return m?.[1] !== undefined ? Number(m[1]) : undefined;
}

/**
 * A fresh working directory for each test of the calling suite (`work.path`), removed after it
 * together with any runner process a failed test left behind.
 */
export function perTestDir(prefix?: string): { readonly path: string } {
  const work = { path: '' };
  setup(() => {
    work.path = tempDir(prefix);
  });
  teardown(() => {
    killLeftovers();
    fs.rmSync(work.path, { recursive: true, force: true });
  });
  return work;
}

/** Runs the CLI and sends SIGINT once a stdout line contains `text` (the turn is then mid-stream). */
export async function runInterrupted(args: readonly string[], cwd: string, text: string): Promise<CliRun> {
  let sent = false;
  const run = await runCli(args, {
    cwd,
    onLine: (line, child) => {
      if (!sent && line.includes(text)) {
        sent = true;
        child.kill('SIGINT');
      }
    },
  });
  if (!sent) {
    throw new Error(`"${text}" never appeared on stdout:\n${run.stdout}\n${run.stderr}`);
  }
  return run;
}
