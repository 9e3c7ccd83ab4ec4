import { createHash } from 'node:crypto';
import { createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { once } from 'node:events';
import { RegistryError, cancelled } from './registryErrors';

/** Loopback hosts, where plain http cannot be intercepted on the way. */
export function isLoopbackHost(hostname: string): boolean {
  const h = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  return h === 'localhost' || h === '::1' || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(h);
}

/**
 * What may be fetched: https anywhere, http only on loopback (what is downloaded gets run: a plain
 * http download over a network can be swapped in transit), `file:` only where `allowFile` (the
 * registry index named by a machine-scoped setting).
 */
export function checkFetchUrl(raw: string, o: { allowFile?: boolean } = {}): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new RegistryError('urlRefused', `"${raw}" is not a URL.`);
  }
  const ok = url.protocol === 'https:' || (url.protocol === 'http:' && isLoopbackHost(url.hostname)) || (url.protocol === 'file:' && o.allowFile === true);
  if (!ok) {
    throw new RegistryError('urlRefused', `${url.href} was refused: only https (or http on this machine) is allowed${o.allowFile === true ? ', or a file: URL' : ''}.`);
  }
  return url;
}

export interface FetchOptions {
  readonly signal?: AbortSignal;
  /** Time allowed for the response to start, and between two chunks of the body. */
  readonly idleTimeoutMs?: number;
  /** Refused beyond this many bytes. */
  readonly maxBytes: number;
}

export interface DownloadOptions extends FetchOptions {
  /** Expected lower-case hex SHA-256 of the body. */
  readonly sha256?: string;
  readonly onProgress?: (received: number, total: number | undefined) => void;
}

interface Body {
  readonly total: number | undefined;
  readonly encoded: boolean;
  readonly chunks: AsyncIterable<Uint8Array>;
  readonly finish: () => void;
}

/**
 * GET with redirects followed by hand: every hop is checked against {@link checkFetchUrl} before
 * it is contacted (GitHub release downloads redirect once or twice).
 */
async function follow(url: string, signal: AbortSignal): Promise<Response> {
  let current = url;
  for (let hop = 0; hop <= 5; hop++) {
    const response = await fetch(current, { signal, redirect: 'manual' });
    const location = response.headers.get('location');
    if (![301, 302, 303, 307, 308].includes(response.status) || location === null) {
      return response;
    }
    await response.body?.cancel().catch(() => undefined);
    current = checkFetchUrl(new URL(location, current).href).href;
  }
  throw new RegistryError('download', `Could not download ${url}: too many redirects.`);
}

/** Starts a GET and checks the status; the body is streamed by the caller. */
async function open(url: string, o: FetchOptions): Promise<Body> {
  checkFetchUrl(url);
  const controller = new AbortController();
  const idleMs = o.idleTimeoutMs ?? 30_000;
  let timedOut = false;
  let timer: NodeJS.Timeout | undefined;
  const arm = (): void => {
    clearTimeout(timer);
    timer = setTimeout(() => {
      timedOut = true;
      controller.abort();
    }, idleMs);
  };
  const onAbort = (): void => controller.abort();
  o.signal?.addEventListener('abort', onAbort, { once: true });
  const finish = (): void => {
    clearTimeout(timer);
    o.signal?.removeEventListener('abort', onAbort);
  };
  const fail = (e: unknown): never => {
    finish();
    if (o.signal?.aborted === true) {
      throw cancelled();
    }
    if (timedOut) {
      throw new RegistryError('timeout', `${url} did not answer within ${Math.round(idleMs / 1000)} s.`);
    }
    throw RegistryError.is(e) ? e : new RegistryError('download', `Could not download ${url}: ${describeCause(e)}`);
  };
  if (o.signal?.aborted === true) {
    fail(undefined);
  }
  arm();
  let response: Response;
  try {
    response = await follow(url, controller.signal);
  } catch (e) {
    return fail(e);
  }
  try {
    if (!response.ok || response.body === null) {
      throw new RegistryError('download', `Could not download ${url}: HTTP ${response.status} ${response.statusText}`.trim());
    }
    const length = Number(response.headers.get('content-length') ?? NaN);
    const total = Number.isFinite(length) && length >= 0 ? length : undefined;
    if (total !== undefined && total > o.maxBytes) {
      throw new RegistryError('tooLarge', `${url} is ${total} bytes, more than the ${o.maxBytes} allowed.`);
    }
    const body = response.body;
    async function* chunks(): AsyncIterable<Uint8Array> {
      try {
        for await (const chunk of body) {
          arm();
          yield chunk;
        }
      } catch (e) {
        fail(e);
      }
    }
    // fetch decodes a Content-Encoding, after which Content-Length no longer counts the bytes we see.
    return { total, encoded: (response.headers.get('content-encoding') ?? 'identity') !== 'identity', chunks: chunks(), finish };
  } catch (e) {
    await response.body?.cancel().catch(() => undefined);
    return fail(e);
  }
}

function describeCause(e: unknown): string {
  if (e instanceof Error) {
    const cause = (e as { cause?: unknown }).cause;
    return cause instanceof Error ? `${e.message} (${cause.message})` : e.message;
  }
  return String(e);
}

function checkLength(url: string, received: number, body: Body): void {
  if (body.total !== undefined && !body.encoded && received !== body.total) {
    throw new RegistryError('sizeMismatch', `The download of ${url} was refused: ${received} bytes arrived, the server announced ${body.total}.`);
  }
}

/** GETs a small document (the registry index, an icon) into memory. */
export async function fetchBytes(url: string, o: FetchOptions): Promise<Buffer> {
  const body = await open(url, o);
  const parts: Buffer[] = [];
  let received = 0;
  try {
    for await (const chunk of body.chunks) {
      received += chunk.byteLength;
      if (received > o.maxBytes) {
        throw new RegistryError('tooLarge', `${url} is larger than the ${o.maxBytes} bytes allowed.`);
      }
      parts.push(Buffer.from(chunk));
    }
    checkLength(url, received, body);
  } finally {
    body.finish();
  }
  return Buffer.concat(parts);
}

/**
 * Downloads `url` into `file`, hashing as it goes. The size must match the announced length and
 * stay under `maxBytes`; with `sha256` the hash must match. On any failure the partial file is
 * removed and a {@link RegistryError} says why.
 */
export async function downloadToFile(url: string, file: string, o: DownloadOptions): Promise<{ bytes: number; sha256: string }> {
  const body = await open(url, o);
  const hash = createHash('sha256');
  const out = createWriteStream(file, { mode: 0o600 });
  // A write that fails (disk full) or completes after destroy must not become an uncaught error.
  let writeError: Error | undefined;
  out.on('error', (e) => (writeError ??= e));
  let received = 0;
  try {
    for await (const chunk of body.chunks) {
      received += chunk.byteLength;
      if (received > o.maxBytes) {
        throw new RegistryError('tooLarge', `The download of ${url} was stopped: more than the ${o.maxBytes} bytes allowed.`);
      }
      hash.update(chunk);
      if (!out.write(chunk)) {
        await once(out, 'drain');
      }
      if (writeError !== undefined) {
        throw new RegistryError('download', `Could not save ${url}: ${writeError.message}`);
      }
      o.onProgress?.(received, body.total);
    }
    checkLength(url, received, body);
    out.end();
    await once(out, 'finish');
    const sha256 = hash.digest('hex');
    if (o.sha256 !== undefined && sha256 !== o.sha256.toLowerCase()) {
      throw new RegistryError('checksum', `The download of ${url} was refused: its SHA-256 is ${sha256}, the registry says ${o.sha256.toLowerCase()}.`);
    }
    return { bytes: received, sha256 };
  } catch (e) {
    if (!out.closed) {
      const closed = new Promise<void>((resolve) => out.once('close', () => resolve()));
      out.destroy();
      await closed;
    }
    await rm(file, { force: true });
    throw e;
  } finally {
    body.finish();
  }
}
