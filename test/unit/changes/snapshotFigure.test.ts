import * as assert from 'node:assert/strict';
import * as fs from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { ChangeTracker } from '../../../src/changes/changeTracker';
import { SnapshotStore } from '../../../src/changes/snapshotStore';

/**
 * The figure asked for: memory and disk held by snapshots for a session that touched 200 files of
 * 100 KB. Printed as a table (run with `--expose-gc` to add the measured heap growth).
 */
const files = 200;
const fileBytes = 100 * 1024;
const mib = (n: number): string => `${(n / (1024 * 1024)).toFixed(2)} MiB`;

function fileText(i: number): string {
  const out: string[] = [];
  let size = 0;
  for (let line = 0; size < fileBytes; line++) {
    // 60-byte ASCII lines, distinct per file and line.
    const s = `file ${String(i).padStart(3, '0')} line ${String(line).padStart(5, '0')} ${'x'.repeat(36)}\n`;
    out.push(s);
    size += s.length;
  }
  return out.join('').slice(0, fileBytes - 1) + '\n';
}

/** The agent changes every `every`-th line of the file. */
function edited(text: string, every: number): string {
  return text
    .split('\n')
    .map((l, i) => (i % every === 5 ? `${l} // changed by the agent` : l))
    .join('\n');
}

function heapUsed(): number | undefined {
  const gc = (globalThis as { gc?: () => void }).gc;
  if (gc === undefined) {
    return undefined;
  }
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

interface Row {
  readonly scenario: string;
  readonly inMemory: number;
  readonly onDisk: number;
  readonly hunks: number;
  readonly heap: number | undefined;
  readonly ms: number;
}

async function run(scenario: string, every: number, memoryCapBytes: number | undefined, spillDir: string | undefined): Promise<Row> {
  const before = heapUsed();
  const started = performance.now();
  const store = new SnapshotStore({ ...(spillDir !== undefined ? { spillDir } : {}), ...(memoryCapBytes !== undefined ? { memoryCapBytes } : {}) });
  const tracker = new ChangeTracker({ store });
  tracker.beginTurn(1);
  for (let i = 0; i < files; i++) {
    // Each file is made, recorded and dropped: afterwards only what the tracker holds remains.
    const text = fileText(i);
    tracker.recordBefore(`/w/f${i}.txt`, text, { source: 'write' });
    tracker.recordAfter(`/w/f${i}.txt`, edited(text, every));
  }
  tracker.endTurn();
  await store.settled(); // texts past the cap are written in the background
  const ms = performance.now() - started;
  const after = heapUsed();
  const u = store.usage();
  const row: Row = {
    scenario,
    inMemory: u.bytesInMemory,
    onDisk: u.bytesOnDisk,
    hunks: tracker.usage().hunkBytes,
    heap: before !== undefined && after !== undefined ? after - before : undefined,
    ms,
  };
  assert.equal(tracker.usage().files, files);
  assert.equal(u.snapshots, files);
  tracker.dispose();
  store.dispose();
  return row;
}

suite('changes: snapshot memory and disk for 200 files of 100 KB', () => {
  test('the figure', async function () {
    this.timeout(120_000);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'hermes-figure-'));
    try {
      const rows = [
        await run('few lines changed per file (every 200th), default cap 64 MiB', 200, undefined, path.join(dir, 'a')),
        await run('every 10th line changed, default cap 64 MiB', 10, undefined, path.join(dir, 'b')),
        await run('few lines changed, memory cap 8 MiB → spill to disk', 200, 8 * 1024 * 1024, path.join(dir, 'c')),
      ];
      console.log('\n    scenario | snapshots in memory | on disk | hunk texts | measured heap growth | time');
      for (const r of rows) {
        console.log(`    ${r.scenario} | ${mib(r.inMemory)} | ${mib(r.onDisk)} | ${mib(r.hunks)} | ${r.heap !== undefined ? mib(r.heap) : 'n/a (no --expose-gc)'} | ${r.ms.toFixed(0)} ms`);
      }
      const [few, many, spilled] = rows;
      assert.ok(few !== undefined && many !== undefined && spilled !== undefined);
      // Snapshots are the files themselves: 200 × 100 KiB = 19.53 MiB, nothing more.
      assert.equal(few.inMemory, files * fileBytes);
      assert.equal(few.onDisk, 0);
      assert.ok(few.hunks < 0.05 * files * fileBytes, 'hunks of a small change are small');
      assert.ok(spilled.inMemory <= 8 * 1024 * 1024);
      assert.equal(spilled.inMemory + spilled.onDisk, files * fileBytes);
      if (few.heap !== undefined) {
        // Nothing retains the edited texts (a V8 sliced string would keep each 100 KB alive).
        assert.ok(few.heap < 1.3 * (few.inMemory + few.hunks), `heap ${mib(few.heap)}`);
        assert.ok(spilled.heap !== undefined && spilled.heap < 0.6 * files * fileBytes, `spilled heap ${mib(spilled.heap ?? 0)}`);
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
