// Packages the extension as users get it: a production build of what ships, staged in a folder of
// its own (the working tree's dist/ is left alone), packed by vsce into a .vsix.
//   node scripts/package.mjs [--out FILE]     default: hermes-acp.vsix at the repository root
// The staging folder is .package/stage (for a FILE inside .package/: its name with .stage, beside it).
// What npm start and npm test package lives in .package/ too (git-ignored, per checkout: .cache may be
// shared between checkouts).
//   import { packageExtension } from './package.mjs'
// `npm run package`, `npm start` and the UI suites (once per `npm test`) all use it, and
// test/checks/checkPackage.mjs checks the result against the build's list of shipped files.
import { execFile } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, rmSync } from 'node:fs';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = promisify(execFile);

/** What vsce reads besides dist/: the manifest, its strings, the docs and static media. */
const staged = ['package.json', 'package.nls.json', 'README.md', 'CHANGELOG.md', 'LICENSE', '.vscodeignore', 'media', 'l10n'];

/**
 * Builds and packs the extension. Resolves with the .vsix and the staging folder (whose
 * dist/package-files.json lists what the build says must ship).
 * @param {{ out?: string, stage?: string, log?: (line: string) => void }} [o]
 * @returns {Promise<{ vsix: string, stage: string, seconds: number }>}
 */
export async function packageExtension(o = {}) {
  const started = Date.now();
  const log = o.log ?? ((line) => console.log(line));
  const out = resolve(o.out ?? join(root, 'hermes-acp.vsix'));
  const ownDir = join(root, '.package');
  const stage = resolve(o.stage ?? (dirname(out).startsWith(ownDir) ? join(dirname(out), `${basename(out, '.vsix')}.stage`) : join(ownDir, 'stage')));
  rmSync(stage, { recursive: true, force: true });
  mkdirSync(stage, { recursive: true });
  for (const f of staged) {
    if (existsSync(join(root, f))) {
      cpSync(join(root, f), join(stage, f), { recursive: true });
    }
  }
  log('[package] production build of what ships …');
  await run(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production', '--shipped', '--outdir', join(stage, 'dist')], { cwd: root, maxBuffer: 16 * 1024 * 1024 });
  log('[package] vsce package …');
  mkdirSync(dirname(out), { recursive: true });
  await run(join(root, 'node_modules', '.bin', 'vsce'), ['package', '--no-dependencies', '--no-rewrite-relative-links', '-o', out], { cwd: stage, maxBuffer: 16 * 1024 * 1024 });
  const seconds = (Date.now() - started) / 1000;
  log(`[package] ${out} (${seconds.toFixed(1)} s)`);
  return { vsix: out, stage, seconds };
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const at = process.argv.indexOf('--out');
  packageExtension(at > 0 ? { out: process.argv[at + 1] } : {}).catch((e) => {
    console.error(`[package] failed: ${e instanceof Error ? `${e.message}\n${e.stderr ?? ''}` : String(e)}`);
    process.exit(1);
  });
}
