/**
 * A hostile file-system layout for R5: a workspace with links that escape it, an "outside" tree
 * that must stay byte-for-byte unchanged, a sibling folder sharing the workspace's name as a
 * prefix, a FIFO, a real character device (when running as root), and a 200 MB sparse file.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';

export interface HostileTree {
  /** Holds `outside` (and `ws` when the tree made its own workspace). */
  readonly base: string;
  /** The workspace folder (the boundary's root). */
  readonly root: string;
  /** Where the fixture's files and links live: `root`, or a folder inside it. */
  readonly ws: string;
  readonly outside: string;
  readonly sibling: string;
  /** True when a character device could be created inside the workspace (needs root). */
  readonly deviceInside: boolean;
  readonly bigFile: string;
}

export const BIG_FILE_BYTES = 200 * 1024 * 1024;

/**
 * Without `root`: a new temp dir holding `ws` (the workspace) and `outside`. With `root` (an open
 * workspace folder): the fixture goes into a new folder inside it, `outside` into a new temp dir.
 * `sibling` is always `<root>-evil`, next to the workspace folder.
 */
export function hostileTree(prefix: string, root?: string): HostileTree {
  const base = fs.realpathSync(fs.mkdtempSync(path.join(os.tmpdir(), prefix)));
  const realRoot = root !== undefined ? fs.realpathSync(root) : path.join(base, 'ws');
  const ws = root !== undefined ? fs.mkdtempSync(path.join(realRoot, 'r5-')) : realRoot;
  const outside = path.join(base, 'outside');
  const sibling = `${realRoot}-evil`;
  for (const d of [ws, path.join(ws, 'sub'), outside, path.join(outside, 'dir'), sibling]) {
    fs.mkdirSync(d, { recursive: true });
  }
  fs.writeFileSync(path.join(ws, 'file.txt'), 'inside\n');
  fs.writeFileSync(path.join(outside, 'victim.txt'), 'untouched\n');
  fs.writeFileSync(path.join(outside, 'dir', 'deep.txt'), 'deep\n');
  fs.writeFileSync(path.join(sibling, 'f.txt'), 'sibling\n');
  fs.symlinkSync(path.join(outside, 'victim.txt'), path.join(ws, 'link-file'));
  fs.symlinkSync(outside, path.join(ws, 'link-dir'));
  fs.symlinkSync(path.join(ws, 'link-dir'), path.join(ws, 'link-chain'));
  fs.symlinkSync(path.join(outside, 'not-yet.txt'), path.join(ws, 'link-dangling'));
  fs.symlinkSync(path.join(outside, 'newdir'), path.join(ws, 'link-dangling-dir'));
  fs.symlinkSync('/', path.join(ws, 'link-root'));
  fs.symlinkSync(path.dirname(realRoot), path.join(ws, 'link-up'));
  fs.symlinkSync('/dev/zero', path.join(ws, 'link-zero'));
  fs.symlinkSync(path.join(ws, 'sub'), path.join(ws, 'link-inside'));
  fs.linkSync(path.join(outside, 'victim.txt'), path.join(ws, 'hard'));
  execFileSync('mkfifo', [path.join(ws, 'fifo')]);
  let deviceInside: boolean;
  try {
    execFileSync('mknod', [path.join(ws, 'zero'), 'c', '1', '5'], { stdio: 'ignore' });
    deviceInside = fs.statSync(path.join(ws, 'zero')).isCharacterDevice();
  } catch {
    deviceInside = false;
  }
  const bigFile = path.join(ws, 'big.bin');
  // Sparse: 200 MB long, no disk blocks.
  const fd = fs.openSync(bigFile, 'w');
  fs.ftruncateSync(fd, BIG_FILE_BYTES);
  fs.closeSync(fd);
  return { base, root: realRoot, ws, outside, sibling, deviceInside, bigFile };
}

/** Every file outside the workspace (under `base` and `sibling`), with size and content hash (the "0 bytes written" oracle). */
export function outsideSnapshot(t: HostileTree): Map<string, string> {
  const out = new Map<string, string>();
  const walk = (dir: string): void => {
    for (const name of fs.readdirSync(dir)) {
      const p = path.join(dir, name);
      if (p === t.root) {
        continue;
      }
      const st = fs.lstatSync(p);
      if (st.isDirectory()) {
        out.set(p, 'dir');
        walk(p);
      } else if (st.isFile()) {
        out.set(p, `${st.size}:${createHash('sha1').update(fs.readFileSync(p)).digest('hex')}`);
      } else {
        out.set(p, 'other');
      }
    }
  };
  walk(t.base);
  if (!t.sibling.startsWith(`${t.base}${path.sep}`)) {
    walk(t.sibling);
  }
  return out;
}

/** Bytes written outside: new or changed files between two snapshots (sizes of the new content). */
export function bytesWrittenOutside(before: ReadonlyMap<string, string>, after: ReadonlyMap<string, string>): { bytes: number; changed: string[] } {
  let bytes = 0;
  const changed: string[] = [];
  for (const [p, sig] of after) {
    if (before.get(p) !== sig) {
      changed.push(p);
      const size = Number(sig.split(':')[0]);
      bytes += Number.isFinite(size) ? size : 0;
    }
  }
  for (const p of before.keys()) {
    if (!after.has(p)) {
      changed.push(`${p} (removed)`);
    }
  }
  return { bytes, changed };
}

export interface Attempt {
  readonly what: string;
  readonly path: string;
}

/** Hostile file paths for fs/read_text_file and fs/write_text_file. */
export function fileAttempts(t: HostileTree, tag: string): Attempt[] {
  const { ws, outside } = t;
  // From the fixture folder to the outside folder, as `..` segments (not normalised).
  const up = path.relative(ws, outside);
  const fromParent = path.relative(path.dirname(t.root), outside);
  const list: Attempt[] = [
    { what: 'absolute path outside', path: path.join(outside, 'victim.txt') },
    { what: 'new file outside', path: path.join(outside, `new-${tag}.txt`) },
    { what: 'system file', path: '/etc/passwd' },
    { what: 'new file in /etc', path: `/etc/hermes-r5-${tag}` },
    { what: 'relative path', path: 'file.txt' },
    { what: 'relative traversal', path: `${up}/victim.txt` },
    { what: '.. traversal', path: `${ws}/${up}/victim.txt` },
    { what: '.. traversal from a subfolder', path: `${ws}/sub/../${up}/new-${tag}.txt` },
    { what: '.. traversal past the root', path: `${ws}/${'../'.repeat(12)}etc/passwd` },
    { what: 'sibling folder sharing the prefix', path: path.join(t.sibling, 'f.txt') },
    { what: 'symlink to a file outside', path: path.join(ws, 'link-file') },
    { what: 'through a symlinked folder', path: path.join(ws, 'link-dir', 'victim.txt') },
    { what: 'new file through a symlinked folder', path: path.join(ws, 'link-dir', `new-${tag}.txt`) },
    { what: 'new nested file through a symlinked folder', path: path.join(ws, 'link-dir', 'a', 'b', `new-${tag}.txt`) },
    { what: 'symlink chain', path: path.join(ws, 'link-chain', 'dir', 'deep.txt') },
    { what: 'dangling symlink to outside', path: path.join(ws, 'link-dangling') },
    { what: 'symlink to /', path: path.join(ws, 'link-root', 'etc', 'passwd') },
    { what: 'symlink to the parent of the workspace', path: path.join(ws, 'link-up', fromParent, 'victim.txt') },
    { what: 'hard link to a file outside', path: path.join(ws, 'hard') },
    { what: 'device /dev/zero', path: '/dev/zero' },
    { what: 'device /dev/urandom', path: '/dev/urandom' },
    { what: 'symlink to /dev/zero', path: path.join(ws, 'link-zero') },
    { what: 'FIFO inside the workspace', path: path.join(ws, 'fifo') },
    { what: 'the workspace folder itself', path: ws },
    { what: '/proc file', path: '/proc/self/environ' },
    { what: 'NUL byte', path: `${ws}/file.txt\0/${up}/victim.txt` },
    { what: 'empty path', path: '' },
  ];
  if (t.deviceInside) {
    list.push({ what: 'character device inside the workspace', path: path.join(ws, 'zero') });
  }
  return list;
}

/** Hostile terminal cwds. */
export function cwdAttempts(t: HostileTree): Attempt[] {
  const { ws, outside } = t;
  return [
    { what: 'folder outside', path: outside },
    { what: '.. traversal', path: `${ws}/${path.relative(ws, outside)}` },
    { what: '.. to the parent of the workspace', path: `${t.root}/..` },
    { what: 'sibling folder sharing the prefix', path: t.sibling },
    { what: 'symlinked folder outside', path: path.join(ws, 'link-dir') },
    { what: 'symlink chain', path: path.join(ws, 'link-chain') },
    { what: 'symlink to /', path: path.join(ws, 'link-root') },
    { what: 'symlink to the parent of the workspace', path: path.join(ws, 'link-up') },
    { what: 'dangling symlinked folder', path: path.join(ws, 'link-dangling-dir') },
    { what: '/', path: '/' },
    { what: '/dev', path: '/dev' },
    { what: '/proc/self/cwd', path: '/proc/self/cwd' },
    { what: 'relative', path: 'sub' },
    { what: 'a file', path: path.join(ws, 'file.txt') },
    { what: 'a device', path: '/dev/null' },
    { what: 'missing folder', path: path.join(ws, 'nope') },
    { what: 'NUL byte', path: `${ws}\0/..` },
  ];
}

