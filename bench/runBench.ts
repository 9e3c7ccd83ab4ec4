import { runP1 } from './p1Pipeline';
import { defaultP2, runP2 } from './p2Streaming';
import { defaultP3, runP3 } from './p3LongSession';
import { runP4 } from './p4Footprint';
import { defaultP5, runP5 } from './p5LongReply';
import { defaultP6, runP6 } from './p6BigSession';
import { defaultP7, runP7 } from './p7Workbench';
import { defaultP8, runP8 } from './p8OpenSession';
import { defaultP9, runP9 } from './p9ManyChats';

/**
 * One benchmark per process (so one cannot warm up or pollute another); prints its result as one
 * JSON line. `scripts/bench.mjs` runs them all and prints the table.
 *   node out/bench/runBench.js p1|p2|p3|p5|p6|p7|p8|p9
 *   node out/bench/runBench.js p4 <production extension dir> <its dist/sizes.json>
 */
async function main(): Promise<void> {
  const which = process.argv[2] ?? 'p1';
  const num = (name: string, fallback: number): number => Number(process.env[name] ?? fallback);
  let result: unknown;
  switch (which) {
    case 'p1':
      result = await runP1(num('BENCH_FRAMES', 50_000));
      break;
    case 'p2':
      // BENCH_P2_WINDOW_MS / BENCH_P2_TEXT_MS: the host's coalescing window and text-only interval to model (WebviewChannel: 16 / 100–250 by rate).
      result = await runP2({
        ...defaultP2,
        chunks: num('BENCH_CHUNKS', defaultP2.chunks),
        windowMs: num('BENCH_P2_WINDOW_MS', defaultP2.windowMs),
        ...(process.env.BENCH_P2_TEXT_MS !== undefined ? { textIntervalMs: num('BENCH_P2_TEXT_MS', 0) } : {}),
      });
      break;
    case 'p3':
      result = await runP3(defaultP3);
      break;
    case 'p5':
      result = await runP5({ ...defaultP5, chunks: num('BENCH_P5_CHUNKS', defaultP5.chunks) });
      break;
    case 'p6':
      result = await runP6({ ...defaultP6, turns: num('BENCH_P6_TURNS', defaultP6.turns) });
      break;
    case 'p9':
      result = await runP9({ ...defaultP9, chats: num('BENCH_P9_CHATS', defaultP9.chats), settleAfterCloseMs: num('BENCH_P9_SETTLE_MS', defaultP9.settleAfterCloseMs) });
      break;
    case 'p8':
      result = await runP8(defaultP8);
      break;
    case 'p7':
      result = await runP7({ ...defaultP7, chunks: num('BENCH_P7_CHUNKS', defaultP7.chunks), editorFocused: process.env.BENCH_P7_EDITOR === '1' });
      break;
    case 'p4': {
      const [extensionDir, sizesFile] = process.argv.slice(3);
      if (extensionDir === undefined || sizesFile === undefined) {
        throw new Error('usage: runBench.js p4 <extension dir> <sizes.json>');
      }
      result = await runP4({ extensionDir, sizesFile, runs: num('BENCH_P4_RUNS', 2) });
      break;
    }
    default:
      throw new Error(`unknown benchmark ${which}`);
  }
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
