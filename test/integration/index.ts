import * as fs from 'node:fs';
import * as path from 'node:path';
import * as util from 'node:util';
import Mocha from 'mocha';

/**
 * The extension-host test entry, for both harnesses (code-server's `?payload=` runner offline,
 * `@vscode/test-electron` where internet exists): runs test/integration/*.test.js inside VS Code
 * and prints one plain line `N passed, N failed`.
 */
export function run(): Promise<void> {
  // The host's console forwarding does not apply printf-style formatting.
  Mocha.reporters.Base.consoleLog = (...a: unknown[]) => console.log(util.format(...a));
  const mocha = new Mocha({ ui: 'tdd', timeout: 60_000, color: false, reporter: 'spec' });
  const dir = __dirname;
  // HERMES_TEST_FILES=changes,sessions runs only those files (one suite while working on it).
  const only = process.env.HERMES_TEST_FILES?.split(',').map((f) => `${f.trim()}.test.js`);
  for (const f of fs.readdirSync(dir).filter((n) => n.endsWith('.test.js') && (only === undefined || only.includes(n))).sort()) {
    mocha.addFile(path.join(dir, f));
  }
  return new Promise((resolve, reject) => {
    const runner = mocha.run((failures) => {
      console.log(`${runner.stats?.passes ?? 0} passed, ${failures} failed`);
      if (failures > 0) {
        reject(new Error(`${failures} tests failed.`));
      } else {
        resolve();
      }
    });
  });
}
