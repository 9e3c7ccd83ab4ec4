import { createReadStream } from 'node:fs';
import { mkdir, rename, stat, writeFile } from 'node:fs/promises';
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkFetchUrl, fetchBytes } from './download';
import { parseRegistry, RegistryFormatError, type Registry, type SkippedEntry } from './registryFormat';
import { RegistryError, throwIfAborted } from './registryErrors';
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
  /** What kind of failure that was (set when `fromCache`): the list's title and notice say which. */
  readonly fetchFailure?: IndexFailure;
}

/**
 * Why an index could not be used: the registry could not be reached (network, timeout, HTTP
 * error), it answered with something that is not a registry index (invalid JSON, no `agents`), the
 * answer was over the size cap, or the URL itself is refused.
 */
export type IndexFailure = 'unreachable' | 'invalid' | 'tooLarge' | 'refused';

export function indexFailure(e: unknown): IndexFailure {
  if (RegistryError.is(e)) {
    switch (e.kind) {
      case 'invalidIndex':
      case 'invalidEntry':
        return 'invalid';
      case 'tooLarge':
        return 'tooLarge';
      case 'urlRefused':
        return 'refused';
      default:
        return 'unreachable';
    }
  }
  return e instanceof Error && e.name === RegistryFormatError.name ? 'invalid' : 'unreachable';
}

export interface LoadOptions {
  readonly cacheFile: string;
  readonly signal?: AbortSignal;
  readonly timeoutMs?: number;
  readonly now?: () => number;
}

/** The one size cap of a registry index, whatever its source (http, https, file:). */
export const maxIndexBytes = 16 * 1024 * 1024;

/** A local file read in chunks against the cap: a huge file is refused by its size, never read whole. */
async function readCapped(file: string, maxBytes: number, signal?: AbortSignal): Promise<Buffer> {
  const tooLarge = (size: string): RegistryError => new RegistryError('tooLarge', `${file} is ${size}, more than the ${maxBytes} bytes a registry index may have.`);
  let size: number;
  try {
    size = (await stat(file)).size;
  } catch (e) {
    throw new RegistryError('unreachable', `${file} cannot be read: ${e instanceof Error ? e.message : String(e)}`);
  }
  if (size > maxBytes) {
    throw tooLarge(`${size} bytes`);
  }
  const parts: Buffer[] = [];
  let received = 0;
  for await (const chunk of createReadStream(file, { end: maxBytes })) {
    throwIfAborted(signal);
    received += (chunk as Buffer).byteLength;
    if (received > maxBytes) {
      throw tooLarge('growing');
    }
    parts.push(chunk as Buffer);
  }
  return Buffer.concat(parts);
}

async function readIndex(url: string, o: LoadOptions): Promise<string> {
  const parsed = checkFetchUrl(url, { allowFile: true });
  if (parsed.protocol === 'file:') {
    return (await readCapped(fileURLToPath(parsed), maxIndexBytes, o.signal)).toString('utf8');
  }
  const bytes = await fetchBytes(url, { maxBytes: maxIndexBytes, idleTimeoutMs: o.timeoutMs ?? 15_000, ...(o.signal !== undefined ? { signal: o.signal } : {}) });
  return bytes.toString('utf8');
}

function parseText(text: string, url: string): { registry: Registry; skipped: SkippedEntry[] } {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (e) {
    throw new RegistryError('invalidIndex', `The registry at ${url} answered, but not with valid JSON (${e instanceof Error ? e.message : String(e)}).`);
  }
  try {
    return parseRegistry(json, url);
  } catch (e) {
    throw new RegistryError('invalidIndex', `The registry at ${url} answered, but not with a registry index: ${e instanceof Error ? e.message : String(e)}`);
  }
}

interface CacheRecord {
  readonly url: string;
  readonly fetchedAt: number;
  readonly text: string;
}

async function readCache(file: string): Promise<CacheRecord | undefined> {
  try {
    // The saved text of an index within the cap, JSON-escaped: at most about twice its size.
    const json: unknown = JSON.parse((await readCapped(file, 2 * maxIndexBytes + 4096)).toString('utf8'));
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
  const kind = indexFailure(failure);
  const cached = await readCache(o.cacheFile);
  if (cached?.url === url) {
    try {
      const { registry, skipped } = parseText(cached.text, url);
      return { url, registry, skipped, fetchedAt: cached.fetchedAt, fromCache: true, fetchError: reason, fetchFailure: kind };
    } catch {
      // an unusable cache is no cache
    }
  }
  const noCopy = `There is no saved copy of ${url}.`;
  switch (kind) {
    case 'invalid':
      throw new RegistryError('invalidIndex', `${reason} ${noCopy} Check the "hermes.registry.url" setting; if it is right, the registry itself is broken: try again later.`);
    case 'tooLarge':
      throw new RegistryError('tooLarge', `The agent registry was refused: ${reason} ${noCopy} Check that the "hermes.registry.url" setting names a registry index (registry.json).`);
    case 'refused':
      throw new RegistryError('urlRefused', `${reason} Fix the "hermes.registry.url" setting.`);
    case 'unreachable':
      throw new RegistryError('unreachable', `The agent registry could not be reached (${reason}). ${noCopy} Check the network, or the "hermes.registry.url" setting.`);
  }
}
