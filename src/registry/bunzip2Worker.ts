import { closeSync, openSync, readFileSync, writeSync } from 'node:fs';
import { parentPort, workerData } from 'node:worker_threads';
import { decode, type ByteSink } from 'seek-bzip';

/**
 * Decompresses one `.bz2` file in a worker thread (pure-JS bzip2 runs at a few MB/s: on the
 * extension host's thread it would freeze every other extension). Message back: `{ok, bytes}` or
 * `{ok: false, message}`; the parent terminates the worker to cancel.
 */
interface Job {
  readonly input: string;
  readonly output: string;
  readonly maxBytes: number;
}

class FileSink implements ByteSink {
  private readonly buffer = Buffer.allocUnsafe(1 << 20);
  private used = 0;
  total = 0;

  constructor(
    private readonly fd: number,
    private readonly maxBytes: number,
  ) {}

  writeByte(byte: number): void {
    if (++this.total > this.maxBytes) {
      throw new Error(`it unpacks to more than ${this.maxBytes} bytes`);
    }
    this.buffer[this.used++] = byte;
    if (this.used === this.buffer.length) {
      this.flush();
    }
  }

  flush(): void {
    let off = 0;
    while (off < this.used) {
      off += writeSync(this.fd, this.buffer, off, this.used - off);
    }
    this.used = 0;
  }
}

function run(job: Job): { ok: true; bytes: number } | { ok: false; message: string } {
  const fd = openSync(job.output, 'wx', 0o600);
  try {
    const sink = new FileSink(fd, job.maxBytes);
    decode(readFileSync(job.input), sink, true);
    sink.flush();
    return { ok: true, bytes: sink.total };
  } catch (e) {
    return { ok: false, message: e instanceof Error ? e.message : String(e) };
  } finally {
    closeSync(fd);
  }
}

// seek-bzip allocates with `new Buffer(n)` (zero-filled since Node 8, so safe) and Node prints
// DEP0005 for it; in this worker thread only, that warning would just be noise in the host's log.
process.noDeprecation = true;
parentPort?.postMessage(run(workerData as Job));
