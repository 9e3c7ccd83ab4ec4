import { existsSync } from 'node:fs';
import * as path from 'node:path';

/** Repository root, from compiled tests in out/test/** or sources in test/**. */
export const repoRoot = ((): string => {
  let dir = __dirname;
  while (!existsSync(path.join(dir, 'package.json'))) {
    const parent = path.dirname(dir);
    if (parent === dir) {
      throw new Error(`package.json not found above ${__dirname}`);
    }
    dir = parent;
  }
  return dir;
})();

export const scriptedAgentPath = path.join(repoRoot, 'dist', 'agents', 'scriptedAgent.js');
export const replayAgentPath = path.join(repoRoot, 'out', 'test', 'agents', 'replayAgent.js');
export const fixturesDir = path.join(repoRoot, 'test', 'fixtures');
