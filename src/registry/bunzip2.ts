import { rm } from 'node:fs/promises';
import * as path from 'node:path';
import { Worker } from 'node:worker_threads';
import { RegistryError, throwIfAborted } from './registryErrors';

/**
 * The worker script: `dist/bunzip2Worker.js` next to the extension bundle, or the transpiled
 * `bunzip2Worker.js` next to this file in the test build — the same relative place in both.
 */
export const bunzip2WorkerPath = path.join(__dirname, 'bunzip2Worker.js');

/**
 * Decompresses a `.bz2` file into `output` with seek-bzip (CRC-checked, multi-stream) in a worker
 * thread; the abort signal terminates it. A bad stream or more than `maxBytes` is a `corruptArchive`
 * / `tooLarge` {@link RegistryError}, and `output` is removed.
 */
export async function bunzip2File(input: string, output: string, maxBytes: number, signal?: AbortSignal, workerPath = bunzip2WorkerPath): Promise<number> {
  throwIfAborted(signal);
  const worker = new Worker(workerPath, { workerData: { input, output, maxBytes } });
  const onAbort = (): void => void worker.terminate();
  signal?.addEventListener('abort', onAbort, { once: true });
  try {
    const reply = await new Promise<unknown>((resolve, reject) => {
      worker.once('message', resolve);
      worker.once('error', reject);
      worker.once('exit', () => resolve(undefined));
    });
    throwIfAborted(signal);
    const r = reply as { ok?: unknown; bytes?: unknown; message?: unknown } | undefined;
    if (r?.ok === true && typeof r.bytes === 'number') {
      return r.bytes;
    }
    const message = typeof r?.message === 'string' ? r.message : 'the decompressor stopped';
    throw new RegistryError(message.includes('more than') ? 'tooLarge' : 'corruptArchive', `The archive could not be unpacked (bzip2): ${message}`);
  } catch (e) {
    await rm(output, { force: true });
    throw RegistryError.is(e) ? e : new RegistryError('corruptArchive', `The archive could not be unpacked (bzip2): ${e instanceof Error ? e.message : String(e)}`);
  } finally {
    signal?.removeEventListener('abort', onAbort);
    void worker.terminate();
  }
}
