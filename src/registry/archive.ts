import { chmod, mkdir, readdir, readlink, realpath, rename, rm, stat } from 'node:fs/promises';
import { createReadStream, createWriteStream } from 'node:fs';
import * as path from 'node:path';
import { Transform } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { createGunzip } from 'node:zlib';
import { bunzip2File } from './bunzip2';
import type { ExtractLimits } from './extractLimits';
import { cmdPath, isInside } from './installPaths';
import { RegistryError, throwIfAborted } from './registryErrors';
import type * as RegistryUnpack from './registryUnpack';
import { loadChunk } from '../util/lazyChunk';

export type ArchiveKind = 'zip' | 'tar.gz' | 'tar.bz2' | 'raw';

/** Installer formats FORMAT.md rules out: they need an installer, not an unpacker. */
const installers = ['.dmg', '.pkg', '.deb', '.rpm', '.msi', '.appimage'];

/** The archive format, from the URL's path (FORMAT.md: `.zip`, `.tar.gz`, `.tgz`, `.tar.bz2`, `.tbz2`, else a raw binary). */
export function archiveKind(url: string): ArchiveKind {
  let name: string;
  try {
    name = decodeURIComponent(new URL(url).pathname).toLowerCase();
  } catch {
    name = url.toLowerCase();
  }
  if (name.endsWith('.zip')) {
    return 'zip';
  }
  if (name.endsWith('.tar.gz') || name.endsWith('.tgz')) {
    return 'tar.gz';
  }
  if (name.endsWith('.tar.bz2') || name.endsWith('.tbz2')) {
    return 'tar.bz2';
  }
  const installer = installers.find((ext) => name.endsWith(ext));
  if (installer !== undefined) {
    throw new RegistryError('unsupportedArchive', `${installer} installers cannot be installed by this extension; install the agent by hand and add it to "hermes.agents".`);
  }
  return 'raw';
}

export interface UnpackOptions {
  readonly kind: ArchiveKind;
  /** The target's `cmd`: where a raw binary is placed. */
  readonly cmd: string;
  readonly limits: ExtractLimits;
  readonly signal?: AbortSignal;
}

/** Unpacks the downloaded `file` into the (empty) folder `dest`. `file` is consumed. */
export async function unpack(file: string, dest: string, o: UnpackOptions): Promise<void> {
  switch (o.kind) {
    case 'zip':
      return loadChunk<typeof RegistryUnpack>(__dirname, 'registryUnpack').extractZip(file, dest, o.limits, o.signal);
    case 'tar.gz':
    case 'tar.bz2': {
      // Decompressed to a plain tar first: a truncated or damaged stream fails here as a whole
      // (node-tar's inline gunzip stops quietly at a truncation), and both tar passes read it.
      const plain = `${file}.tar`;
      try {
        await (o.kind === 'tar.gz' ? gunzipFile(file, plain, o.limits.maxBytes, o.signal) : bunzip2File(file, plain, o.limits.maxBytes, o.signal));
        return await loadChunk<typeof RegistryUnpack>(__dirname, 'registryUnpack').extractTar(plain, dest, o.limits, o.signal);
      } finally {
        await rm(plain, { force: true });
      }
    }
    case 'raw': {
      const target = cmdPath(dest, o.cmd, path, o.limits.caseInsensitive);
      await mkdir(path.dirname(target), { recursive: true });
      await rename(file, target);
      return;
    }
  }
}

async function gunzipFile(input: string, output: string, maxBytes: number, signal?: AbortSignal): Promise<void> {
  let total = 0;
  const limit = new Transform({
    transform(chunk: Buffer, _enc, done): void {
      total += chunk.length;
      done(total > maxBytes ? new RegistryError('tooLarge', `The archive was refused: it unpacks to more than ${maxBytes} bytes.`) : null, chunk);
    },
  });
  try {
    await pipeline(createReadStream(input), createGunzip(), limit, createWriteStream(output, { mode: 0o600 }), ...(signal !== undefined ? [{ signal }] : []));
  } catch (e) {
    throwIfAborted(signal);
    throw RegistryError.is(e) ? e : new RegistryError('corruptArchive', `The archive could not be unpacked (gzip): ${e instanceof Error ? e.message : String(e)}`);
  }
}

/**
 * After extraction: every symlink below `root` must resolve inside it (links can chain — `a → up/..`
 * with `up → .` passes a check on names alone), and a dangling one must point inside by name.
 */
export async function checkLinks(root: string, caseInsensitive: boolean): Promise<void> {
  const realRoot = await realpath(root);
  const walk = async (dir: string): Promise<void> => {
    for (const d of await readdir(dir, { withFileTypes: true })) {
      const p = path.join(dir, d.name);
      if (d.isSymbolicLink()) {
        let resolved: string;
        try {
          resolved = await realpath(p);
        } catch {
          resolved = path.resolve(path.dirname(p), await readlink(p));
        }
        if (!isInside(realRoot, resolved, path, caseInsensitive) && !isInside(root, resolved, path, caseInsensitive)) {
          throw new RegistryError('unsafeArchive', `The archive was refused: link "${path.relative(root, p)}" resolves outside the install folder.`);
        }
      } else if (d.isDirectory()) {
        await walk(p);
      }
    }
  };
  await walk(root);
}

/**
 * The target's `cmd` in `root`: inside the folder by name and by real path (a link to `/bin/sh`
 * is refused), an existing regular file, with its run bit set. Returns the path as named.
 */
export async function prepareCmd(root: string, cmd: string, caseInsensitive: boolean): Promise<string> {
  const named = cmdPath(root, cmd, path, caseInsensitive);
  let real: string;
  try {
    real = await realpath(named);
  } catch {
    throw new RegistryError('cmdMissing', `The registry entry's command "${cmd}" is not in the downloaded archive.`);
  }
  if (!isInside(await realpath(root), real, path, caseInsensitive)) {
    throw new RegistryError('cmdOutside', `The registry entry was refused: its command "${cmd}" resolves outside the install folder.`);
  }
  const info = await stat(real);
  if (!info.isFile()) {
    throw new RegistryError('cmdMissing', `The registry entry's command "${cmd}" is not a file in the archive.`);
  }
  // Archives made on Windows (zip) carry no mode bits: the agent must still be runnable.
  await chmod(real, (info.mode & 0o777) | 0o500 | ((info.mode & 0o044) >> 2));
  return named;
}
