/**
 * An agent that will not go away on its own (issue 21): like Claude Agent ACP and Codex ACP it
 * does not exit when its stdin closes, and it has a child of its own in its process group. It
 * prints one JSON line `{"agent": <pid>, "child": <pid>}` once both run, then waits for a signal.
 *
 *   node dist/agents/stubbornAgent.js [--ignore-sigterm]
 *
 * `--ignore-sigterm` also ignores SIGTERM (Gemini, opencode and Cline do), so only SIGKILL ends it.
 */
import { spawn } from 'node:child_process';

const ignoreTerm = process.argv.includes('--ignore-sigterm');
if (ignoreTerm) {
  process.on('SIGTERM', () => undefined);
}
// Read stdin and shrug at its end: the host going away is not a reason to stop.
process.stdin.resume();
process.stdin.on('end', () => undefined);
process.stdin.on('error', () => undefined);
const keepAlive = setInterval(() => undefined, 60_000);
void keepAlive;

const child = spawn(process.execPath, ['-e', `${ignoreTerm ? "process.on('SIGTERM', () => {});" : ''}setInterval(() => {}, 60000);`], { stdio: 'ignore' });
child.once('spawn', () => {
  process.stdout.write(`${JSON.stringify({ agent: process.pid, child: child.pid })}\n`);
});
