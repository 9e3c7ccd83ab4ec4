// The packaged extension holds everything it loads at run time (issue 37: a .vsix without
// dist/watchdog.js left agents running as orphans, and every test passed).
//   node test/checks/checkPackage.mjs [--vsix FILE --stage DIR]
// Without arguments it packages first (scripts/package.mjs). It fails when
//   - a file the build says ships (the shipping builds' outputs, <stage>/dist/package-files.json,
//     written by scripts/build.mjs) is missing from the .vsix;
//   - a shipped script names another script next to it (`'watchdog.js'`, `'bunzip2Worker.js'`) that
//     the build produced and the .vsix lacks — a helper built by a build marked `ship: false`;
//   - the .vsix carries files under dist/ the build did not mark as shipped (maps, test agents).
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { dirname, join, posix, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import yauzl from 'yauzl';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');

/** The file names inside a .vsix (a zip), without the `extension/` prefix vsce puts them under. */
export function vsixFiles(vsix) {
  return new Promise((resolvePromise, reject) => {
    yauzl.open(vsix, { lazyEntries: true }, (err, zip) => {
      if (err) {
        reject(err);
        return;
      }
      const names = [];
      zip.on('entry', (e) => {
        if (!e.fileName.endsWith('/') && e.fileName.startsWith('extension/')) {
          names.push(e.fileName.slice('extension/'.length));
        }
        zip.readEntry();
      });
      zip.on('end', () => resolvePromise(names.sort()));
      zip.on('error', reject);
      zip.readEntry();
    });
  });
}

/** Script names a bundle's text mentions as string literals (`"watchdog.js"`), the way it finds them next to itself. */
export function namedScripts(text) {
  return [...new Set([...text.matchAll(/["'`]([\w.-]+\.js)["'`]/g)].map((m) => m[1]))];
}

/**
 * What is wrong with a package.
 * @param {{ shipped: string[], packaged: string[], bundles: { file: string, names: string[] }[], built: (file: string) => boolean }} o
 *   shipped: `dist/…` files the build says ship; packaged: the .vsix's files; bundles: each shipped
 *   script with the script names it mentions; built: whether the build produced a `dist/…` file.
 * @returns {string[]}
 */
export function packageProblems({ shipped, packaged, bundles, built }) {
  const inPackage = new Set(packaged);
  const problems = [];
  for (const f of shipped) {
    if (!inPackage.has(f)) {
      problems.push(`${f} is built to ship but is not in the package (.vscodeignore)`);
    }
  }
  const expected = new Set(shipped);
  for (const { file, names } of bundles) {
    for (const name of names) {
      const target = posix.join(posix.dirname(file), name);
      if (target !== file && !expected.has(target) && built(target) && !inPackage.has(target)) {
        problems.push(`${file} loads ${target}, which the build produced but the package lacks (a build marked ship: false in scripts/build.mjs?)`);
        expected.add(target);
      }
    }
  }
  for (const f of packaged) {
    if (f.startsWith('dist/') && !expected.has(f)) {
      problems.push(`${f} is in the package but no shipping build made it (a source map, a test script, a stale file?)`);
    }
  }
  return problems;
}

/** Every file under `dir`, as `dist/…` names. */
function listDist(dir) {
  return existsSync(dir) ? readdirSync(dir, { recursive: true }).map((f) => `dist/${String(f).replaceAll('\\', '/')}`) : [];
}

async function main() {
  const arg = (name) => {
    const at = process.argv.indexOf(name);
    return at > 0 ? process.argv[at + 1] : undefined;
  };
  let vsix = arg('--vsix');
  let stage = arg('--stage');
  if (vsix === undefined || stage === undefined) {
    const { packageExtension } = await import('../../scripts/package.mjs');
    ({ vsix, stage } = await packageExtension({ out: join(root, '.package', 'check', 'hermes-acp.vsix') }));
  }
  const stageDist = join(resolve(stage), 'dist');
  const listFile = join(stageDist, 'package-files.json');
  if (!existsSync(listFile)) {
    console.error(`package check: ${listFile} is missing: the package was not built by scripts/package.mjs`);
    process.exit(1);
  }
  const shipped = JSON.parse(readFileSync(listFile, 'utf8'));
  const packaged = await vsixFiles(vsix);
  // What the build can produce: the staged (shipped-only) build and the working tree's full build.
  const built = new Set([...listDist(stageDist), ...listDist(join(root, 'dist'))]);
  const bundles = shipped
    .filter((f) => f.endsWith('.js') && !f.startsWith('dist/webview/'))
    .map((file) => ({ file, names: namedScripts(readFileSync(join(stageDist, file.slice('dist/'.length)), 'utf8')) }));
  const problems = packageProblems({ shipped, packaged, bundles, built: (f) => built.has(f) });
  if (problems.length > 0) {
    console.error(`package check: ${vsix}\n- ${problems.join('\n- ')}`);
    process.exit(1);
  }
  const loaded = bundles.flatMap((b) => b.names.map((n) => posix.join(posix.dirname(b.file), n)).filter((f) => built.has(f)));
  console.log(`package check: ${packaged.length} files in ${vsix}; all ${shipped.length} shipped build outputs present (scripts the bundles load by name: ${[...new Set(loaded)].sort().join(', ')})`);
}

if (process.argv[1] !== undefined && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  main().catch((e) => {
    console.error(`package check failed: ${e instanceof Error ? e.stack : String(e)}`);
    process.exit(1);
  });
}
