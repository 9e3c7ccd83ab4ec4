import { runP1 } from './p1Pipeline';

async function main(): Promise<void> {
  const which = process.argv[2] ?? 'p1';
  if (which === 'p1') {
    const r = await runP1(Number(process.env.BENCH_FRAMES ?? 50_000));
    process.stdout.write(`${JSON.stringify(r)}\n`);
  }
}

void main().then(
  () => process.exit(0),
  (e: unknown) => {
    console.error(e);
    process.exit(1);
  },
);
