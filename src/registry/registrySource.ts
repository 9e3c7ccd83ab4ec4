import { mkdir, readFile, rename, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkFetchUrl, fetchBytes } from './download';
import { parseRegistry, type Registry, type SkippedEntry } from './registryFormat';
import { RegistryError } from './registryErrors';
import { isObject } from '../util/json';

/** The public ACP Registry index (published by the registry's build workflow). */
export const defaultRegistryUrl = 'https://cdn.agentclientprotocol.com/registry/v1/latest/registry.json';

/** The registry as listed now: fresh, or the last good copy when the index could not be read. */
export interface RegistrySnapshot {
  readonly url: string;
  readonly registry: Registry;
  readonly skipped: readonly SkippedEntry[];
  /** When this copy was fetched (epoch ms). */
  readonly fetchedAt: number;
  readonly fromCache: boolean;
  /** Why the fresh copy could not be used (set when `fromCache`). */
  readonly fetchError?: string;
}

export interface LoadOptions {
  readonly cacheFile: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

const maxIndexBytes = 16 * 1024 * 1024;

async function readIndex(url: string, o: LoadOptions): Promise<string> {
  const parsed = checkFetchUrl(url, { allowFile: true });
  if (parsed.protocol === 'file:') {
    return readFile(fileURLToPath(parsed), 'utf8');
  }
  const bytes = await fetchBytes(url, { maxBytes: maxIndexBytes, idleTimeoutMs: o.timeoutMs ?? 15_000, ...(o.signal !== undefined ? { signal: o.signal } : {}) });
  return bytes.toString('utf8');
}

function parseText(text: string, url: string): { registry: Registry; skipped: SkippedEntry[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new RegistryError('invalidEntry', `The registry at ${url} is not valid JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  return parseRegistry(json, url);
}

interface CacheRecord {
  readonly url: string;
  readonly fetchedAt: number;
  readonly text: string;
}

async function readCache(file: string): Promise<CacheRecord | undefined> {
  try {
    const json: unknown = JSON.parse(await readFile(file, 'utf8'));
    if (isObject(json) && typeof json.url === 'string' && typeof json.fetchedAt === 'number' && typeof json.text === 'string') {
      return { url: json.url, fetchedAt: json.fetchedAt, text: json.text };
    }
  } catch {
    // no cache, or a damaged one: same as none
  }
  return undefined;
}

async function writeCache(file: string, record: CacheRecord): Promise<void> {
  await mkdir(path.dirname(file), { recursive: true });
  const tmp = `${file}.${process.pid}.tmp`;
  await writeFile(tmp, JSON.stringify(record));
  await rename(tmp, file);
}

/**
 * Reads the registry at `url`. A good copy is cached; when the index cannot be fetched or parsed,
 * the cached copy of the same URL is returned with its age and the reason. Without one, throws a
 * {@link RegistryError} `unreachable` that says what failed and what to check.
 */
export async function loadRegistry(url: string, o: LoadOptions): Promise<RegistrySnapshot> {
  const now = o.now ?? Date.now;
  let failure: unknown;
  try {
    const text = await readIndex(url, o);
    const { registry, skipped } = parseText(text, url);
    const fetchedAt = now();
    await writeCache(o.cacheFile, { url, fetchedAt, text }).catch(() => undefined);
    return { url, registry, skipped, fetchedAt, fromCache: false };
  } catch (e) {
    if (RegistryError.is(e, 'cancelled')) {
      throw e;
    }
    failure = e;
  }
  const reason = failure instanceof Error ? failure.message : String(failure);
  const cached = await readCache(o.cacheFile);
  if (cached?.url === url) {
    try {
      const { registry, skipped } = parseText(cached.text, url);
      return { url, registry, skipped, fetchedAt: cached.fetchedAt, fromCache: true, fetchError: reason };
    } catch {
      // an unusable cache is no cache
    }
  }
  throw new RegistryError('unreachable', `The agent registry could not be read (${reason}), and there is no saved copy of ${url}. Check the network, or the "hermes.registry.url" setting.`);
}
