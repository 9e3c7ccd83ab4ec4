/**
 * Scripted ACP agent: a real agent process over stdio, built on the SDK's agent side, whose
 * behaviour is selected by bracketed markers in the prompt text (see test/agents/README.md).
 * It imitates Hermes 0.19.0 (`hermes acp`, NousResearch/hermes-agent) closely enough for client tests.
 *
 *   node dist/agents/scriptedAgent.js            serve ACP on stdin/stdout
 *   node dist/agents/scriptedAgent.js --version  print 1.0.0
 *   node dist/agents/scriptedAgent.js --check    print "Scripted agent check OK"
 *   node dist/agents/scriptedAgent.js --setup    stand-in for Hermes' terminal auth method; exit 0
 */
import * as acp from '@agentclientprotocol/sdk';
import * as fs from 'node:fs';
import { Readable } from 'node:stream';
import { buildAgent } from './agentApp';
import { log } from './agentLog';
import { readKnobs, type Knobs } from './knobs';
import { SerialStdout } from './rawStdout';
import { exitAfterFlush, type AgentRuntime } from './runtime';
import { useModeSet } from './sessionConfig';
import { SessionStore } from './sessionStore';

function runFlag(flag: string): void {
  switch (flag) {
    case '--version':
      process.stdout.write('1.0.0\n');
      return;
    case '--check':
      process.stdout.write('Scripted agent check OK\n');
      return;
    case '--setup': {
      const file = process.env.SCRIPTED_AGENT_AUTH_FILE;
      if (file !== undefined && file !== '') {
        fs.writeFileSync(file, 'signed in by --setup\n');
        process.stdout.write(`Scripted agent setup: signed in (${file}).\n`);
        return;
      }
      process.stdout.write('Scripted agent setup: nothing to configure (stands in for `hermes acp --setup`).\n');
      return;
    }
    default:
      process.stderr.write(`scripted-agent: unknown option ${flag}\n`);
      process.exitCode = 2;
  }
}

/** Signed in before any request: a terminal `--setup` ran (SCRIPTED_AGENT_AUTH_FILE), or the env-var method's `SCRIPTED_API_KEY` is right (logged, never the value). */
function signedInAtStart(knobs: Knobs): boolean {
  const given = process.env.SCRIPTED_API_KEY;
  const file = process.env.SCRIPTED_AGENT_AUTH_FILE;
  if (knobs.auth !== 'none' && file !== undefined && file !== '' && fs.existsSync(file)) {
    log('signed in by a terminal --setup (SCRIPTED_AGENT_AUTH_FILE)');
    return true;
  }
  if (knobs.auth === 'none' || given === undefined) {
    return false;
  }
  const ok = given === knobs.apiKey;
  log(ok ? 'SCRIPTED_API_KEY accepted: signed in' : 'SCRIPTED_API_KEY rejected: wrong value');
  return ok;
}

async function serve(): Promise<void> {
  const knobs = readKnobs();
  useModeSet(knobs.modes);
  const stdout = new SerialStdout();
  const runtime: AgentRuntime = {
    knobs,
    store: new SessionStore(knobs.stateFile),
    stdout,
    clientCapabilities: {},
    live: new Map(),
    alwaysAllowedCommands: new Set(),
    counters: { editApproval: 0, permCheck: 0, authFailures: 0 },
    signedIn: signedInAtStart(knobs),
  };
  process.on('unhandledRejection', (reason) => log(`unhandled rejection: ${String(reason)}`));
  if (knobs.ignoreEof) {
    // Like Claude Agent ACP and Codex ACP, the host going away is no reason to stop: neither stdin's
    // end nor a write to a pipe the host no longer reads (EPIPE, also while the connection closes).
    process.stdout.on('error', () => undefined);
    process.stderr.on('error', () => undefined);
  }
  const input = Readable.toWeb(process.stdin) as unknown as ReadableStream<Uint8Array>;
  const connection = buildAgent(runtime).connect(acp.ndJsonStream(stdout.sdkSink(), input));
  log(
    `started, pid ${process.pid}` +
      (knobs.stateFile === undefined ? '' : `, state file ${knobs.stateFile}`) +
      (knobs.configOptions ? ', config options' : ', modes + legacy models'),
  );
  await connection.closed;
  if (knobs.ignoreEof) {
    log('connection closed (stdin ended); staying (SCRIPTED_AGENT_IGNORE_EOF)');
    setInterval(() => undefined, 60_000);
    return;
  }
  log('connection closed (stdin ended); exiting');
  await exitAfterFlush(runtime, 0);
}

const flag = process.argv[2];
if (flag === undefined) {
  void serve();
} else {
  runFlag(flag);
}
