// The TypeScript files under a folder, depth first (the layout and import checks walk src/ with it).
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** @param {string} dir @returns {Generator<string>} */
export function* tsFiles(dir) {
  for (const name of readdirSync(dir)) {
    const p = join(dir, name);
    if (statSync(p).isDirectory()) {
      yield* tsFiles(p);
    } else if (p.endsWith('.ts')) {
      yield p;
    }
  }
}
