import { existsSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { Emitter } from '../util/emitter';
import { loadChunk } from '../util/lazyChunk';
import { AgentExitedError, AgentNotFoundError, AgentSpawnError } from './errors';
import type * as ProcessSpawn from './processSpawn';
import { flatPrefix } from './trafficLog';

/** What to run. `env` entries overlay the inherited environment. */
export interface AgentCommand {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface AgentProcessOptions {
  /** Stderr lines kept for error reports. */
  readonly stderrLines?: number;
  /** Time between SIGTERM and SIGKILL on dispose (some agents ignore SIGTERM: Gemini, opencode, Cline). */
  readonly killGraceMs?: number;
  /** After exit, how long to wait for the last stdout/stderr bytes (Zed: EXIT_DRAIN_TIMEOUT). */
  readonly exitDrainMs?: number;
}

const liveGroups = new Set<number>();
let exitHookInstalled = false;

/** If the host process dies, take the agents (and their children) with it. */
function installExitHook(): void {
  if (exitHookInstalled) {
    return;
  }
  exitHookInstalled = true;
  process.once('exit', () => {
    for (const pid of liveGroups) {
      killTree(pid, 'SIGKILL');
    }
  });
}

const groupKill = process.platform !== 'win32';

function killTree(pid: number, signal: NodeJS.Signals): void {
  try {
    // The agent leads its own process group: one signal reaches every child it started.
    process.kill(groupKill ? -pid : pid, signal);
  } catch {
    // already gone
  }
}

/**
 * One agent child process with pipes on all three streams. Stderr is drained into a bounded ring
 * (an undrained pipe would block the agent); exit becomes an {@link AgentExitedError} carrying the
 * stderr tail. `dispose()` ends the process group (SIGTERM, then SIGKILL) and resolves when it is gone.
 */
export class AgentProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves (never rejects) once the process has exited and its output was drained. */
  readonly exited: Promise<AgentExitedError>;
  private readonly stderrRing: string[] = [];
  private stderrPartial = '';
  /** Index into the stderr line count at the last stdout activity (Zed trailing_stderr). */
  private stderrMarkAtStdout = 0;
  private stderrTotal = 0;
  private disposing = false;
  private exitError: AgentExitedError | undefined;
  private readonly onStderrLineEmitter = new Emitter<string>();
  readonly onStderrLine = this.onStderrLineEmitter.event;

  private constructor(
    child: ChildProcess,
    readonly spec: AgentCommand,
    private readonly options: Required<AgentProcessOptions>,
  ) {
    if (child.pid === undefined || child.stdin === null || child.stdout === null || child.stderr === null) {
      throw new Error('agent process has no pid or pipes');
    }
    this.pid = child.pid;
    this.stdin = child.stdin;
    this.stdout = child.stdout;
    liveGroups.add(this.pid);
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => this.onStderrData(s));
    // Writes after the agent died raise EPIPE on stdin; the exit path reports that, not a crash.
    this.stdin.on('error', () => undefined);
    this.exited = new Promise<AgentExitedError>((resolve) => {
      child.once('exit', (code, signal) => {
        liveGroups.delete(this.pid);
        const done = (): void => {
          this.flushStderrPartial();
          this.exitError = new AgentExitedError(code, signal, this.stderrTail(), this.disposing);
          resolve(this.exitError);
        };
        if (child.stdout?.readableEnded === true && child.stderr?.readableEnded === true) {
          done();
          return;
        }
        // Give the pipes a moment to deliver what the agent wrote just before it died.
        const timer = setTimeout(done, this.options.exitDrainMs);
        child.once('close', () => {
          clearTimeout(timer);
          done();
        });
      });
    });
  }

  /**
   * Starts the agent. Rejects with {@link AgentNotFoundError} when the executable does not exist,
   * {@link AgentSpawnError} for other spawn failures; never throws synchronously.
   */
  static async start(spec: AgentCommand, options: AgentProcessOptions = {}): Promise<AgentProcess> {
    if (!existsSync(spec.cwd) || !statSync(spec.cwd).isDirectory()) {
      throw new AgentSpawnError(spec.command, 'ENOENT', new Error(`working directory ${spec.cwd} does not exist`));
    }
    installExitHook();
    const { execa } = loadChunk<typeof ProcessSpawn>(__dirname, 'processSpawn');
    const child = execa(spec.command, [...spec.args], {
      cwd: spec.cwd,
      env: { ...spec.env },
      extendEnv: true,
      stdin: 'pipe',
      stdout: 'pipe',
      stderr: 'pipe',
      buffer: false,
      reject: false,
      cleanup: false, // our own exit hook kills the whole process group
      detached: groupKill,
      windowsHide: true,
      encoding: 'buffer',
    });
    // With reject:false execa's promise never rejects; it settles on exit and is not needed further.
    void child.then(() => undefined);
    await new Promise<void>((resolve, reject) => {
      const onSpawn = (): void => {
        child.off('error', onError);
        resolve();
      };
      const onError = (err: NodeJS.ErrnoException): void => {
        child.off('spawn', onSpawn);
        if (err.code === 'ENOENT') {
          reject(new AgentNotFoundError(spec.command, spec.env?.PATH ?? process.env.PATH));
        } else {
          reject(new AgentSpawnError(spec.command, err.code, err));
        }
      };
      child.once('spawn', onSpawn);
      child.once('error', onError);
    });
    return new AgentProcess(child, spec, {
      stderrLines: options.stderrLines ?? 200,
      killGraceMs: options.killGraceMs ?? 3000,
      exitDrainMs: options.exitDrainMs ?? 250,
    });
  }

  get isRunning(): boolean {
    return this.exitError === undefined;
  }

  /** Call whenever the agent wrote to stdout, so the tail reports only what came after. */
  markStdoutActivity(): void {
    this.stderrMarkAtStdout = this.stderrTotal;
  }

  /**
   * The stderr lines written after the last stdout activity (what explains a crash), or the last
   * lines when there are none.
   */
  stderrTail(maxLines = 40): string {
    const trailing = this.stderrTotal - this.stderrMarkAtStdout;
    const count = Math.min(trailing > 0 ? trailing : maxLines, maxLines, this.stderrRing.length);
    return this.stderrRing.slice(this.stderrRing.length - count).join('\n');
  }

  /** Ends the process and everything it started; resolves once it has exited. Idempotent. */
  async dispose(): Promise<void> {
    if (this.exitError !== undefined) {
      return;
    }
    this.disposing = true;
    this.stdin.end();
    killTree(this.pid, 'SIGTERM');
    const timer = setTimeout(() => killTree(this.pid, 'SIGKILL'), this.options.killGraceMs);
    await this.exited;
    clearTimeout(timer);
    // The leader is gone; make sure no child it forked survives.
    killTree(this.pid, 'SIGKILL');
    this.onStderrLineEmitter.dispose();
  }

  /** Kills the agent without a grace period (tests, and "agent is wedged" restarts). */
  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    killTree(this.pid, signal);
  }

  private onStderrData(s: string): void {
    const text = this.stderrPartial + s;
    const lines = text.split('\n');
    this.stderrPartial = lines.pop() ?? '';
    for (const line of lines) {
      this.pushStderrLine(line.replace(/\r$/, ''));
    }
    // A runaway line without newlines must not grow without bound.
    if (this.stderrPartial.length > 64 * 1024) {
      this.pushStderrLine(this.stderrPartial);
      this.stderrPartial = '';
    }
  }

  private flushStderrPartial(): void {
    if (this.stderrPartial !== '') {
      this.pushStderrLine(this.stderrPartial);
      this.stderrPartial = '';
    }
  }

  private pushStderrLine(line: string): void {
    const kept = line.length > 4096 ? `${flatPrefix(line, 4096)}…` : line;
    this.stderrRing.push(kept);
    this.stderrTotal++;
    if (this.stderrRing.length > this.options.stderrLines) {
      this.stderrRing.shift();
    }
    if (this.onStderrLineEmitter.hasListeners) {
      this.onStderrLineEmitter.fire(kept);
    }
  }
}
