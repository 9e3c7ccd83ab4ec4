import { readFileSync } from 'node:fs';
import { createInterface } from 'node:readline/promises';
import { version } from '../../package.json';
import { parseCommandLine, usage } from './args';
import { JsonlSink, TextSink } from './events';
import { ExitCode } from './exitCodes';
import { Runner } from './runner';
import { installedRegistryAgent, resolveRegistryAgent } from './registryAgent';
import { restoreCheckpoint } from './restore';
import { injectedSecrets } from './secretMask';
import { SessionRecords, stateDirectory } from './sessionRecords';
import { parseSessionsCommand, runSessionsCommand, sessionsUsage } from './sessionsCommand';

/** `hermes-acp-run`: parse, run one turn, exit with the `result` event's exit code. */
async function main(): Promise<number> {
  if (process.argv[2] === 'sessions') {
    return sessions(process.argv.slice(3));
  }
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
  const tooShort = injectedSecrets(process.env, parsed.options.transport).problems;
  if (tooShort.length > 0) {
    process.stderr.write(`${tooShort.map((p) => `hermes-acp-run: ${p}`).join('\n')}\n`);
    return ExitCode.usage;
  }
  // A reader that went away (EPIPE) must not crash the run: the exit code still tells the outcome.
  process.stdout.on('error', () => undefined);
  process.stderr.on('error', () => undefined);
  const sink = parsed.options.format === 'stream-json' ? new JsonlSink(process.stdout, process.stderr) : new TextSink(process.stdout, process.stderr);
  let options = parsed.options;
  let agentUnavailable: string | undefined;
  if (options.registryAgent !== undefined) {
    const ask = terminalAsk();
    const resolved = await resolveRegistryAgent(options.registryAgent, {
      env: process.env,
      cwd: options.cwd,
      diagnostic: (line) => void process.stderr.write(`${line}\n`),
      ...(ask !== undefined ? { ask } : {}),
    });
    if (resolved.kind === 'usage') {
      process.stderr.write(`hermes-acp-run: ${resolved.message}\n`);
      return ExitCode.usage;
    }
    if (resolved.kind === 'ready') {
      options = { ...options, agent: resolved.agent };
    } else {
      agentUnavailable = resolved.message;
    }
  }
  const records = new SessionRecords(stateDirectory(process.env));
  const runner = new Runner(options, { sink, now: Date.now, clientVersion: version, records, ...(agentUnavailable !== undefined ? { agentUnavailable } : {}) });
  const onSignal = (): void => runner.interrupt();
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  const code = await runner.run();
  await sink.flush();
  return code;
}

/** A yes/no question at the terminal, when there is one to ask at (stdin and stderr both a TTY). */
function terminalAsk(): ((question: string) => Promise<boolean>) | undefined {
  if (process.stdin.isTTY !== true || process.stderr.isTTY !== true) {
    return undefined;
  }
  return async (question) => {
    const rl = createInterface({ input: process.stdin, output: process.stderr });
    try {
      return /^y(es)?$/i.test((await rl.question(question)).trim());
    } finally {
      rl.close();
    }
  };
}

/** `hermes-acp-run sessions list|show|close`. */
async function sessions(argv: readonly string[]): Promise<number> {
  const cmd = parseSessionsCommand(argv, process.cwd());
  if (typeof cmd !== 'string' && 'help' in cmd) {
    process.stdout.write(sessionsUsage);
    return 0;
  }
  if (typeof cmd === 'string') {
    process.stderr.write(`hermes-acp-run: ${cmd}\nRun "hermes-acp-run sessions --help" for usage.\n`);
    return ExitCode.usage;
  }
  process.stdout.on('error', () => undefined);
  let run = cmd;
  if (cmd.options.registryAgent !== undefined) {
    const installed = installedRegistryAgent(cmd.options.registryAgent.id, process.env);
    if (installed.kind !== 'ready') {
      process.stderr.write(`hermes-acp-run: ${installed.message}\n`);
      return ExitCode.failed;
    }
    run = { ...cmd, options: { ...cmd.options, agent: installed.agent } };
  }
  const records = new SessionRecords(stateDirectory(process.env));
  const code = await runSessionsCommand(run, { records, stdout: process.stdout, stderr: process.stderr, now: Date.now, clientVersion: version });
  await new JsonlSink(process.stdout, process.stderr).flush();
  return code;
}

main().then(
  (code) => process.exit(code),
  (e: unknown) => {
    process.stderr.write(`hermes-acp-run: ${e instanceof Error ? (e.stack ?? e.message) : String(e)}\n`);
    process.exit(ExitCode.failed);
  },
);
