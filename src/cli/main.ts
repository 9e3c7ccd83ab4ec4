import { readFileSync } from 'node:fs';
import { version } from '../../package.json';
import { parseCommandLine, usage } from './args';
import { JsonlSink, TextSink } from './events';
import { ExitCode } from './exitCodes';
import { Runner } from './runner';
import { restoreCheckpoint } from './restore';

/** `hermes-acp-run`: parse, run one turn, exit with the `result` event's exit code. */
async function main(): Promise<number> {
  const parsed = parseCommandLine(process.argv.slice(2), process.cwd(), () => readFileSync(0, 'utf8'));
  switch (parsed.kind) {
    case 'help':
      process.stdout.write(usage);
      return 0;
    case 'version':
      process.stdout.write(`${version}\n`);
      return 0;
    case 'error':
      process.stderr.write(`hermes-acp-run: ${parsed.message}\nRun "hermes-acp-run --help" for usage.\n`);
      return ExitCode.usage;
    case 'restore':
      return restoreCheckpoint(parsed.id, parsed.cwd);
    case 'run':
      break;
  }
  // A reader that went away (EPIPE) must not crash the run: the exit code still tells the outcome.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  const sink = parsed.options.format === 'stream-json' ? new JsonlSink(process.stdout, process.stderr) : new TextSink(process.stdout, process.stderr);
  const runner = new Runner(parsed.options, { sink, now: Date.now, clientVersion: version });
  const onSignal = (): void => runner.interrupt();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await runner.run();
  await sink.flush();
  return code;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`hermes-acp-run: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(ExitCode.failed);
  },
);
