// Runs an extension's mocha suite inside a real VS Code extension host.
//   default (offline): code-server's remote (Node 24) extension host, started by the web workbench
//     from a ?payload= URL; the result comes back through window.codeAutomationExit.
//   VSCODE_TEST_HARNESS=electron: @vscode/test-electron (desktop VS Code; needs internet).
// The runner at extensionTestsPath must export run(): Promise<void> and print "N passed, N failed".
//
// CLI: node test/harness/runExtensionTests.mjs --dev <ext dir> --tests <runner.js> --workspace <dir> [--timeout ms]
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { launchBrowser } from './browser.mjs';
import { startCodeServer } from './codeServer.mjs';

/** Console lines from the workbench itself that say nothing about the tests. */
const NOISE = [
  /vsda/,
  /Failed to load resource/,
  /Ignoring fetching additional builtin/,
  /Updating additional builtin extensions cache/,
  /allow-scripts and allow-same-origin/,
  /web worker extension host is started in a same-origin iframe/,
  /^(Resolving|Resolved) connection token/,
  /^Creating a socket/,
  /^\[(reconnection-grace-time|AgentHost:remote|AccountPolicyGate|Service Worker)\]/,
  /^\s*at .*https?:\/\/127\.0\.0\.1:\d+\//, // workbench stack frames
];

/**
 * @typedef {object} ExtensionTestOptions
 * @property {string} extensionDevelopmentPath the extension's root (with package.json)
 * @property {string} extensionTestsPath the mocha runner module (exports run())
 * @property {string} workspace folder to open
 * @property {Record<string, string>} [env] environment for the extension host
 * @property {number} [timeoutMs] overall limit for the suite once the workbench is loading; default 120000
 * @property {Record<string, unknown>} [userSettings] extra settings.json entries
 * @property {boolean} [workspaceTrust] keep workspace trust on (code-server harness only)
 * @property {boolean} [echo] relay the output to stdout (default true)
 */

/**
 * @typedef {object} ExtensionTestResult
 * @property {number} exitCode 0 only if the runner settled successfully
 * @property {number | undefined} passed from the runner's "N passed, N failed" line
 * @property {number | undefined} failed
 * @property {string} output the relayed console output
 * @property {boolean} timedOut
 */

/**
 * @param {ExtensionTestOptions} options
 * @returns {Promise<ExtensionTestResult>}
 */
export async function runExtensionTests(options) {
  const harness = process.env.VSCODE_TEST_HARNESS || 'code-server';
  if (harness === 'electron') return runWithElectron(options);
  if (harness !== 'code-server') throw new Error(`VSCODE_TEST_HARNESS must be "code-server" or "electron", not "${harness}"`);
  return runWithCodeServer(options);
}

/** @param {ExtensionTestOptions} options @returns {Promise<ExtensionTestResult>} */
async function runWithCodeServer({ extensionDevelopmentPath, extensionTestsPath, workspace, env = {}, timeoutMs = 120_000, userSettings, workspaceTrust, echo = true }) {
  /** @type {string[]} */
  const lines = [];
  const emit = (/** @type {string} */ line) => {
    lines.push(line);
    if (echo) console.log(line);
  };
  const started = Date.now();
  /** @type {Awaited<ReturnType<typeof startCodeServer>> | undefined} */
  let server;
  /** @type {Awaited<ReturnType<typeof launchBrowser>> | undefined} */
  let browser;
  try {
    server = await startCodeServer({ workspace, env, userSettings, workspaceTrust, logName: 'extension-tests' });
    browser = await launchBrowser();
    const { page } = browser;

    /** @type {(code: number) => void} */
    let onExit = () => {};
    /** @type {Promise<number>} */
    const exited = new Promise((res) => (onExit = res));
    // Called by the workbench when the test runner's run() settles (0 = resolved).
    await page.exposeFunction('codeAutomationExit', (/** @type {number} */ code) => onExit(code));
    page.on('console', (msg) => {
      for (const line of consoleText(msg).split('\n')) if (!NOISE.some((re) => re.test(line))) emit(line);
    });
    page.on('pageerror', (err) => emit(`[page error] ${err.message}`));

    const remote = (/** @type {string} */ p) => `vscode-remote://${server?.remoteAuthority}${resolve(p)}`;
    const url = server.baseUrl(workspace, [
      ['extensionDevelopmentPath', remote(extensionDevelopmentPath)],
      ['extensionTestsPath', remote(extensionTestsPath)],
      ['skipWelcome', 'true'],
    ]);
    /** @type {NodeJS.Timeout | undefined} */
    let timer;
    const timeout = new Promise((res) => (timer = setTimeout(() => res('timeout'), timeoutMs)));
    await page.goto(url);
    const code = await Promise.race([exited, timeout, server.exited.then((how) => `server-exit:${how}`)]);
    clearTimeout(timer);
    const timedOut = code === 'timeout';
    if (typeof code === 'number') {
      emit(`[harness] codeAutomationExit -> ${code} after ${Date.now() - started} ms`);
    } else {
      emit(timedOut ? `[harness] no result after ${timeoutMs} ms (timeout)` : `[harness] code-server died (${code.slice(12)}) during the run`);
      emit(`[harness] code-server log (set HARNESS_KEEP_RUNDIR=1 to keep ${server.runDir}):`);
      for (const line of readFileSync(server.logFile, 'utf8').trimEnd().split('\n').slice(-20)) emit(`  ${line}`);
    }
    return result(code === 0 ? 0 : 1, lines, timedOut);
  } finally {
    await browser?.close();
    await server?.stop();
  }
}

/**
 * The text of a console message. The workbench's logger prints "%c INFO", "color: #33f", message:
 * that is also how the extension host's console output arrives while tests run. Keep the message,
 * and the level only when it is not INFO.
 * @param {import('playwright-core').ConsoleMessage} msg
 */
function consoleText(msg) {
  const m = /^%c\s*([A-Z]+) color: #[0-9a-fA-F]{3,6} ?/.exec(msg.text());
  if (!m) return msg.text();
  const text = msg.text().slice(m[0].length);
  return m[1] === 'INFO' ? text : `[${m[1].toLowerCase()}] ${text}`;
}

/** @param {number} exitCode @param {string[]} lines @param {boolean} timedOut @returns {ExtensionTestResult} */
function result(exitCode, lines, timedOut) {
  const output = lines.join('\n');
  const summaries = [...output.matchAll(/(\d+) passed, (\d+) failed/g)];
  const last = summaries.at(-1);
  return { exitCode, passed: last ? Number(last[1]) : undefined, failed: last ? Number(last[2]) : undefined, output, timedOut };
}

/**
 * The desktop harness, for machines with internet: the same runner module through @vscode/test-electron.
 * @param {ExtensionTestOptions} options @returns {Promise<ExtensionTestResult>}
 */
async function runWithElectron({ extensionDevelopmentPath, extensionTestsPath, workspace, env = {}, echo = true }) {
  /** @type {{ runTests: (o: object) => Promise<number> }} */
  let testElectron;
  try {
    const specifier = '@vscode/test-electron'; // optional: not a dependency of this repo
    testElectron = await import(specifier);
  } catch (err) {
    if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'ERR_MODULE_NOT_FOUND') throw err;
    throw new Error(
      'VSCODE_TEST_HARNESS=electron needs @vscode/test-electron (npm i -D @vscode/test-electron) and internet access: ' +
        'it downloads a desktop VS Code. Unset VSCODE_TEST_HARNESS to use the offline code-server harness.',
    );
  }
  // test-electron relays VS Code's output through process.stdout; capture a copy for parsing.
  /** @type {string[]} */
  const chunks = [];
  const write = process.stdout.write.bind(process.stdout);
  process.stdout.write = /** @type {typeof process.stdout.write} */ (
    (/** @type {string | Uint8Array} */ chunk, /** @type {any[]} */ ...rest) => {
      chunks.push(String(chunk));
      return echo ? write(chunk, ...rest) : true;
    }
  );
  let exitCode = 1;
  try {
    exitCode = await testElectron.runTests({
      extensionDevelopmentPath: resolve(extensionDevelopmentPath),
      extensionTestsPath: resolve(extensionTestsPath),
      extensionTestsEnv: env,
      launchArgs: [resolve(workspace), '--disable-extensions', '--disable-workspace-trust'],
    });
  } catch (err) {
    chunks.push(`\n[harness] test-electron: ${err instanceof Error ? err.message : err}\n`);
  } finally {
    process.stdout.write = write;
  }
  return result(exitCode === 0 ? 0 : 1, chunks.join('').split('\n'), false);
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const { values } = parseArgs({
    options: { dev: { type: 'string' }, tests: { type: 'string' }, workspace: { type: 'string' }, timeout: { type: 'string' } },
  });
  if (!values.dev || !values.tests || !values.workspace) {
    console.error('usage: node test/harness/runExtensionTests.mjs --dev <ext dir> --tests <runner.js> --workspace <dir> [--timeout ms]');
    process.exit(2);
  }
  runExtensionTests({
    extensionDevelopmentPath: values.dev,
    extensionTestsPath: values.tests,
    workspace: values.workspace,
    timeoutMs: values.timeout ? Number(values.timeout) : undefined,
  }).then(
    (r) => process.exit(r.exitCode),
    (err) => {
      console.error(`[harness] ${err instanceof Error ? err.stack : err}`);
      process.exit(1);
    },
  );
}
