import * as fs from 'node:fs';
import * as os from 'node:os';
import { hostSemantics } from './canonicalPath';
import type { PermissionFs, PolicyContext } from './types';

/** The real file system, synchronously: a permission decision is a handful of look-ups. */
export const nodePermissionFs: PermissionFs = {
  realpath: (p) => fs.realpathSync.native(p),
  lexists: (p) => {
    try {
      fs.lstatSync(p);
      return true;
    } catch {
      return false;
    }
  },
  linkCount: (p) => {
    try {
      const s = fs.statSync(p);
      return s.isFile() ? s.nlink : 1;
    } catch {
      return 1;
    }
  },
};

/** The policy context of this machine for a session in `cwd`. */
export function hostPolicyContext(cwd: string, roots: readonly string[] = [cwd], sensitive: readonly string[] = []): PolicyContext {
  return { cwd, roots, home: os.homedir(), semantics: hostSemantics(), fs: nodePermissionFs, sensitive };
}
