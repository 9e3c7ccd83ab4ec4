import { createHash } from 'node:crypto';
import { promises as fs } from 'node:fs';
import * as path from 'node:path';

/** What a scan remembers of a file: enough to tell it changed without reading it again. */
export interface ScannedFile {
  readonly size: number;
  readonly mtimeMs: number;
  readonly ino: number;
  /** sha256 of the content; undefined when the file was over the size limit (not saved). */
  readonly sha: string | undefined;
}

export interface ScanLimits {
  readonly maxFiles: number;
  readonly maxFileBytes: number;
  readonly maxTotalBytes: number;
}

export const defaultScanLimits: ScanLimits = { maxFiles: 20_000, maxFileBytes: 8 * 1024 * 1024, maxTotalBytes: 256 * 1024 * 1024 };

/** Folders a turn-start snapshot never walks (git's own data, other worktrees, installed packages). */
const skippedFolders = new Set(['.git', '.worktrees', 'node_modules']);

/** Content-addressed blobs: `objects/<sha256>`, written once. */
export class ObjectStore {
  constructor(readonly folder: string) {}

  async put(content: Buffer): Promise<string> {
    const sha = createHash('sha256').update(content).digest('hex');
    const file = path.join(this.folder, sha);
    try {
      await fs.access(file);
    } catch {
      await fs.mkdir(this.folder, { recursive: true });
      const temp = `${file}.${process.pid}.tmp`;
      await fs.writeFile(temp, content);
      await fs.rename(temp, file);
    }
    return sha;
  }

  get(sha: string): Promise<Buffer> {
    if (!/^[0-9a-f]{64}$/.test(sha)) {
      return Promise.reject(new Error(`not an object id: ${sha}`));
    }
    return fs.readFile(path.join(this.folder, sha));
  }
}

/**
 * Every regular file under `root` (links, `.git`, `.worktrees` and `node_modules` left out), its
 * content saved in `objects` when `save` — or, without `save`, compared against `previous` by
 * size, time and inode and hashed only when those differ. Over the limits: files are recorded
 * without content, and `truncated` says so.
 */
export async function scanFolder(root: string, objects: ObjectStore, o: { save: boolean; previous?: ReadonlyMap<string, ScannedFile>; limits?: ScanLimits }): Promise<{ files: Map<string, ScannedFile>; truncated: boolean }> {
  const limits = o.limits ?? defaultScanLimits;
  const files = new Map<string, ScannedFile>();
  let total = 0;
  let truncated = false;
  const walk = async (dir: string, rel: string): Promise<void> => {
    let entries;
    try {
      entries = await fs.readdir(dir, { withFileTypes: true });
    } catch {
      return;
    }
    for (const d of entries) {
      const childRel = rel === '' ? d.name : `${rel}/${d.name}`;
      const full = path.join(dir, d.name);
      if (d.isDirectory()) {
        if (!skippedFolders.has(d.name)) {
          await walk(full, childRel);
        }
        continue;
      }
      if (!d.isFile()) {
        continue;
      }
      if (files.size >= limits.maxFiles) {
        truncated = true;
        return;
      }
      const stat = await fs.stat(full).catch(() => undefined);
      if (stat === undefined) {
        continue;
      }
      const before = o.previous?.get(childRel);
      if (before?.size === stat.size && before.mtimeMs === stat.mtimeMs && before.ino === stat.ino) {
        files.set(childRel, before);
        continue;
      }
      let sha: string | undefined;
      if (stat.size <= limits.maxFileBytes && total + stat.size <= limits.maxTotalBytes) {
        const content = await fs.readFile(full).catch(() => undefined);
        if (content !== undefined) {
          total += content.length;
          sha = o.save ? await objects.put(content) : createHash('sha256').update(content).digest('hex');
        }
      } else {
        truncated = true;
      }
      files.set(childRel, { size: stat.size, mtimeMs: stat.mtimeMs, ino: stat.ino, sha });
    }
  };
  await walk(root, '');
  return { files, truncated };
}
