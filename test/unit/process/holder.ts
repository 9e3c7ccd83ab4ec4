/**
 * A stand-in for the extension host (issue 21): starts the stubborn agent through AgentProcess (so
 * through the launcher, with its watchdog) and prints `{"agent", "child", "watchdog"}` as one JSON
 * line; then waits to be killed. The test SIGKILLs it: no `deactivate`, no exit handlers.
 *
 *   node out/test/unit/process/holder.js <stubbornAgent.js> [agent args…]
 */
import { AgentProcess } from '../../../src/wire/agentProcess';

async function main(): Promise<void> {
  const [script, ...args] = process.argv.slice(2);
  if (script === undefined) {
    throw new Error('usage: holder.js <agent script> [args…]');
  }
  const proc = await AgentProcess.start({ command: process.execPath, args: [script, ...args], cwd: process.cwd() }, { killGraceMs: 500 });
  let buffered = '';
  proc.stdout.setEncoding('utf8');
  proc.stdout.on('data', (s: string) => {
    buffered += s;
    const nl = buffered.indexOf('\n');
    if (nl >= 0) {
      const pids = JSON.parse(buffered.slice(0, nl)) as { agent: number; child: number };
      process.stdout.write(`${JSON.stringify({ ...pids, watchdog: proc.watchdogPid ?? null })}\n`);
    }
  });
  setInterval(() => undefined, 60_000);
}

main().catch((e: unknown) => {
  process.stderr.write(`${String(e)}\n`);
  process.exit(1);
});
