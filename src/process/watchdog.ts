/**
 * The agent watchdog (`dist/watchdog.js`), one per agent, started by the launcher:
 *
 *   node watchdog.js <pid> <graceMs> group|tree
 *
 * Its stdin is a pipe from the host. The host writes one byte and closes it when the agent exited
 * (the watchdog then just exits). If the pipe closes without that byte, the host is gone — killed
 * (SIGKILL, a stopped code-server) without running `deactivate` — and the agent would outlive it:
 * Claude Agent ACP and Codex ACP do not exit on stdin EOF, and their process group is no longer
 * anyone's. The watchdog then ends the agent's process group (`group`: SIGTERM, SIGKILL after
 * `graceMs`) or tree (`tree`, Windows: `taskkill /T /F`) and exits once nothing of it is left.
 * On POSIX it imports nothing but Node and `processGroup.ts`, so it starts in the time Node takes.
 */
import { groupMembers } from './processGroup';

const [pidArg, graceArg, modeArg] = process.argv.slice(2);
const pid = Number(pidArg);
const graceMs = Number(graceArg);
/** After SIGKILL, how long to wait for the group to be reaped before giving up. */
const reapWaitMs = 5000;

function signalGroup(signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal);
  } catch {
    // gone already
  }
}

/** Resolves when the group is empty or `ms` passed. The watchdog is not the agent's parent: no exit event reaches it. */
async function groupGone(ms: number): Promise<boolean> {
  const deadline = Date.now() + ms;
  // Zombies count as gone: the agent's new parent reaps them, and they run no code.
  while ((await groupMembers(pid))?.length !== 0) {
    if (Date.now() >= deadline) {
      return false;
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  return true;
}

async function endGroup(): Promise<void> {
  signalGroup('SIGTERM');
  if (!(await groupGone(graceMs))) {
    signalGroup('SIGKILL');
    await groupGone(reapWaitMs);
  }
}

async function endTree(): Promise<void> {
  // Loaded only here: the launcher (and execa with it) is what spawns taskkill the same way everywhere.
  const { defaultLauncher } = await import('./launcher');
  await defaultLauncher().killTree(pid, 'SIGKILL');
}

function main(): void {
  if (!Number.isInteger(pid) || pid <= 0 || !Number.isFinite(graceMs) || (modeArg !== 'group' && modeArg !== 'tree')) {
    process.exitCode = 2;
    return;
  }
  let released = false;
  let ending = false;
  const hostGone = (): void => {
    if (ending) {
      return;
    }
    ending = true;
    if (released) {
      process.exit(0);
    }
    void (modeArg === 'group' ? endGroup() : endTree()).finally(() => process.exit(0));
  };
  process.stdin.on('data', (b: Buffer) => {
    if (b.includes(0x72)) {
      released = true;
    }
  });
  process.stdin.once('end', hostGone);
  process.stdin.once('close', hostGone);
  process.stdin.once('error', hostGone);
  // The host's signals are not ours: only the pipe says whether the host is gone.
  process.on('SIGINT', () => undefined);
  process.on('SIGHUP', () => undefined);
}

main();
