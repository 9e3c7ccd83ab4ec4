import type { ProcessLauncher } from './launcher';

/** What a short command printed and how it ended: stdout kept apart from stderr (git's plumbing output). */
export interface Captured {
  /** The process started and exited 0 within the deadline. */
  readonly ok: boolean;
  /** The executable was not found (ENOENT). */
  readonly notFound: boolean;
  readonly exitCode: number | null;
  readonly timedOut: boolean;
  readonly stdout: Buffer;
  /** Trimmed; the spawn error's message when it did not start. */
  readonly stderr: string;
  /** stdout was cut at `maxOutputBytes`. */
  readonly truncated: boolean;
}

export interface CaptureSpec {
  readonly command: string;
  readonly args: readonly string[];
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>> | undefined;
  /** Written to the process's stdin, which is then closed; absent: stdin ignored. */
  readonly input?: Buffer | string | undefined;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
}

/**
 * Runs a short command through the launcher (so it gets the clean environment, its own process
 * group and is killed with its tree after `timeoutMs`) and returns stdout and stderr separately.
 * Never rejects.
 */
export async function capture(launcher: ProcessLauncher, spec: CaptureSpec): Promise<Captured> {
  const launched = launcher.start({ command: spec.command, args: spec.args, cwd: spec.cwd, env: spec.env, stdin: spec.input !== undefined ? 'pipe' : 'ignore' });
  const out: Buffer[] = [];
  const err: Buffer[] = [];
  let outSize = 0;
  let errSize = 0;
  let truncated = false;
  launched.child.stdout?.on('data', (b: Buffer) => {
    if (outSize + b.length > spec.maxOutputBytes) {
      truncated = true;
      b = b.subarray(0, Math.max(0, spec.maxOutputBytes - outSize));
    }
    out.push(b);
    outSize += b.length;
  });
  launched.child.stderr?.on('data', (b: Buffer) => {
    if (errSize < 65_536) {
      err.push(b);
      errSize += b.length;
    }
  });
  try {
    await launched.spawned;
  } catch (e) {
    const code = (e as NodeJS.ErrnoException).code;
    return { ok: false, notFound: code === 'ENOENT', exitCode: null, timedOut: false, stdout: Buffer.alloc(0), stderr: e instanceof Error ? e.message : String(e), truncated: false };
  }
  if (spec.input !== undefined) {
    const stdin = launched.child.stdin;
    stdin?.on('error', () => undefined); // a command that exits without reading its input
    stdin?.end(spec.input);
  }
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    launched.kill('SIGKILL');
  }, spec.timeoutMs);
  const exitCode = await new Promise<number | null>((resolve) => launched.child.once('close', (c: number | null) => resolve(c)));
  clearTimeout(timer);
  launched.untrack();
  return {
    ok: exitCode === 0 && !timedOut,
    notFound: false,
    exitCode,
    timedOut,
    stdout: Buffer.concat(out),
    stderr: Buffer.concat(err).toString('utf8').trim(),
    truncated,
  };
}
