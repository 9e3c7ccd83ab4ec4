// Bundle budgets from the esbuild output sizes (dist/sizes.json, written by scripts/build.mjs).
// Budgets apply to production (minified) builds; `npm test` builds the webview minified always.
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const file = join(root, 'dist', 'sizes.json');
if (!existsSync(file)) {
  console.error('dist/sizes.json is missing: run node scripts/build.mjs first');
  process.exit(1);
}
const sizes = JSON.parse(readFileSync(file, 'utf8'));
const budgets = { 'dist/webview/main.js': 200 * 1024 };
let failed = false;
for (const [f, budget] of Object.entries(budgets)) {
  const size = sizes[f];
  if (size === undefined) {
    console.error(`${f}: not built`);
    failed = true;
    continue;
  }
  const ok = size <= budget;
  console.log(`${f}: ${(size / 1024).toFixed(1)} KB of ${(budget / 1024).toFixed(0)} KB ${ok ? 'ok' : 'OVER BUDGET'}`);
  failed ||= !ok;
}
process.exit(failed ? 1 : 0);
