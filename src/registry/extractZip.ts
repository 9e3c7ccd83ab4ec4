import { createWriteStream } from 'node:fs';
import { mkdir, symlink } from 'node:fs/promises';
import * as path from 'node:path';
import type { Readable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import * as yauzl from 'yauzl';
import { entryTarget, linkTarget } from './installPaths';
import type { ExtractLimits } from './extractLimits';
import { RegistryError, throwIfAborted } from './registryErrors';

const S_IFMT = 0o170000;
const S_IFDIR = 0o040000;
const S_IFLNK = 0o120000;

interface ZipItem {
  readonly entry: yauzl.Entry;
  readonly target: string;
  readonly kind: 'dir' | 'file' | 'link';
  readonly mode: number;
  readonly link?: string;
}

function openZip(file: string): Promise<yauzl.ZipFile> {
  return new Promise((resolve, reject) => {
    // lazyEntries: one entry at a time; validateEntrySizes: a lying header is an error, not a bomb.
    yauzl.open(file, { lazyEntries: true, autoClose: false, validateEntrySizes: true, strictFileNames: false }, (err, zip) => {
      if (err !== null || zip === undefined) {
        reject(corrupt(err));
      } else {
        resolve(zip);
      }
    });
  });
}

function readStream(zip: yauzl.ZipFile, entry: yauzl.Entry): Promise<Readable> {
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (err, stream) => (err !== null || stream === undefined ? reject(corrupt(err)) : resolve(stream)));
  });
}

async function readSmall(zip: yauzl.ZipFile, entry: yauzl.Entry, max: number): Promise<string> {
  const parts: Buffer[] = [];
  let size = 0;
  for await (const chunk of await readStream(zip, entry)) {
    const b = chunk as Buffer;
    size += b.length;
    if (size > max) {
      throw new RegistryError('unsafeArchive', `The archive was refused: link "${entry.fileName}" has an oversized target.`);
    }
    parts.push(b);
  }
  return Buffer.concat(parts).toString('utf8');
}

/** Every entry of the central directory, checked; nothing is written yet. */
function listEntries(zip: yauzl.ZipFile, dest: string, limits: ExtractLimits): Promise<ZipItem[]> {
  const items: ZipItem[] = [];
  let bytes = 0;
  return new Promise((resolve, reject) => {
    const fail = (e: unknown): void => {
      zip.removeAllListeners('entry');
      reject(RegistryError.is(e) ? e : corrupt(e));
    };
    zip.on('error', fail);
    zip.on('end', () => resolve(items));
    zip.on('entry', (entry: yauzl.Entry) => {
      void (async () => {
        if (items.length >= limits.maxEntries) {
          throw new RegistryError('tooLarge', `The archive was refused: more than ${limits.maxEntries} entries.`);
        }
        bytes += entry.uncompressedSize;
        if (bytes > limits.maxBytes) {
          throw new RegistryError('tooLarge', `The archive was refused: it unpacks to more than ${limits.maxBytes} bytes.`);
        }
        if (entry.isEncrypted()) {
          throw new RegistryError('unsupportedArchive', `The archive was refused: "${entry.fileName}" is encrypted.`);
        }
        const unixMode = (entry.externalFileAttributes >>> 16) & 0xffff;
        const type = unixMode & S_IFMT;
        const target = entryTarget(dest, entry.fileName, path, limits.caseInsensitive);
        if (type === S_IFLNK) {
          const link = await readSmall(zip, entry, 4096);
          linkTarget(dest, entry.fileName, link, path, limits.caseInsensitive);
          items.push({ entry, target, kind: 'link', mode: 0, link });
        } else if (type === S_IFDIR || entry.fileName.endsWith('/')) {
          items.push({ entry, target, kind: 'dir', mode: 0o755 });
        } else if (type === 0 || type === 0o100000) {
          items.push({ entry, target, kind: 'file', mode: (unixMode & 0o777) || 0o644 });
        } else {
          throw new RegistryError('unsafeArchive', `The archive was refused: entry "${entry.fileName}" is not a file, folder or link.`);
        }
        zip.readEntry();
      })().catch(fail);
    });
    zip.readEntry();
  });
}

/**
 * Extracts a zip into `dest` with yauzl: the central directory is read and every name and link
 * target checked first (yauzl itself rejects absolute and `..` names); then folders and files are
 * written, links last — so no file is ever written through a link from the same archive.
 */
export async function extractZip(file: string, dest: string, limits: ExtractLimits, signal?: AbortSignal): Promise<void> {
  let zip = await openZip(file);
  let items: ZipItem[];
  try {
    items = await listEntries(zip, dest, limits);
  } finally {
    zip.close();
  }
  zip = await openZip(file);
  try {
    for (const item of items.filter((i) => i.kind !== 'link')) {
      throwIfAborted(signal);
      if (item.kind === 'dir') {
        await mkdir(item.target, { recursive: true });
        continue;
      }
      await mkdir(path.dirname(item.target), { recursive: true });
      await pipeline(await readStream(zip, item.entry), createWriteStream(item.target, { mode: item.mode, flags: 'wx' }));
    }
    for (const item of items.filter((i) => i.kind === 'link')) {
      await mkdir(path.dirname(item.target), { recursive: true });
      await symlink(item.link ?? '', item.target);
    }
  } catch (e) {
    throw RegistryError.is(e) ? e : corrupt(e);
  } finally {
    zip.close();
  }
}

function corrupt(e: unknown): RegistryError {
  const message = e instanceof Error ? e.message : String(e);
  // yauzl's own name checks (validateFileName): report them as the refusal they are.
  if (/^(invalid relative path|absolute path|invalid characters in fileName)/.test(message)) {
    return new RegistryError('unsafeArchive', `The archive was refused: ${message} would be written outside the install folder.`);
  }
  return new RegistryError('corruptArchive', `The archive could not be unpacked: ${message}`);
}
