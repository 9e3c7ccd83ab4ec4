/**
 * An in-memory file system for the permission policy (its `PermissionFs` port), so the corpus can
 * simulate Windows (`path.win32`, drive letters, case-insensitive names) and macOS (case-insensitive
 * names) on Linux. `realpath` follows symlinks component by component like the OS: relative link
 * targets from the link's folder, ENOENT for a missing component, ENOTDIR through a file, ELOOP
 * after 40 links; names are returned in the case they were created with. `fakeFs.test.ts` checks
 * it against the real `fs.realpathSync` on the same tree.
 */
import * as path from 'node:path';
import type { PathSemantics, PermissionFs } from '../../../src/permissions/types';

/** `hardlinkOf`: a second name of another file (both then have a link count of 2). */
export type FakeEntry = 'file' | 'dir' | { readonly link: string } | { readonly hardlinkOf: string };

function fsError(code: string, p: string): Error {
  return Object.assign(new Error(`${code}: ${p}`), { code });
}

export class FakeFs implements PermissionFs {
  private readonly entries = new Map<string, { readonly name: string; readonly entry: FakeEntry }>();
  private readonly p: path.PlatformPath;

  constructor(
    private readonly sem: PathSemantics,
    tree: Readonly<Record<string, FakeEntry>>,
  ) {
    this.p = sem.flavor === 'win32' ? path.win32 : path.posix;
    for (const [where, entry] of Object.entries(tree)) {
      const abs = this.p.resolve(where);
      for (let dir = this.p.dirname(abs); dir !== this.p.dirname(dir); dir = this.p.dirname(dir)) {
        if (!this.entries.has(this.key(dir))) {
          this.entries.set(this.key(dir), { name: dir, entry: 'dir' });
        }
      }
      this.entries.set(this.key(abs), { name: abs, entry });
    }
  }

  realpath(p: string): string {
    return this.resolve(this.p.resolve(p), true, 0);
  }

  lexists(p: string): boolean {
    const abs = this.p.resolve(p);
    const parent = this.p.dirname(abs);
    if (parent === abs) {
      return true;
    }
    try {
      const dir = this.resolve(parent, true, 0);
      return this.entries.has(this.key(this.p.join(dir, this.p.basename(abs))));
    } catch {
      return false;
    }
  }

  linkCount(p: string): number {
    const key = this.key(this.resolve(this.p.resolve(p), true, 0));
    const twice = [...this.entries.values()].some(({ name, entry }) => typeof entry === 'object' && 'hardlinkOf' in entry && (this.key(name) === key || this.key(this.p.resolve(entry.hardlinkOf)) === key));
    return twice ? 2 : 1;
  }

  private key(abs: string): string {
    const k = this.sem.flavor === 'win32' ? abs.replace(/\//g, '\\') : abs;
    return this.sem.caseInsensitive ? k.toLowerCase() : k;
  }

  private resolve(abs: string, followLast: boolean, depth: number): string {
    if (depth > 40) {
      throw fsError('ELOOP', abs);
    }
    const root = this.p.parse(abs).root;
    const names = abs.slice(root.length).split(/[\\/]/).filter((n) => n !== '');
    let current = root;
    for (const [i, name] of names.entries()) {
      const next = this.p.join(current, name);
      const found = this.entries.get(this.key(next));
      if (found === undefined) {
        throw fsError('ENOENT', abs);
      }
      const last = i === names.length - 1;
      if (typeof found.entry === 'object' && 'link' in found.entry && (!last || followLast)) {
        const target = this.p.resolve(this.p.dirname(found.name), found.entry.link);
        current = this.resolve(target, true, depth + 1);
        continue;
      }
      if ((found.entry === 'file' || (typeof found.entry === 'object' && 'hardlinkOf' in found.entry)) && !last) {
        throw fsError('ENOTDIR', abs);
      }
      current = found.name;
    }
    return current;
  }
}
