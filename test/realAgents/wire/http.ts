import type { ServerResponse } from 'node:http';

export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

export function sendJson(res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}): void {
  if (res.headersSent) {
    res.end();
    return;
  }
  res.writeHead(status, { 'Content-Type': 'application/json', ...headers }).end(JSON.stringify(body));
}

export function retryHeaders(retryAfterSec: number | undefined): Record<string, string> {
  return retryAfterSec === undefined ? {} : { 'Retry-After': String(retryAfterSec) };
}

/** An SSE stream that stops writing once the client has gone (an interrupted agent). */
export class SseStream {
  constructor(private readonly res: ServerResponse) {
    res.writeHead(200, { 'Content-Type': 'text/event-stream', 'Cache-Control': 'no-cache', Connection: 'keep-alive' });
  }

  get gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  /** `data: <json>` with an optional `event:` line. */
  event(data: unknown, name?: string): void {
    this.raw(`${name !== undefined ? `event: ${name}\n` : ''}data: ${typeof data === 'string' ? data : JSON.stringify(data)}\n\n`);
  }

  raw(frame: string): void {
    if (!this.gone) {
      this.res.write(frame);
    }
  }

  end(): void {
    if (!this.gone) {
      this.res.end();
    }
  }
}

/** Streams chunks with a pause before each; returns false when the client went away. */
export async function paced(stream: SseStream, chunks: readonly string[], delayMs: number, write: (chunk: string) => void): Promise<boolean> {
  for (const chunk of chunks) {
    if (delayMs > 0) {
      await sleep(delayMs);
    }
    if (stream.gone) {
      return false;
    }
    write(chunk);
  }
  return !stream.gone;
}

/** An unstreamed text reply: as long a wait as its chunks would have streamed for, then the text whole. */
export async function wholeText(chunks: readonly string[], delayMs: number, send: (text: string) => void): Promise<void> {
  await sleep(delayMs * chunks.length);
  send(chunks.join(''));
}
