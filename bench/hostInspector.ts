import * as fs from 'node:fs';
import WebSocket from 'ws';

/**
 * The inspector of a running Node process (the code-server extension host in P9), opened the way
 * `node --inspect` would be by sending it SIGUSR1 (Node listens on 127.0.0.1:9229 then). Used to
 * tell memory that is leaked from memory not yet collected: a full GC, then the heap's size, and
 * which constructors hold how many objects (a heap snapshot, counted by node name).
 */
export class HostInspector {
  private nextId = 1;
  private readonly pending = new Map<number, { resolve: (v: unknown) => void; reject: (e: Error) => void }>();
  private readonly listeners = new Map<string, ((params: unknown) => void)[]>();

  private constructor(private readonly socket: WebSocket) {
    socket.on('message', (data: Buffer) => {
      const message = JSON.parse(data.toString('utf8')) as { id?: number; result?: unknown; error?: { message: string }; method?: string; params?: unknown };
      if (message.id !== undefined) {
        const waiting = this.pending.get(message.id);
        this.pending.delete(message.id);
        if (message.error !== undefined) {
          waiting?.reject(new Error(message.error.message));
        } else {
          waiting?.resolve(message.result);
        }
      } else if (message.method !== undefined) {
        for (const l of this.listeners.get(message.method) ?? []) {
          l(message.params);
        }
      }
    });
  }

  /** Opens the inspector of `pid` (SIGUSR1) and connects to it. */
  static async attach(pid: number, port = 9229): Promise<HostInspector> {
    process.kill(pid, 'SIGUSR1');
    const deadline = Date.now() + 15_000;
    let url: string | undefined;
    while (url === undefined && Date.now() < deadline) {
      try {
        const res = await fetch(`http://127.0.0.1:${port}/json/list`);
        const list = (await res.json()) as { webSocketDebuggerUrl?: string }[];
        url = list[0]?.webSocketDebuggerUrl;
      } catch {
        await new Promise((r) => setTimeout(r, 200));
      }
    }
    if (url === undefined) {
      throw new Error(`no inspector on port ${port} for pid ${pid}`);
    }
    const socket = new WebSocket(url, { perMessageDeflate: false, maxPayload: 2 ** 31 - 1 });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new HostInspector(socket);
  }

  send<T>(method: string, params: Record<string, unknown> = {}): Promise<T> {
    const id = this.nextId++;
    const result = new Promise<unknown>((resolve, reject) => this.pending.set(id, { resolve, reject }));
    this.socket.send(JSON.stringify({ id, method, params }));
    return result as Promise<T>;
  }

  /** JS heap used after a full collection (MB). */
  async heapAfterGcMB(): Promise<number> {
    await this.send('HeapProfiler.enable');
    await this.send('HeapProfiler.collectGarbage');
    await this.send('HeapProfiler.collectGarbage');
    const usage = await this.send<{ usedSize: number }>('Runtime.getHeapUsage');
    return usage.usedSize / (1024 * 1024);
  }

  /** A heap snapshot: how many objects of each constructor, and their self size (largest first). */
  async census(file?: string): Promise<{ name: string; count: number; selfMB: number }[]> {
    const chunks: string[] = [];
    const on = (params: unknown): void => {
      chunks.push((params as { chunk: string }).chunk);
    };
    this.listeners.set('HeapProfiler.addHeapSnapshotChunk', [on]);
    await this.send('HeapProfiler.enable');
    await this.send('HeapProfiler.takeHeapSnapshot', { reportProgress: false });
    this.listeners.delete('HeapProfiler.addHeapSnapshotChunk');
    const text = chunks.join('');
    if (file !== undefined) {
      fs.writeFileSync(file, text);
    }
    const snap = JSON.parse(text) as { snapshot: { meta: { node_fields: string[]; node_types: [string[]] } }; nodes: number[]; strings: string[] };
    const fields = snap.snapshot.meta.node_fields;
    const width = fields.length;
    const typeAt = fields.indexOf('type');
    const nameAt = fields.indexOf('name');
    const sizeAt = fields.indexOf('self_size');
    const types = snap.snapshot.meta.node_types[0];
    const byName = new Map<string, { count: number; size: number }>();
    for (let i = 0; i < snap.nodes.length; i += width) {
      const type = types[snap.nodes[i + typeAt] ?? 0] ?? '';
      const name = type === 'object' || type === 'closure' ? (snap.strings[snap.nodes[i + nameAt] ?? 0] ?? '') : `(${type})`;
      const entry = byName.get(name) ?? { count: 0, size: 0 };
      entry.count++;
      entry.size += snap.nodes[i + sizeAt] ?? 0;
      byName.set(name, entry);
    }
    return [...byName.entries()].map(([name, e]) => ({ name, count: e.count, selfMB: e.size / (1024 * 1024) })).sort((a, b) => b.selfMB - a.selfMB);
  }

  close(): void {
    this.socket.close();
  }
}
