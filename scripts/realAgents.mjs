// Runs real ACP agents from npm against the rig's scripted model server on loopback, through the
// headless runner, and prints a results table per agent × scenario. Not part of `npm test`: it
// needs the agents installed (see test/realAgents/README.md).
//   node scripts/realAgents.mjs [--agents claude,gemini,…] [--scenarios text,edit-allow,…] [--out DIR]
import { spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
if (!args.includes('--no-build')) {
  const build = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, stdio: 'inherit' });
  if (build.status !== 0) {
    process.exit(build.status ?? 1);
  }
}
const rig = spawnSync(process.execPath, [join(root, 'dist', 'realAgents', 'rig.js'), ...args.filter((a) => a !== '--no-build')], {
  cwd: root,
  stdio: 'inherit',
});
process.exit(rig.status ?? 1);
