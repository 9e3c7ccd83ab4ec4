import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

/**
 * Temporary folders of a test process (workspaces, git repositories, state homes), removed when
 * the process exits, so that run after run does not fill the machine's temp folder (one machine
 * held 2,700 of them after a day of runs). `HERMES_KEEP_TEMP=1` keeps them for a look after a
 * failure.
 */
const made: string[] = [];

function removeAll(): void {
  if (process.env.HERMES_KEEP_TEMP === '1') {
    return;
  }
  for (const dir of made.splice(0)) {
    try {
      fs.rmSync(dir, { recursive: true, force: true, maxRetries: 2 });
    } catch {
      // still in use (a process the test could not stop): left for the OS
    }
  }
}

/** A new folder under the OS temp folder (its real path: macOS' /tmp is a link), removed at exit. */
export function tempDir(prefix: string): string {
  const dir = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  if (made.length === 0) {
    process.once('exit', removeAll);
  }
  made.push(dir);
  return dir;
}
