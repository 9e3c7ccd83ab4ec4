// Starts a throwaway code-server (real VS Code server + web workbench) for one test run.
// Everything it writes (user data, extensions, HOME, XDG dirs, log) goes to a fresh run dir; it runs
// in its own process group, and stop() kills that whole group (server, extension host, watchers...).
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { ensureHarness } from './install.mjs';
import { killAndRemoveSync, killProcessGroup, onExit, sleep } from './processes.mjs';

/** Workbench settings for quiet, deterministic, offline runs (see test/harness/README.md). */
const BASE_SETTINGS = {
  'workbench.startupEditor': 'none',
  'workbench.secondarySideBar.defaultVisibility': 'hidden', // no Chat panel stealing width
  'chat.disableAIFeatures': true, // no agentHost / copilot-runtime processes
  'extensions.autoCheckUpdates': false,
  'extensions.autoUpdate': false,
  'extensions.ignoreRecommendations': true,
  'telemetry.telemetryLevel': 'off',
  'update.mode': 'none',
  'workbench.enableExperiments': false,
  'workbench.tips.enabled': false,
  'diffEditor.useInlineViewWhenSpaceIsLimited': false, // keep diffs side by side
};

// ---- process-group bookkeeping: kill every started group even if the caller crashes ----

/** @type {Set<number>} process group ids still running */
const liveGroups = new Set();
/** @type {Set<string>} run dirs of servers not stopped yet */
const liveRunDirs = new Set();
let cleanupInstalled = false;

function killAllGroups() {
  killAndRemoveSync({ groups: liveGroups, dirs: liveRunDirs, keepDirs: process.env.HARNESS_KEEP_RUNDIR === '1' });
  liveGroups.clear();
  liveRunDirs.clear();
}

function installCleanup() {
  if (cleanupInstalled) return;
  cleanupInstalled = true;
  onExit(killAllGroups);
}

/** Kills a started group and forgets it. @param {number} pgid @param {number} [graceMs] */
async function stopGroup(pgid, graceMs) {
  await killProcessGroup(pgid, graceMs);
  liveGroups.delete(pgid);
}

// ---- helpers ----

/** A free loopback port (the OS picks it; tiny race until code-server binds it, hence the retry below). */
function freePort() {
  return new Promise((resolvePort, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', reject);
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address();
      srv.close(() => (addr && typeof addr === 'object' ? resolvePort(addr.port) : reject(new Error('no port'))));
    });
  });
}

/** @param {string} url resolves true once anything answers over HTTP */
function answers(url) {
  return new Promise((res) => {
    const req = request(url, { timeout: 1000 }, (r) => {
      r.resume();
      res(true);
    });
    req.on('error', () => res(false));
    req.on('timeout', () => req.destroy());
    req.end();
  });
}

/** @param {string} file @param {number} lines */
function tail(file, lines = 40) {
  try {
    return readFileSync(file, 'utf8').trimEnd().split('\n').slice(-lines).join('\n');
  } catch {
    return '(no log)';
  }
}

/**
 * The child environment: the caller's env + overrides, Node 24 first on PATH, HOME/XDG in the run
 * dir, marketplace off. Variables that would make code-server talk to *another* VS Code instance
 * (e.g. when the tests are started from a VS Code terminal) are dropped.
 * @param {{ runDir: string, node24Bin: string, extra: Record<string, string> }} o
 */
function childEnv({ runDir, node24Bin, extra }) {
  /** @type {Record<string, string>} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (v !== undefined && !/^(VSCODE_|ELECTRON_RUN_AS_NODE$|CODE_SERVER_|PASSWORD$|HASHED_PASSWORD$)/.test(k)) env[k] = v;
  }
  const home = join(runDir, 'home');
  return {
    ...env,
    ...extra,
    PATH: `${dirname(node24Bin)}${delimiter}${extra.PATH ?? process.env.PATH ?? ''}`,
    HOME: home,
    XDG_CONFIG_HOME: join(home, '.config'),
    XDG_DATA_HOME: join(home, '.local', 'share'),
    XDG_CACHE_HOME: join(home, '.cache'),
    XDG_STATE_HOME: join(home, '.local', 'state'),
    EXTENSIONS_GALLERY: '{}', // no marketplace (it would try to reach Open VSX)
  };
}

/**
 * @typedef {object} CodeServerOptions
 * @property {string} workspace folder opened by the workbench
 * @property {string} [extensionsDir] used as --extensions-dir (extension folders in it are picked up); default: fresh dir in the run dir
 * @property {string} [vsixPath] a packaged extension to install with --install-extension before starting
 * @property {Record<string, unknown>} [userSettings] merged over the base settings.json
 * @property {Record<string, unknown>} [machineSettings] the remote machine's settings.json (code-server is a
 *   remote: `machine`-scoped settings are read from here, not from the user settings)
 * @property {Record<string, string>} [env] extra environment for code-server and so for the extension host
 * @property {string} [logName] log file name (without .log) inside the run dir; default "code-server"
 * @property {boolean} [workspaceTrust] true: keep workspace trust on (omits --disable-workspace-trust)
 * @property {number} [startTimeoutMs] default 30000
 */

/**
 * @typedef {object} CodeServer
 * @property {string} url e.g. http://127.0.0.1:41234
 * @property {number} port
 * @property {number} pid the code-server process, also its process group id
 * @property {string} runDir throwaway state: ud/ (user data, logs under ud/logs), exts/, home/, <logName>.log
 * @property {string} logFile
 * @property {string} remoteAuthority "127.0.0.1:<port>", the authority of vscode-remote:// URIs
 * @property {Promise<string>} exited settles with the exit code or signal when code-server's main process ends
 * @property {(folder?: string, payload?: [string, string][] | Record<string, string>) => string} baseUrl
 *   the workbench URL for a folder (default: the workspace), optionally with a ?payload=
 * @property {(opts?: { keepRunDir?: boolean }) => Promise<void>} stop kills the whole group; removes
 *   the run dir unless keepRunDir or HARNESS_KEEP_RUNDIR=1
 */

/**
 * @param {CodeServerOptions} options
 * @returns {Promise<CodeServer>}
 */
export async function startCodeServer(options) {
  const { workspace, vsixPath, userSettings = {}, machineSettings, env = {}, logName = 'code-server', workspaceTrust = false, startTimeoutMs = 30_000 } = options;
  const { node24Bin, codeServerBin } = await ensureHarness({ quiet: true, browser: false });
  installCleanup();

  const runDir = mkdtempSync(join(tmpdir(), 'hermes-cs-'));
  liveRunDirs.add(runDir);
  const userDataDir = join(runDir, 'ud');
  const extensionsDir = options.extensionsDir ? resolve(options.extensionsDir) : join(runDir, 'exts');
  mkdirSync(join(userDataDir, 'User'), { recursive: true });
  mkdirSync(extensionsDir, { recursive: true });
  mkdirSync(join(runDir, 'home'), { recursive: true });
  writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify({ ...BASE_SETTINGS, ...userSettings }, null, 2));
  if (machineSettings !== undefined) {
    mkdirSync(join(userDataDir, 'Machine'), { recursive: true });
    writeFileSync(join(userDataDir, 'Machine', 'settings.json'), JSON.stringify(machineSettings, null, 2));
  }
  const childEnvironment = childEnv({ runDir, node24Bin, extra: env });
  const dirs = ['--user-data-dir', userDataDir, '--extensions-dir', extensionsDir];
  const logFile = join(runDir, `${logName}.log`);

  if (vsixPath) await installVsix(codeServerBin, [...dirs, '--install-extension', resolve(vsixPath)], childEnvironment, join(runDir, 'install-extension.log'));

  for (let attempt = 1; ; attempt++) {
    const port = await freePort();
    const args = [
      '--bind-addr', `127.0.0.1:${port}`,
      '--auth', 'none',
      '--disable-telemetry',
      '--disable-update-check',
      ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
      '--disable-getting-started-override',
      '--vscode-option', 'enable-smoke-test-driver', // lets the workbench honour ?payload= dev/test paths
      ...dirs,
      resolve(workspace),
    ];
    const fd = openSync(logFile, 'a');
    // detached: setsid(), so the child leads a new process group whose id is its pid.
    const child = spawn(codeServerBin, args, { detached: true, stdio: ['ignore', fd, fd], env: childEnvironment });
    closeSync(fd);
    const pid = /** @type {number} */ (child.pid);
    liveGroups.add(pid);
    let exited = /** @type {null | string} */ (null);
    /** @type {Promise<string>} */
    const exitedPromise = new Promise((res) => child.on('exit', (code, signal) => res((exited = signal ?? String(code)))));
    child.unref();

    const url = `http://127.0.0.1:${port}`;
    const deadline = Date.now() + startTimeoutMs;
    while (!exited && Date.now() < deadline && !(await answers(`${url}/healthz`))) await sleep(100);

    if (exited || Date.now() >= deadline) {
      await stopGroup(pid, 1000);
      const log = tail(logFile);
      if (attempt < 3 && /EADDRINUSE/.test(log)) continue; // someone took the port meanwhile
      throw new Error(`code-server ${exited ? `exited (${exited})` : `did not answer within ${startTimeoutMs} ms`}; ${logFile}:\n${log}`);
    }

    const remoteAuthority = `127.0.0.1:${port}`;
    return {
      url,
      port,
      pid,
      runDir,
      logFile,
      remoteAuthority,
      exited: exitedPromise,
      baseUrl(folder = workspace, payload) {
        const q = new URLSearchParams({ folder: resolve(folder) });
        if (payload) q.set('payload', JSON.stringify(Array.isArray(payload) ? payload : Object.entries(payload)));
        return `${url}/?${q}`;
      },
      async stop({ keepRunDir = process.env.HARNESS_KEEP_RUNDIR === '1' } = {}) {
        await stopGroup(pid);
        liveRunDirs.delete(runDir);
        if (!keepRunDir) rmSync(runDir, { recursive: true, force: true });
      },
    };
  }
}

/**
 * `code-server --install-extension x.vsix`, the way a user installs a packaged extension.
 * @param {string} bin @param {string[]} args @param {Record<string, string>} env @param {string} logFile
 */
async function installVsix(bin, args, env, logFile) {
  const fd = openSync(logFile, 'w');
  const child = spawn(bin, args, { detached: true, stdio: ['ignore', fd, fd], env });
  closeSync(fd);
  const pid = /** @type {number} */ (child.pid);
  liveGroups.add(pid);
  const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
  const code = await new Promise((r) => child.on('exit', (c, s) => r(s ?? c)));
  clearTimeout(timer);
  await stopGroup(pid, 1000); // anything it forked
  if (code !== 0) throw new Error(`code-server --install-extension failed (${code}); ${logFile}:\n${tail(logFile)}`);
}
