// The lab tier: `npm run test:hermes`. Runs the runner and the extension's session layer against
// the real Hermes v0.19.0 built by ../shared/hermes-lab/build-lab.sh, over ACP, the TUI Gateway
// (stdio and `hermes serve`) and the API Server (chat and runs) — test/hermes/*.test.ts. The lab is
// named by HERMES_LAB (e.g. HERMES_LAB=/work/lab npm run test:hermes); without it the tier says in
// one line that it was skipped and exits 0. Not part of `npm test`. Ends with "N passed, N failed".
//   --grep PATTERN   only the tests whose title matches (mocha --grep)
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lab = process.env.HERMES_LAB;
const missing =
  lab === undefined || lab === ''
    ? 'HERMES_LAB is not set'
    : ['bin/hermes', 'bin/python', 'hermes-agent/tui_gateway/entry.py'].find((f) => !existsSync(join(lab, f))) !== undefined
      ? `HERMES_LAB=${lab} is not a built lab (see ../shared/hermes-lab/README.md)`
      : undefined;
if (missing !== undefined) {
  console.log(`test:hermes skipped: ${missing} (set HERMES_LAB to a lab built by ../shared/hermes-lab/build-lab.sh to run it)`);
  process.exit(0);
}

function run(cmd, args, env = {}) {
  return new Promise((done) => {
    let out = '';
    const child = spawn(cmd, args, { cwd: root, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
    child.stdout.on('data', (d) => {
      out += d;
      process.stdout.write(d);
    });
    child.stderr.on('data', (d) => {
      out += d;
      process.stderr.write(d);
    });
    child.on('close', (code) => done({ code: code ?? 1, out }));
  });
}

const build = await run(process.execPath, ['scripts/build.mjs', '--tests']);
if (build.code !== 0) {
  console.log('\ntest:hermes: 0 passed, 1 failed (the build failed)');
  process.exit(1);
}
const grep = process.argv.indexOf('--grep');
const mocha = join(root, 'node_modules', '.bin', 'mocha');
const started = Date.now();
const result = await run(
  mocha,
  ['--no-config', '--ui', 'tdd', '--timeout', '240000', '--reporter', 'spec', '--exit', ...(grep >= 0 ? ['--grep', process.argv[grep + 1] ?? ''] : []), 'out/test/hermes/**/*.test.js'],
  { HERMES_LAB: resolve(lab) },
);
const passed = Number(/(\d+) passing/.exec(result.out)?.[1] ?? 0);
const failed = Number(/(\d+) failing/.exec(result.out)?.[1] ?? 0) || (result.code !== 0 ? 1 : 0);
console.log(`\ntest:hermes (${resolve(lab)}): ${passed} passed, ${failed} failed (${Math.round((Date.now() - started) / 1000)} s)`);
process.exit(failed > 0 ? 1 : 0);
