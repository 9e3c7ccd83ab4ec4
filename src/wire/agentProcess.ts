import { existsSync, statSync } from 'node:fs';
import type { Readable, Writable } from 'node:stream';
import { defaultLauncher, type LaunchedProcess, type ProcessLauncher } from '../process/launcher';
import { StderrTail } from '../process/stderrTail';
import { AgentExitedError, AgentNotFoundError, AgentSpawnError } from '../agentPort/agentErrors';

/** What to run. `env` entries overlay the (cleaned) inherited environment. */
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
  /** Who starts the process (tests: a simulated platform). */
  readonly launcher?: ProcessLauncher;
}

/**
 * One agent child process with pipes on all three streams, started by the {@link ProcessLauncher}
 * with a watchdog (the agent dies with the host, even a SIGKILLed one). Stderr is drained into a
 * bounded {@link StderrTail} (an undrained pipe would block the agent); exit becomes an
 * {@link AgentExitedError} carrying the stderr tail. `dispose()` ends the process tree (SIGTERM,
 * then SIGKILL) and resolves when it is gone.
 */
export class AgentProcess {
  readonly pid: number;
  readonly stdin: Writable;
  readonly stdout: Readable;
  /** Resolves (never rejects) once the process has exited and its output was drained. */
  readonly exited: Promise<AgentExitedError>;
  private readonly stderr: StderrTail;
  private disposing = false;
  private exitError: AgentExitedError | undefined;
  readonly onStderrLine: StderrTail['onLine'];

  private constructor(
    private readonly launched: LaunchedProcess,
    readonly spec: AgentCommand,
    private readonly options: Required<Omit<AgentProcessOptions, 'launcher'>>,
  ) {
    const child = launched.child;
    if (child.pid === undefined || child.stdin === null || child.stdout === null || child.stderr === null) {
      throw new Error('agent process has no pid or pipes');
    }
    this.pid = child.pid;
    this.stdin = child.stdin;
    this.stdout = child.stdout;
    this.stderr = new StderrTail(options.stderrLines);
    this.onStderrLine = this.stderr.onLine;
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (s: string) => this.stderr.push(s));
    // Writes after the agent died raise EPIPE on stdin; the exit path reports that, not a crash.
    this.stdin.on('error', () => undefined);
    this.exited = new Promise<AgentExitedError>((resolve) => {
      child.once('exit', (code, signal) => {
        launched.untrack();
        const done = (): void => {
          this.stderr.flush();
          this.exitError = new AgentExitedError(code, signal, this.stderr.tail(), this.disposing);
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
    const killGraceMs = options.killGraceMs ?? 3000;
    const launcher = options.launcher ?? defaultLauncher();
    const launched = launcher.start({ ...spec, stdin: 'pipe', watchdog: { graceMs: killGraceMs } });
    try {
      await launched.spawned;
    } catch (e) {
      const err = e as NodeJS.ErrnoException;
      if (err.code === 'ENOENT') {
        throw new AgentNotFoundError(spec.command, spec.env?.PATH ?? process.env.PATH);
      }
      throw new AgentSpawnError(spec.command, err.code, err);
    }
    return new AgentProcess(launched, spec, {
      stderrLines: options.stderrLines ?? 200,
      killGraceMs,
      exitDrainMs: options.exitDrainMs ?? 250,
    });
  }

  get isRunning(): boolean {
    return this.exitError === undefined;
  }

  /** The watchdog's pid (tests). */
  get watchdogPid(): number | undefined {
    return this.launched.watchdogPid;
  }

  /** Call whenever the agent wrote to stdout, so the tail reports only what came after. */
  markStdoutActivity(): void {
    this.stderr.markStdoutActivity();
  }

  /**
   * The stderr lines written after the last stdout activity (what explains a crash), or the last
   * lines when there are none.
   */
  stderrTail(maxLines = 40): string {
    return this.stderr.tail(maxLines);
  }

  /** Ends the process and everything it started; resolves once it has exited. Idempotent. */
  async dispose(): Promise<void> {
    if (this.exitError !== undefined) {
      return;
    }
    this.disposing = true;
    this.stdin.end();
    this.launched.kill('SIGTERM');
    const timer = setTimeout(() => this.launched.kill('SIGKILL'), this.options.killGraceMs);
    await this.exited;
    clearTimeout(timer);
    // The leader is gone; make sure no child it forked survives.
    this.launched.kill('SIGKILL');
    this.stderr.dispose();
  }

  /** Kills the agent without a grace period (tests, and "agent is wedged" restarts). */
  kill(signal: NodeJS.Signals = 'SIGKILL'): void {
    this.launched.kill(signal);
  }
}
