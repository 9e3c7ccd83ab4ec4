import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { repoRoot } from '../../support/paths';

interface PackageCheck {
  readonly packageProblems: (o: { shipped: string[]; packaged: string[]; bundles: { file: string; names: string[] }[]; built: (file: string) => boolean }) => string[];
  readonly namedScripts: (text: string) => string[];
}

const load = async (): Promise<PackageCheck> => (await import(path.join(repoRoot, 'test', 'checks', 'checkPackage.mjs'))) as PackageCheck;

/**
 * The package check's rules (test/checks/checkPackage.mjs; the checks stage runs it on the real
 * .vsix). Issue 37: the .vsix lacked dist/watchdog.js and nothing failed.
 */
suite('package check: the .vsix holds every file the extension loads', () => {
  const shipped = ['dist/extension.js', 'dist/cli.js', 'dist/watchdog.js', 'dist/registryUnpack.js', 'dist/webview/main.js'];
  const bundles = [{ file: 'dist/extension.js', names: ['watchdog.js', 'bunzip2Worker.js', 'vendor.js'] }];
  const built = (f: string): boolean => [...shipped, 'dist/bunzip2Worker.js', 'dist/agents/stubbornAgent.js'].includes(f);

  test('benign: everything the build ships is packed', async () => {
    const { packageProblems } = await load();
    assert.deepEqual(packageProblems({ shipped: [...shipped, 'dist/bunzip2Worker.js'], packaged: [...shipped, 'dist/bunzip2Worker.js', 'package.json', 'README.md'], bundles, built }), []);
  });

  test('a shipped file missing from the package (the watchdog, as in issue 37) fails, by name', async () => {
    const { packageProblems } = await load();
    const problems = packageProblems({ shipped: [...shipped, 'dist/bunzip2Worker.js'], packaged: [...shipped.filter((f) => f !== 'dist/watchdog.js'), 'dist/bunzip2Worker.js'], bundles, built });
    assert.deepEqual(problems, ['dist/watchdog.js is built to ship but is not in the package (.vscodeignore)']);
  });

  test('a script a bundle loads by name, built by a build marked ship: false, fails; a name nothing builds does not', async () => {
    const { packageProblems } = await load();
    const problems = packageProblems({ shipped, packaged: shipped, bundles, built });
    assert.deepEqual(problems, ['dist/extension.js loads dist/bunzip2Worker.js, which the build produced but the package lacks (a build marked ship: false in scripts/build.mjs?)']);
  });

  test('files no shipping build made (a map, a test agent) fail', async () => {
    const { packageProblems } = await load();
    const problems = packageProblems({ shipped, packaged: [...shipped, 'dist/extension.js.map', 'dist/agents/stubbornAgent.js'], bundles: [], built });
    assert.equal(problems.length, 2);
    assert.match(problems[0] ?? '', /^dist\/extension\.js\.map is in the package but no shipping build made it/);
  });

  test('script names are read from string literals the way a bundle finds files next to it', async () => {
    const { namedScripts } = await load();
    assert.deepEqual(namedScripts(`const s = path.join(__dirname, "watchdog.js"); new Worker(path.join(__dirname, 'bunzip2Worker.js')); x = \`cli.js\`; y = foo.js;`), ['watchdog.js', 'bunzip2Worker.js', 'cli.js']);
  });
});
