/**
 * One rig run: a fresh HOME and workspace, the model server with the scenario, the agent's setup,
 * then the headless runner (`node dist/cli.js --format stream-json …`) with the agent, an optional
 * SIGINT mid-turn, a scan for processes left behind (and their removal), an optional
 * `session/load` in a new agent process, and what happened to the workspace.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import type { AgentProfile, Launch } from './agentProfiles';
import type { LoadResult } from './loadSession';
import { defaultTarget, startModelServer, targetOriginalContent, type LogEntry } from './modelServer';
import { isObject, type JsonObject } from './modelTypes';
import { findRunProcesses, stopProcesses, type FoundProcess } from './procScan';
import type { RigScenario } from './rigScenarios';

export const markerName = 'HERMES_RIG_RUN';

export interface RigPaths {
  /** The repository (for dist/cli.js and dist/realAgents/loadSession.js). */
  readonly repo: string;
  /** `node_modules` of the agents' install. */
  readonly modules: string;
  /** Directory of the `node` the agents run on (first on their PATH). */
  readonly nodeBin: string;
  readonly out: string;
}

export interface Leftovers {
  readonly found: readonly FoundProcess[];
  /** PIDs still alive after SIGTERM + SIGKILL. */
  readonly survived: readonly number[];
}

export interface RunRecord {
  readonly agent: string;
  readonly scenario: string;
  readonly runDir: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly events: readonly JsonObject[];
  /** stdout lines that were not JSON objects (the contract allows none). */
  readonly badLines: readonly string[];
  readonly stderrTail: readonly string[];
  readonly setupError?: string;
  /** Processes the setup commands left running (stopped before the run). */
  readonly setupLeftovers: Leftovers;
  readonly model: readonly LogEntry[];
  readonly file: 'edited' | 'unchanged' | 'changed otherwise' | 'missing';
  readonly shellRan: boolean;
  readonly interruptedAfterMs?: number;
  /** The rig had to kill the runner (it outlived its own --timeout by far). */
  readonly rigKilledRunner: boolean;
  readonly leftovers: Leftovers;
  readonly load?: LoadResult | { readonly error: string };
  readonly loadLeftovers?: Leftovers;
  readonly durationMs: number;
}

interface Exit {
  readonly code: number | null;
  readonly signal: string | null;
}

function waitExit(child: ChildProcess): Promise<Exit> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) {
      resolve({ code: child.exitCode, signal: child.signalCode });
      return;
    }
    child.once('exit', (code, signal) => resolve({ code, signal }));
  });
}

function killGroup(child: ChildProcess): void {
  if (child.pid !== undefined) {
    try {
      process.kill(-child.pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

function baseEnv(paths: RigPaths, home: string, tmp: string, runId: string, launch: Launch): Record<string, string> {
  return {
    PATH: [path.join(paths.modules, '.bin'), paths.nodeBin, '/usr/local/bin', '/usr/bin', '/bin'].join(':'),
    HOME: home,
    USER: process.env.USER ?? 'rig',
    LOGNAME: process.env.USER ?? 'rig',
    SHELL: '/bin/bash',
    LANG: 'C.UTF-8',
    TERM: 'dumb',
    NO_COLOR: '1',
    TMPDIR: tmp,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    XDG_DATA_HOME: path.join(home, '.local', 'share'),
    XDG_CACHE_HOME: path.join(home, '.cache'),
    XDG_STATE_HOME: path.join(home, '.local', 'state'),
    NO_PROXY: '127.0.0.1,localhost',
    no_proxy: '127.0.0.1,localhost',
    [markerName]: runId,
    ...launch.env,
  };
}

async function sweep(runId: string, home: string, exclude: readonly number[]): Promise<Leftovers> {
  const found = findRunProcesses(markerName, runId, home, exclude);
  const survived = found.length > 0 ? await stopProcesses(found.map((p) => p.pid)) : [];
  return { found, survived };
}

async function runSetup(launch: Launch, env: Record<string, string>, cwd: string, runDir: string): Promise<string | undefined> {
  let n = 0;
  for (const step of launch.setup) {
    const child = spawn(step.command, [...step.args], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const out: Buffer[] = [];
    child.stdout?.on('data', (d: Buffer) => out.push(d));
    child.stderr?.on('data', (d: Buffer) => out.push(d));
    const timer = setTimeout(() => killGroup(child), 120_000);
    const exit = await waitExit(child);
    clearTimeout(timer);
    writeFileSync(path.join(runDir, `setup-${String(++n)}.txt`), Buffer.concat(out));
    if (exit.code !== 0) {
      return `${path.basename(step.command)} ${step.args[0] ?? ''} exited ${String(exit.code ?? exit.signal)}: ${Buffer.concat(out).toString('utf8').trim().slice(-300)}`;
    }
  }
  return undefined;
}

async function runLoad(paths: RigPaths, launch: Launch, env: Record<string, string>, cwd: string, runDir: string, sessionId: string): Promise<LoadResult | { error: string }> {
  const script = path.join(paths.repo, 'dist', 'realAgents', 'loadSession.js');
  const args = [script, '--session', sessionId, '--cwd', cwd, '--traffic-log', path.join(runDir, 'load-traffic.jsonl'), '--', launch.command, ...launch.args];
  const child = spawn(process.execPath, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  child.stdout?.on('data', (d: Buffer) => out.push(d));
  child.stderr?.on('data', (d: Buffer) => err.push(d));
  const timer = setTimeout(() => killGroup(child), 240_000);
  const exit = await waitExit(child);
  clearTimeout(timer);
  writeFileSync(path.join(runDir, 'load-stderr.txt'), Buffer.concat(err));
  const last = Buffer.concat(out).toString('utf8').trim().split('\n').at(-1) ?? '';
  try {
    const parsed: unknown = JSON.parse(last);
    if (isObject(parsed)) {
      return parsed as unknown as LoadResult;
    }
  } catch {
    // fall through
  }
  return { error: `load script exited ${String(exit.code ?? exit.signal)}: ${Buffer.concat(err).toString('utf8').slice(-300)}` };
}

function fileState(cwd: string): RunRecord['file'] {
  const file = path.join(cwd, defaultTarget(cwd).file);
  if (!existsSync(file)) {
    return 'missing';
  }
  const now = readFileSync(file, 'utf8');
  return now === targetOriginalContent ? 'unchanged' : now === defaultTarget(cwd).newContent ? 'edited' : 'changed otherwise';
}

export async function runOne(paths: RigPaths, agent: AgentProfile, scenario: RigScenario, log: (s: string) => void): Promise<RunRecord> {
  const started = Date.now();
  const runDir = path.join(paths.out, agent.id, scenario.id);
  const home = path.join(runDir, 'home');
  const cwd = path.join(runDir, 'ws');
  const tmp = path.join(runDir, 'tmp');
  for (const d of [home, cwd, tmp]) {
    mkdirSync(d, { recursive: true });
  }
  writeFileSync(path.join(cwd, defaultTarget(cwd).file), targetOriginalContent);
  const runId = `${agent.id}-${scenario.id}-${String(started)}`;
  const server = await startModelServer({
    scenario: scenario.server,
    prompt: scenario.prompt,
    target: defaultTarget(cwd),
    logFile: path.join(runDir, 'model.jsonl'),
    bodiesDir: path.join(runDir, 'bodies'),
  });
  try {
    const launch = agent.prepare({ origin: server.origin, home, cwd, modules: paths.modules });
    const env = baseEnv(paths, home, tmp, runId, launch);
    writeFileSync(path.join(runDir, 'launch.json'), `${JSON.stringify({ command: launch.command, args: launch.args, env: launch.env, setup: launch.setup }, null, 2)}\n`);
    const setupError = await runSetup(launch, env, cwd, runDir);
    const setupLeft = await sweep(runId, home, []);
    if (setupLeft.found.length > 0) {
      log(`  setup left ${String(setupLeft.found.length)} process(es) behind; stopped them`);
    }
    const trafficLog = path.join(runDir, 'traffic.jsonl');
    const cliArgs = [
      path.join(paths.repo, 'dist', 'cli.js'),
      '--format', 'stream-json',
      '--traffic-log', trafficLog,
      '--permissions', scenario.permissions,
      '--cwd', cwd,
      '--timeout', String(scenario.timeoutSec),
      '-q', scenario.prompt,
      '--',
      launch.command,
      ...launch.args,
    ];
    const runner = spawn(process.execPath, cliArgs, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true });
    const events: JsonObject[] = [];
    const badLines: string[] = [];
    const stderr: string[] = [];
    let stdoutRest = '';
    let firstText: number | undefined;
    runner.stdout?.on('data', (d: Buffer) => {
      stdoutRest += d.toString('utf8');
      const lines = stdoutRest.split('\n');
      stdoutRest = lines.pop() ?? '';
      for (const line of lines.filter((l) => l.trim() !== '')) {
        try {
          const v: unknown = JSON.parse(line);
          if (isObject(v)) {
            events.push(v);
            if (v.type === 'text' && firstText === undefined) {
              firstText = Date.now();
            }
            continue;
          }
        } catch {
          // not JSON
        }
        badLines.push(line);
      }
    });
    let stderrRest = '';
    runner.stderr?.on('data', (d: Buffer) => {
      stderrRest += d.toString('utf8');
      const lines = stderrRest.split('\n');
      stderrRest = lines.pop() ?? '';
      stderr.push(...lines);
    });
    const exited = waitExit(runner);
    let interruptedAfterMs: number | undefined;
    let rigKilledRunner = false;
    const hardCap = setTimeout(() => {
      rigKilledRunner = true;
      killGroup(runner);
    }, (scenario.timeoutSec + 90) * 1000);
    if (scenario.interrupt) {
      // Interrupt once the reply streams; if no text arrives, 8 s after the model got the turn.
      const spawnedAt = Date.now();
      while (runner.exitCode === null && runner.signalCode === null) {
        const mainAt = server.entries.find((e) => e.role === 'main');
        const ready = (firstText !== undefined && Date.now() - firstText > 1000) || (mainAt !== undefined && Date.now() - started - mainAt.ms > 8000);
        if (ready && runner.pid !== undefined) {
          interruptedAfterMs = Date.now() - spawnedAt;
          process.kill(runner.pid, 'SIGINT');
          break;
        }
        await sleep(200);
      }
    }
    const exit = await exited;
    clearTimeout(hardCap);
    writeFileSync(path.join(runDir, 'events.jsonl'), events.map((e) => JSON.stringify(e)).join('\n') + (events.length > 0 ? '\n' : ''));
    writeFileSync(path.join(runDir, 'stderr.txt'), `${stderr.join('\n')}${stderrRest}`);
    // Give exiting children a moment, then look for anything of this run still alive.
    await sleep(2000);
    const leftovers = await sweep(runId, home, []);
    let load: RunRecord['load'];
    let loadLeftovers: Leftovers | undefined;
    const result = [...events].reverse().find((e) => e.type === 'result');
    const sessionId = typeof result?.session_id === 'string' ? result.session_id : undefined;
    if (scenario.loadAfter && sessionId !== undefined && sessionId !== '') {
      log('  session/load in a new agent process');
      load = await runLoad(paths, launch, env, cwd, runDir, sessionId);
      await sleep(2000);
      loadLeftovers = await sweep(runId, home, []);
    }
    return {
      agent: agent.id,
      scenario: scenario.id,
      runDir,
      exitCode: exit.code,
      signal: exit.signal,
      events,
      badLines,
      stderrTail: stderr.slice(-15),
      ...(setupError !== undefined ? { setupError } : {}),
      setupLeftovers: setupLeft,
      model: server.entries,
      file: fileState(cwd),
      shellRan: existsSync(path.join(cwd, 'rig-shell-proof.txt')),
      ...(interruptedAfterMs !== undefined ? { interruptedAfterMs } : {}),
      rigKilledRunner,
      leftovers,
      ...(load !== undefined ? { load } : {}),
      ...(loadLeftovers !== undefined ? { loadLeftovers } : {}),
      durationMs: Date.now() - started,
    };
  } finally {
    await server.close();
  }
}
