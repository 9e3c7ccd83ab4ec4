/**
 * A transparent wrapper around an agent, for the hardening suites:
 *
 *   node agentTap.js <tap-file> <agent.js> [agent args…]
 *
 * - Runs `node <agent.js>` as its child (same process group: the client's group kill reaches both,
 *   so every run also checks that an agent's children die with it).
 * - stdin is copied to the agent, and every complete line the client wrote is appended to the tap
 *   file as `{"pid","t","kind":"in","text"}`; stdout is copied to the client, and the agent's
 *   permission requests are logged as `"out"`; the agent's stderr is passed through and logged as
 *   `"stderr"`.
 * - It mirrors the agent's end: same exit code, or the same signal.
 * - On SIGTERM (the client stopping the agent) it keeps reading stdin until EOF or 300 ms before
 *   dying by SIGTERM itself, so the tap shows every answer the client wrote before it let go.
 *
 * Records what the client sent even when the agent is gone, which the agent's own log cannot.
 */
import { spawn } from 'node:child_process';
import { appendFileSync } from 'node:fs';
import { StringDecoder } from 'node:string_decoder';

const [tapFile, agentScript, ...agentArgs] = process.argv.slice(2);
if (tapFile === undefined || agentScript === undefined) {
  process.stderr.write('usage: agentTap <tap-file> <agent.js> [args…]\n');
  process.exit(2);
}

function record(kind: string, text: string): void {
  appendFileSync(tapFile ?? '/dev/null', `${JSON.stringify({ pid: process.pid, t: Date.now(), kind, text })}\n`);
}

const child = spawn(process.execPath, [agentScript, ...agentArgs], { stdio: ['pipe', 'pipe', 'pipe'] });
record('child', String(child.pid ?? ''));

let stdinEnded = false;
let terminating = false;
let childExit: { code: number | null; signal: NodeJS.Signals | null } | undefined;

function lineSplitter(kind: string, keep: (line: string) => boolean = () => true): { push(chunk: Buffer): void; end(): void } {
  const decoder = new StringDecoder('utf8');
  let partial = '';
  return {
    push(chunk) {
      const text = partial + decoder.write(chunk);
      const lines = text.split('\n');
      partial = lines.pop() ?? '';
      for (const line of lines) {
        if (keep(line)) {
          record(kind, line);
        }
      }
      if (partial.length > 1024 * 1024) {
        partial = '';
      }
    },
    end() {
      const rest = partial + decoder.end();
      if (rest !== '') {
        record(kind, rest);
      }
      partial = '';
    },
  };
}

const inLines = lineSplitter('in');
const errLines = lineSplitter('stderr');
const outLines = lineSplitter('out', (line) => line.includes('"session/request_permission"'));

child.stdout.pipe(process.stdout);
child.stdout.on('data', (chunk: Buffer) => outLines.push(chunk));
process.stdout.on('error', () => undefined);

child.stdin.on('error', () => undefined);
process.stdin.on('data', (chunk: Buffer) => {
  inLines.push(chunk);
  if (!child.stdin.destroyed) {
    child.stdin.write(chunk);
  }
});
process.stdin.on('end', () => {
  inLines.end();
  stdinEnded = true;
  record('stdin-end', '');
  child.stdin.end();
  finishIfDone();
});
child.stderr.on('data', (chunk: Buffer) => {
  process.stderr.write(chunk);
  errLines.push(chunk);
});

function die(): never {
  errLines.end();
  process.removeAllListeners('SIGTERM');
  if (terminating) {
    process.kill(process.pid, 'SIGTERM');
  } else if (childExit?.signal !== null && childExit?.signal !== undefined) {
    process.kill(process.pid, childExit.signal);
  }
  process.exit(childExit?.code ?? 1);
}

function finishIfDone(): void {
  if (childExit === undefined) {
    return;
  }
  if (!terminating || stdinEnded) {
    die();
  }
}

let pipesEnded = 0;
const onPipeEnd = (): void => {
  pipesEnded++;
  if (pipesEnded === 2) {
    finishIfDone();
  }
};
child.stdout.once('end', onPipeEnd);
child.stderr.once('end', onPipeEnd);

child.on('exit', (code, signal) => {
  childExit = { code, signal };
  record('exit', JSON.stringify(childExit));
  // Let the last stdout/stderr bytes through (stdout to a pipe is synchronous on Linux) before
  // mirroring the end; a grandchild holding the pipes open does not keep the tap alive.
  if (pipesEnded === 2) {
    finishIfDone();
  }
  setTimeout(finishIfDone, 300);
});

process.on('SIGTERM', () => {
  terminating = true;
  record('sigterm', '');
  child.kill('SIGTERM');
  setTimeout(die, 300);
  finishIfDone();
});
