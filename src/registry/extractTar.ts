import * as path from 'node:path';
import * as tar from 'tar';
import { entryTarget, linkTarget } from './installPaths';
import type { ExtractLimits } from './extractLimits';
import { RegistryError, throwIfAborted } from './registryErrors';

const allowedTypes = new Set(['File', 'OldFile', 'ContiguousFile', 'Directory', 'SymbolicLink', 'Link']);

/**
 * Extracts a tar (plain or gzip; node-tar detects which) into `dest`, in two passes over our own
 * temp file: the first lists every entry and refuses the whole archive on an unsafe name, a link
 * out of the folder, a device or FIFO, or past the limits — before anything is written; the second
 * extracts with node-tar's own guards on (`strict`, no absolute or `..` paths, no writes through
 * symlinks, no ownership changes).
 */
export async function extractTar(file: string, dest: string, limits: ExtractLimits, signal?: AbortSignal): Promise<void> {
  const caseInsensitive = limits.caseInsensitive;
  let refusal: RegistryError | undefined;
  let entries = 0;
  let bytes = 0;
  const check = (e: tar.ReadEntry): void => {
    if (++entries > limits.maxEntries) {
      throw new RegistryError('tooLarge', `The archive was refused: more than ${limits.maxEntries} entries.`);
    }
    bytes += e.size;
    if (bytes > limits.maxBytes) {
      throw new RegistryError('tooLarge', `The archive was refused: it unpacks to more than ${limits.maxBytes} bytes.`);
    }
    if (!allowedTypes.has(e.type)) {
      throw new RegistryError('unsafeArchive', `The archive was refused: entry "${e.path}" is a ${e.type}, not a file, folder or link.`);
    }
    entryTarget(dest, e.path, path, caseInsensitive);
    if (e.type === 'SymbolicLink') {
      linkTarget(dest, e.path, e.linkpath ?? '', path, caseInsensitive);
    } else if (e.type === 'Link') {
      // Hard-link targets name another entry of the archive, relative to its root.
      entryTarget(dest, e.linkpath ?? '', path, caseInsensitive);
    }
  };
  try {
    await tar.t({
      file,
      strict: true,
      onReadEntry: (e) => {
        if (refusal === undefined) {
          try {
            check(e);
          } catch (err) {
            refusal = RegistryError.is(err) ? err : new RegistryError('corruptArchive', String(err));
          }
        }
      },
    });
  } catch (e) {
    throw refusal ?? corrupt(e);
  }
  if (refusal !== undefined) {
    throw refusal;
  }
  throwIfAborted(signal);
  try {
    await tar.x({ file, cwd: dest, strict: true, preservePaths: false, preserveOwner: false, unlink: false });
  } catch (e) {
    throw corrupt(e);
  }
}

function corrupt(e: unknown): RegistryError {
  return RegistryError.is(e) ? e : new RegistryError('corruptArchive', `The archive could not be unpacked: ${e instanceof Error ? e.message : String(e)}`);
}
