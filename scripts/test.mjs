// The whole test suite, as README.md documents it: `npm test`.
//   build → typecheck → lint → static checks (incl. the package) → unit (mocha, real agent processes) →
//   extension host (mocha inside a real VS Code: code-server) → UI (Chromium driving code-server,
//   which runs the packaged .vsix).
// Ends with one plain line "N passed, N failed" and a non-zero exit code on any failure.
// `npm test -- --help` prints the options.
import { spawn } from 'node:child_process';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, realpathSync, rmSync } from 'node:fs';
import { availableParallelism, tmpdir } from 'node:os';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const stages = ['build', 'types', 'lint', 'checks', 'unit', 'host', 'ui'];
const help = `Usage: npm test [-- OPTIONS]        (or: node scripts/test.mjs [OPTIONS])

Runs the stages in order and ends with one line "N passed, N failed".

  build    bundles and the transpiled tests (always runs)
  types    tsc --noEmit for the extension, the webview and the webview tests
  lint     eslint, no warnings allowed
  checks   manifest, bundle sizes, layout rules, l10n bundle, and the package: builds the .vsix once
           (scripts/package.mjs) and checks it holds every file the extension loads
  unit     mocha on out/test/unit, files in parallel (real agent processes, no VS Code)
  host     mocha inside a real VS Code (code-server) — needs the harness (below)
  ui       Chromium driving code-server with the packaged .vsix installed — needs the harness

Options:
  --quick           stop after the unit stage (no VS Code, no browser)
  --only STAGE[,STAGE…]
                    run only these stages (build always runs), e.g. --only unit or --only checks,ui
  --help            print this and exit

The host and ui stages need Debian's chromium, libkrb5-dev, pkg-config, python3, make and g++;
the first run installs code-server into .cache/harness (a few minutes, in the background at nice 19
while build … unit run; its log is .cache/harness-background.log, npm's is
.cache/harness/code-server/install.log). Environment: HARNESS_CHROMIUM (another Chromium),
HARNESS_KEEP_RUNDIR=1 (keep code-server's run folders), HERMES_KEEP_TEMP=1 (keep the tests' temporary
workspaces), CI=true (reduced counts in the heavy suites),
HERMES_SOAK=1 (their longest loops at soak length: 20 window reloads, 100 agent restarts, 150 link clicks).
Run one mocha file: node scripts/build.mjs --tests && npx mocha out/test/unit/registry/npx.test.js
(a UI file: npx mocha --ui tdd --timeout 120000 --exit out/test/ui/registry.test.js).
`;

const args = process.argv.slice(2);
if (args.includes('--help') || args.includes('-h')) {
  process.stdout.write(help);
  process.exit(0);
}
const quick = args.includes('--quick');
const onlyIndex = args.indexOf('--only');
const only = onlyIndex >= 0 ? (args[onlyIndex + 1] ?? '').split(',').filter((s) => s !== '') : undefined;
const unknown = [...(only ?? []).filter((s) => !stages.includes(s)), ...args.filter((a, i) => a.startsWith('-') && !['--quick', '--only', '--help', '-h'].includes(a) && (onlyIndex < 0 || i !== onlyIndex + 1))];
if ((only !== undefined && only.length === 0) || unknown.length > 0) {
  process.stderr.write(`${only !== undefined && only.length === 0 ? '--only needs a stage' : `unknown: ${unknown.join(' ')}`}\n\n${help}`);
  process.exit(2);
}
const totals = { passed: 0, failed: 0 };
const stageResults = [];
const t0 = Date.now();

function run(cmd, cmdArgs, { capture = false, env = {} } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, cmdArgs, { cwd: root, env: { ...process.env, ...env }, stdio: capture ? ['ignore', 'pipe', 'pipe'] : 'inherit' });
    let out = '';
    if (capture) {
      child.stdout.on('data', (d) => {
        out += d;
        process.stdout.write(d);
      });
      child.stderr.on('data', (d) => {
        out += d;
        process.stderr.write(d);
      });
    }
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

async function stage(name, fn) {
  if (only !== undefined && !only.includes(name) && name !== 'build') {
    return;
  }
  const started = Date.now();
  console.log(`\n=== ${name} ===`);
  let result;
  try {
    result = await fn();
  } catch (e) {
    console.error(e);
    result = { passed: 0, failed: 1 };
  }
  totals.passed += result.passed;
  totals.failed += result.failed;
  stageResults.push({ name, ...result, seconds: (Date.now() - started) / 1000 });
  console.log(`--- ${name}: ${result.passed} passed, ${result.failed} failed (${((Date.now() - started) / 1000).toFixed(1)} s)`);
}

const check = async (cmd, cmdArgs) => ((await run(cmd, cmdArgs)).code === 0 ? { passed: 1, failed: 0 } : { passed: 0, failed: 1 });
const bin = (name) => join(root, 'node_modules', '.bin', name);

/**
 * Counts from mocha's spec reporter ("N passing", "N failing"), and its list of failures, which the
 * summary prints again: a CI log is often read from its end, and a long stage pushes the list far up.
 */
function mochaCounts({ code, out }) {
  const passed = Number(/(\d+) passing/.exec(out)?.[1] ?? 0);
  const failed = Number(/(\d+) failing/.exec(out)?.[1] ?? 0);
  const list = /\n {2}\d+ failing\n[\s\S]*/.exec(out)?.[0];
  return { passed, failed: failed === 0 && code !== 0 ? 1 : failed, failures: list?.replace(/\u001b\[[0-9;]*m/g, '').trim().slice(0, 6000) };
}

/**
 * The VS Code harness (Node 24 + code-server, ~2.5 min of npm and node-gyp on a fresh machine) is
 * installed in the background while the earlier stages run, at the lowest CPU priority so that the
 * unit stage's timings are not disturbed; the host stage waits for it. Its output goes to a log file.
 */
const wantsHarness = !quick && (only === undefined || only.includes('host') || only.includes('ui'));
const harnessLog = join(root, '.cache', 'harness-background.log');
const harnessInBackground = wantsHarness ? startHarnessInstall() : Promise.resolve(undefined);

function startHarnessInstall() {
  mkdirSync(dirname(harnessLog), { recursive: true });
  const fd = openSync(harnessLog, 'w');
  const started = Date.now();
  const niced = existsSync('/usr/bin/nice') || existsSync('/bin/nice');
  const [cmd, cmdArgs] = niced ? ['nice', ['-n', '19', process.execPath, 'test/harness/install.mjs']] : [process.execPath, ['test/harness/install.mjs']];
  const child = spawn(cmd, cmdArgs, { cwd: root, stdio: ['ignore', fd, fd] });
  closeSync(fd);
  return new Promise((resolve) => {
    child.on('error', () => resolve(undefined));
    child.on('close', (code) => resolve({ code: code ?? 1, seconds: (Date.now() - started) / 1000 }));
  });
}

/** Waits for the background install; a failed one is retried in the foreground by ensureHarness (which says why). */
async function harnessReady() {
  const r = await harnessInBackground;
  if (r !== undefined) {
    console.log(`[harness] background install ${r.code === 0 ? 'done' : `failed (exit ${r.code}), retrying here`} after ${r.seconds.toFixed(1)} s; its log: ${harnessLog}`);
  }
  const { ensureHarness } = await import('../test/harness/install.mjs');
  await ensureHarness();
}

await stage('build', () => check(process.execPath, ['scripts/build.mjs', '--tests']));
await stage('types', async () => {
  const configs = ['tsconfig.json', 'src/webview/tsconfig.json', 'test/unit/webview/tsconfig.json'].filter((c) => existsSync(join(root, c)));
  let failed = 0;
  for (const c of configs) {
    if ((await run(bin('tsc'), ['--noEmit', '-p', c])).code !== 0) {
      failed++;
    }
  }
  return { passed: configs.length - failed, failed };
});
await stage('lint', () => check(bin('eslint'), ['.', '--max-warnings=0']));
/** The .vsix of this run: packaged once (scripts/package.mjs), checked, and installed by the UI suites. */
let packaged;
function packageOnce() {
  packaged ??= import('./package.mjs').then((m) => m.packageExtension({ out: join(root, '.package', 'test', 'hermes-acp.vsix') }));
  return packaged;
}

await stage('checks', async () => {
  const checks = ['test/checks/checkManifest.mjs', 'test/checks/checkBundleSize.mjs', 'test/checks/checkLayout.mjs', 'test/checks/checkImports.mjs'].filter((c) => existsSync(join(root, c)));
  let failed = 0;
  for (const c of checks) {
    if ((await run(process.execPath, [c])).code !== 0) {
      failed++;
    }
  }
  // Every string the UI shows is in the bundle translators copy.
  if ((await run(process.execPath, ['scripts/l10n.mjs', '--check'])).code !== 0) {
    failed++;
  }
  const { vsix, stage: staged } = await packageOnce();
  if ((await run(process.execPath, ['test/checks/checkPackage.mjs', '--vsix', vsix, '--stage', staged])).code !== 0) {
    failed++;
  }
  return { passed: checks.length + 2 - failed, failed };
});
// The unit files run in parallel (one mocha worker per core, 2–4): their tests mostly wait on agent
// processes, so two workers on a 2-core machine take ~60% of the serial time.
const unitJobs = String(Math.min(4, Math.max(2, availableParallelism())));
await stage('unit', async () => mochaCounts(await run(bin('mocha'), ['--parallel', '--jobs', unitJobs], { capture: true })));

if (!quick) {
  await stage('host', async () => {
    await harnessReady();
    const { runExtensionTests } = await import('../test/harness/runExtensionTests.mjs');
    const workspace = realpathSync(mkdtempSync(join(tmpdir(), 'hermes-host-ws-')));
    const r = await runExtensionTests({
      extensionDevelopmentPath: root,
      extensionTestsPath: join(root, 'out', 'test', 'integration', 'index.js'),
      workspace,
      timeoutMs: 300_000,
      env: { HERMES_TEST_WORKSPACE: workspace },
    }).finally(() => process.env.HERMES_KEEP_TEMP === '1' || rmSync(workspace, { recursive: true, force: true }));
    return { passed: r.passed, failed: r.failed > 0 || r.exitCode !== 0 ? Math.max(r.failed, 1) : 0 };
  });
  await stage('ui', async () => {
    await harnessReady();
    const specs = join(root, 'out', 'test', 'ui');
    if (!existsSync(specs)) {
      return { passed: 0, failed: 0 };
    }
    const { vsix } = await packageOnce();
    return mochaCounts(await run(bin('mocha'), ['--config', 'test/ui/.mocharc.json'], { capture: true, env: { HERMES_TEST_VSIX: vsix } }));
  });
}

console.log('\n=== summary ===');
for (const s of stageResults) {
  console.log(`${s.name.padEnd(6)} ${String(s.passed).padStart(4)} passed ${String(s.failed).padStart(3)} failed  ${s.seconds.toFixed(1)} s`);
}
for (const s of stageResults.filter((r) => r.failures !== undefined)) {
  console.log(`\n--- what failed in ${s.name} (again from above) ---\n${s.failures}`);
}
console.log(`total time ${((Date.now() - t0) / 1000).toFixed(1)} s`);
console.log(`${totals.passed} passed, ${totals.failed} failed`);
process.exit(totals.failed > 0 ? 1 : 0);
