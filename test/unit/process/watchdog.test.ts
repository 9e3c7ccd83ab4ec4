import * as assert from 'node:assert/strict';
import { spawn, type ChildProcess } from 'node:child_process';
import * as path from 'node:path';
import { repoRoot } from '../../support/paths';
import { isAlive } from '../../support/processes';
import { until } from '../../support/wait';

const stubbornAgentJs = path.join(repoRoot, 'dist', 'agents', 'stubbornAgent.js');
const holderJs = path.join(repoRoot, 'out', 'test', 'unit', 'process', 'holder.js');

interface Pids {
  readonly agent: number;
  readonly child: number;
  readonly watchdog: number | null;
}

/** Starts the holder (a stand-in for the extension host) and waits for the pids it reports. */
async function startHolder(agentArgs: readonly string[]): Promise<{ holder: ChildProcess; pids: Pids }> {
  const holder = spawn(process.execPath, [holderJs, stubbornAgentJs, ...agentArgs], { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  holder.stdout.setEncoding('utf8').on('data', (s: string) => (out += s));
  holder.stderr.setEncoding('utf8').on('data', (s: string) => (err += s));
  const line = await until(`the holder's pids (stderr: ${err})`, () => (out.includes('\n') ? out.slice(0, out.indexOf('\n')) : undefined), 15_000);
  return { holder, pids: JSON.parse(line) as Pids };
}

/** After a failed assertion: nothing of this test may outlive it. */
function cleanup(holder: ChildProcess | undefined, pids: Pids | undefined): void {
  for (const pid of [holder?.pid, pids?.agent, pids?.child, pids?.watchdog]) {
    if (typeof pid === 'number' && isAlive(pid)) {
      process.kill(pid, 'SIGKILL');
    }
  }
}

suite('process/watchdog: agents die with the host, even a SIGKILLed one', function () {
  if (process.platform === 'win32') {
    return; // the Windows tree kill is covered with a simulated platform in launcher.test.ts
  }

  for (const variant of [
    { name: 'an agent that ignores stdin EOF', args: [] as string[] },
    { name: 'an agent that ignores stdin EOF and SIGTERM (SIGKILL after the grace period)', args: ['--ignore-sigterm'] },
  ]) {
    test(`${variant.name}: SIGKILL of the host leaves no process of the agent, nor of its child`, async () => {
      let pids: Pids | undefined;
      let holder: ChildProcess | undefined;
      try {
        const started = await startHolder(variant.args);
        ({ holder, pids } = started);
        const { agent, child, watchdog } = started.pids;
        assert.ok(watchdog !== null && isAlive(watchdog), 'a watchdog runs beside the agent');
        assert.ok(isAlive(agent) && isAlive(child), 'the agent and its child run');
        const holderGone = new Promise<void>((resolve) => started.holder.once('exit', () => resolve()));
        started.holder.kill('SIGKILL');
        await holderGone;
        // Without the watchdog these two would run on for good (stdin EOF means nothing to them).
        await until('the agent and its child to be gone', () => !isAlive(agent) && !isAlive(child), 10_000);
        await until('the watchdog to exit after its work', () => !isAlive(watchdog), 10_000);
      } finally {
        cleanup(holder, pids);
      }
    });
  }

  test('the watchdog exits with the agent, and leaves nothing when the host stops it normally', async () => {
    let pids: Pids | undefined;
    let holder: ChildProcess | undefined;
    try {
      const started = await startHolder([]);
      ({ holder, pids } = started);
      const { agent, child, watchdog } = started.pids;
      assert.ok(watchdog !== null);
      // The agent ending on its own (here: killed from outside) releases the watchdog through the host.
      process.kill(agent, 'SIGKILL');
      await until('the watchdog to exit with the agent', () => !isAlive(watchdog), 10_000);
      assert.ok(isAlive(started.holder.pid ?? 0), 'the host is still alive: the watchdog left because the agent did');
      assert.ok(isAlive(child), 'a released watchdog kills nothing (the host decides about the leftover child)');
      started.holder.kill('SIGKILL');
    } finally {
      cleanup(holder, pids);
    }
  });
});
